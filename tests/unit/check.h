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

static inline int check_done(void)
{
	printf("1..%d\n", check_count);
	return check_failed ? 1 : 0;
}
#endif
