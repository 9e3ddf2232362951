/*===- report_file.h - where an analysis pass writes its report ---------===*
 *
 * The analyses (thunky-stats, thunky-memory-report) print to stderr, or to
 * the file their `output` option names: a script (the Python package,
 * docs/python.md) then reads the report without taking the process's
 * stderr.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_PASSES_REPORT_FILE_H
#define THUNKY_PASSES_REPORT_FILE_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdio.h>

/* stderr when `path` is empty, else `path` opened for writing; NULL, with
 * an error at `loc` naming `pass`, when it cannot be opened. */
FILE *thunkyReportFileOpen(MlirLocation loc, const char *pass, const char *path);
/* Closes what thunkyReportFileOpen opened (stderr stays open); false, with
 * an error at `loc`, when the report could not be written in full. */
bool thunkyReportFileClose(FILE *f, MlirLocation loc, const char *pass, const char *path);

#endif /* THUNKY_PASSES_REPORT_FILE_H */
