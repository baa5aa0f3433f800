/* SPDX-License-Identifier: GPL-2.0 */
/* check.h - the unit tests' assertions: TAP-style "ok"/"not ok" lines. */
#ifndef TCPAV_TEST_CHECK_H
#define TCPAV_TEST_CHECK_H
#include <stdio.h>
#include <stdlib.h>

static int check_failed, check_count;

#define CHECK(cond, ...)                                                              \
	do {                                                                          \
		check_count++;                                                        \
		if (cond) {                                                           \
			printf("ok %d - ", check_count);                              \
		} else {                                                              \
			check_failed++;                                               \
			printf("not ok %d - %s:%d: (%s) ", check_count, __FILE__, __LINE__, #cond); \
		}                                                                     \
		printf(__VA_ARGS__);                                                  \
		printf("\n");                                                         \
	} while (0)

/* A check that cannot run here: "skip N - reason", never a bare comment
 * (tests/run.sh counts it as skipped, which fails the run). */
#define SKIP(...)                                                                     \
	do {                                                                          \
		check_count++;                                                        \
		printf("skip %d - ", check_count);                                    \
		printf(__VA_ARGS__);                                                  \
		printf("\n");                                                         \
	} while (0)

/* 1 when `jq -e -s FILTER` holds for TEXT (JSON lines, slurped into one
 * array), 0 when it does not (or TEXT does not parse), -1 without jq.
 * FILTER goes to the shell in single quotes, so it must hold none. */
static inline int jq_true(const char *text, const char *filter)
{
	char cmd[4096];
	FILE *p;

	if (system("command -v jq >/dev/null 2>&1") != 0)
		return -1;
	if ((size_t)snprintf(cmd, sizeof(cmd), "jq -e -s '%s' >/dev/null 2>&1", filter) >= sizeof(cmd))
		return 0;
	p = popen(cmd, "w");
	if (!p)
		return -1;
	fputs(text, p);
	return pclose(p) == 0;
}

/* The plan, after the results: tests/run.sh compares it with them. */
static inline int check_done(void)
{
	printf("1..%d\n", check_count);
	return check_failed ? 1 : 0;
}
#endif
