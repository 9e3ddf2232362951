/*===- check.h - the CHECK macro of thunky's C unit tests -----------------===*
 *
 * Each test counts its failures and prints one line per failed check (what
 * and where); main returns non-zero if any failed. Include once per test.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TEST_CHECK_H
#define THUNKY_TEST_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      failures++;                                                                        \
      printf("FAIL %s:%d: %s: ", __func__, __LINE__, #cond);                             \
      printf(__VA_ARGS__);                                                               \
      printf("\n");                                                                      \
    }                                                                                    \
  } while (0)

/* Prints a group's line: whether any check failed since failuresBefore. */
static inline void report(const char *group, int failuresBefore) {
  printf("%s: %s\n", group, failures == failuresBefore ? "ok" : "FAILED");
}

#endif /* THUNKY_TEST_CHECK_H */
