/*===- thunky-c/ModuleExport.h - a module to an executable, MLIR unseen ---===*
 *
 * One entry point of the plugin that needs none of MLIR's headers, for a
 * program that loads the plugin only when it meets a module: thunky-run
 * does, because linking MLIR costs every run about 150 ms at start-up,
 * which is most of running a small executable. Look it up with
 * dlsym(handle, THUNKY_EXPORT_MODULE_SYMBOL).
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_MODULE_EXPORT_H
#define THUNKY_C_MODULE_EXPORT_H

#include "thunky-c/Container.h"
#include "thunky-c/Error.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define THUNKY_EXPORT_MODULE_SYMBOL "thunkyExportModuleBytes"

/* Parses `data` (a module as MLIR text or bytecode, called `name` in
 * errors), exports it as thunky-translate --export-thunky would, and
 * appends the executable's bytes to `out` (the caller's). On failure,
 * `error` holds the first diagnostic as `name:line:col: message`. */
bool thunkyExportModuleBytes(const void *data, size_t size, const char *name, ThunkyBuffer *out,
                             ThunkyError *error);
typedef bool (*ThunkyExportModuleBytesFn)(const void *data, size_t size, const char *name,
                                          ThunkyBuffer *out, ThunkyError *error);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_MODULE_EXPORT_H */
