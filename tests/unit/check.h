/* check.h - the unit tests' assertions: TAP-style "ok"/"not ok" lines. */
#ifndef TCPAV_TEST_CHECK_H
#define TCPAV_TEST_CHECK_H
#include <stdio.h>

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

/* The plan, after the results: tests/run.sh compares it with them. */
static inline int check_done(void)
{
	printf("1..%d\n", check_count);
	return check_failed ? 1 : 0;
}
#endif
