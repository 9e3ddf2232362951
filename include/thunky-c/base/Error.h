/*===- thunky-c/base/Error.h - errors from code that does not link MLIR ------===*
 *
 * The container reader and the runtime run without MLIR, so they cannot
 * emit diagnostics. A failing function returns false and leaves one line in
 * a ThunkyError: what is wrong and where (a byte offset, a record, a
 * thunk), ready to be printed or turned into a diagnostic by the caller.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_ERROR_H
#define THUNKY_C_ERROR_H

#include "thunky-c/Export.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ThunkyError {
  char message[512];
} ThunkyError;

/* Sets the message (printf-style); returns false so callers can
 * `return thunkyErrorf(...)`. A NULL error is allowed and ignored. */
THUNKY_EXPORT bool thunkyErrorf(ThunkyError *error, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Puts "<context>: " in front of the message already set; returns false. */
THUNKY_EXPORT bool thunkyErrorContext(ThunkyError *error, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_ERROR_H */
