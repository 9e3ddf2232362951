/*===- json.c - JSON string bodies --------------------------------------===*/
#include "thunky-c/base/Json.h"

void thunkyJsonWriteString(FILE *f, const char *data, size_t size) {
  for (size_t i = 0; i < size; i++) {
    unsigned char c = (unsigned char)data[i];
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
}
