/*===- error.c - ThunkyError messages ------------------------------------===*/
#include "thunky-c/base/Error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool thunkyErrorf(ThunkyError *error, const char *fmt, ...) {
  if (!error)
    return false;
  va_list args;
  va_start(args, fmt);
  vsnprintf(error->message, sizeof error->message, fmt, args);
  va_end(args);
  return false;
}

bool thunkyErrorContext(ThunkyError *error, const char *fmt, ...) {
  if (!error)
    return false;
  char context[256], old[sizeof error->message];
  va_list args;
  va_start(args, fmt);
  vsnprintf(context, sizeof context, fmt, args);
  va_end(args);
  memcpy(old, error->message, sizeof old);
  snprintf(error->message, sizeof error->message, "%s: %s", context, old);
  return false;
}
