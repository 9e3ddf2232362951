/* A program with the bugs an error path can hide: it prints the error a
 * test expects, exits 1 as the tool would, and on the way leaks (`leak`)
 * or writes past a heap block (`overflow`); `none` plants nothing.
 * test/Build/sanitizer-fails.test runs it under the sanitized suite. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the leaked block's address would live: cleared, so no pointer to
 * it remains. */
static void *volatile kept;

int main(int argc, char **argv) {
  const char *plant = argc > 1 ? argv[1] : "none";
  fprintf(stderr, "error: the planted failure\n");
  if (!strcmp(plant, "leak")) {
    kept = malloc(4096);
    kept = NULL;
  } else if (!strcmp(plant, "overflow")) {
    volatile char *block = malloc(16);
    block[16] = 1;
    free((void *)block);
  }
  return 1;
}
