/*===- module_export.h - a module to an executable, for thunky-run ------===*/
#ifndef THUNKY_TOOLS_MODULE_EXPORT_H
#define THUNKY_TOOLS_MODULE_EXPORT_H

#include "thunky-c/format/Container.h"
#include "thunky-c/base/Error.h"

#include <stdint.h>

/* Exports the module at `path` (MLIR text or bytecode) by running
 * `thunky-translate --export-thunky` from this binary's directory (with
 * thunky-run's `maxNesting`, --max-nesting), and
 * appends the executable's bytes to `out`. On failure, `error` holds the
 * translator's first error as `path:line:col: message`. */
bool exportModuleFile(const char *path, uint64_t maxNesting, ThunkyBuffer *out, ThunkyError *error);

#endif /* THUNKY_TOOLS_MODULE_EXPORT_H */
