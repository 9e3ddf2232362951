/*===- in_place.c - a tool that writes over its own input -------------===*/
#include "in_place.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static bool sameFile(const char *a, const char *b) {
  struct stat sa, sb;
  if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
    return false; /* stdin is read whole before anything is written */
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && S_ISREG(sa.st_mode) &&
         sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool toolWritePath(const char *input, const char *output, char *buffer, size_t size) {
  int n = sameFile(input, output) ? snprintf(buffer, size, "%s.partial", output)
                                  : snprintf(buffer, size, "%s", output);
  return n >= 0 && (size_t)n < size;
}

bool toolFinishWrite(const char *written, const char *output) {
  return strcmp(written, output) == 0 || rename(written, output) == 0;
}
