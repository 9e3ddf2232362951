/*===- diagnostics.c - printf-style diagnostics from C ------------------===*/
#include "thunky-c/dialect/Diagnostics.h"

#include "mlir-c/Diagnostics.h"

#include <stdarg.h>
#include <stdio.h>

/* Long messages are cut, not dropped: a diagnostic is for a person. */
enum { MESSAGE_CAPACITY = 1024 };

static void emitFormatted(MlirLocation loc, MlirDiagnosticSeverity severity,
                          const char *prefix, const char *fmt, va_list args) {
  char message[MESSAGE_CAPACITY];
  int used = snprintf(message, sizeof message, "%s", prefix);
  if (used < 0 || (size_t)used >= sizeof message)
    used = 0;
  vsnprintf(message + used, sizeof message - (size_t)used, fmt, args);
  thunkyEmitMessage(loc, severity, message);
}

/* "'thunky.copy' op ", as MLIR's own op diagnostics begin. */
static void opPrefix(MlirOperation op, char *prefix, size_t size) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(prefix, size, "'%.*s' op ", (int)name.length, name.data);
}

/* The entry points differ only in severity and in whether an op names the
 * place: one definition each, from this table of four. */
#define THUNKY_DEFINE_EMIT(Name, Severity, Result, Return)                    \
  Result thunkyEmit##Name(MlirLocation loc, const char *fmt, ...) {          \
    va_list args;                                                            \
    va_start(args, fmt);                                                     \
    emitFormatted(loc, Severity, "", fmt, args);                             \
    va_end(args);                                                            \
    Return;                                                                  \
  }                                                                          \
  Result thunkyEmitOp##Name(MlirOperation op, const char *fmt, ...) {        \
    char prefix[128];                                                        \
    opPrefix(op, prefix, sizeof prefix);                                     \
    va_list args;                                                            \
    va_start(args, fmt);                                                     \
    emitFormatted(mlirOperationGetLocation(op), Severity, prefix, fmt, args); \
    va_end(args);                                                            \
    Return;                                                                  \
  }

THUNKY_DEFINE_EMIT(Error, MlirDiagnosticError, MlirLogicalResult,
                   return mlirLogicalResultFailure())
THUNKY_DEFINE_EMIT(Warning, MlirDiagnosticWarning, void, return)
THUNKY_DEFINE_EMIT(Remark, MlirDiagnosticRemark, void, return)
