/*===- report_file.c - where an analysis pass writes its report ---------===*/
#include "report_file.h"

#include "thunky-c/dialect/Diagnostics.h"

#include <errno.h>
#include <string.h>

FILE *thunkyReportFileOpen(MlirLocation loc, const char *pass, const char *path) {
  if (!*path)
    return stderr;
  FILE *f = fopen(path, "w");
  if (!f)
    thunkyEmitError(loc, "%s: cannot write the report to %s: %s", pass, path, strerror(errno));
  return f;
}

bool thunkyReportFileClose(FILE *f, MlirLocation loc, const char *pass, const char *path) {
  if (f == stderr) {
    fflush(stderr);
    return true;
  }
  bool ok = !ferror(f);
  ok = fclose(f) == 0 && ok;
  if (!ok)
    thunkyEmitError(loc, "%s: cannot write the report to %s: %s", pass, path, strerror(errno));
  return ok;
}
