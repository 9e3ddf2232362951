/*===- thunk_name.c - how every report names a thunk --------------------===*/
#include "thunky-c/base/ThunkName.h"

#include <inttypes.h>
#include <stdio.h>

void thunkyThunkName(uint64_t number, const char *annotation, size_t length, int64_t id,
                     char *out, size_t size) {
  int shown = annotation ? (int)(length > 100 ? 100 : length) : 0;
  if (shown && id > 0)
    snprintf(out, size, "thunk %" PRIu64 " (%.*s, id %" PRId64 ")", number, shown, annotation, id);
  else if (shown)
    snprintf(out, size, "thunk %" PRIu64 " (%.*s)", number, shown, annotation);
  else if (id > 0)
    snprintf(out, size, "thunk %" PRIu64 " (id %" PRId64 ")", number, id);
  else
    snprintf(out, size, "thunk %" PRIu64, number);
}
