/*===- diagnostics.c - printf-style diagnostics from C ------------------===*/
#include "thunky-c/Diagnostics.h"

#include "mlir-c/Diagnostics.h"

#include <stdarg.h>
#include <stdio.h>

/* Long messages are cut, not dropped: a diagnostic is for a person. */
enum { MESSAGE_CAPACITY = 1024 };

static MlirLogicalResult emitFormatted(MlirLocation loc, const char *prefix,
                                       const char *fmt, va_list args) {
  char message[MESSAGE_CAPACITY];
  int used = snprintf(message, sizeof message, "%s", prefix);
  if (used < 0 || (size_t)used >= sizeof message)
    used = 0;
  vsnprintf(message + used, sizeof message - (size_t)used, fmt, args);
  mlirEmitError(loc, message);
  return mlirLogicalResultFailure();
}

MlirLogicalResult thunkyEmitError(MlirLocation loc, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  MlirLogicalResult result = emitFormatted(loc, "", fmt, args);
  va_end(args);
  return result;
}

MlirLogicalResult thunkyEmitOpError(MlirOperation op, const char *fmt, ...) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  char prefix[128];
  snprintf(prefix, sizeof prefix, "'%.*s' op ", (int)name.length, name.data);
  va_list args;
  va_start(args, fmt);
  MlirLogicalResult result =
      emitFormatted(mlirOperationGetLocation(op), prefix, fmt, args);
  va_end(args);
  return result;
}
