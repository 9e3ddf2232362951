/*===- export_module.c - module bytes to executable bytes, in one call ----===*
 *
 * thunkyExportModuleBytes (thunky-c/ModuleExport.h): what thunky-run needs
 * from MLIR, behind a plain C signature so that it can load the plugin only
 * when its input is a module.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/ModuleExport.h"

#include "thunky-c/Dialect.h"
#include "thunky-c/Translate.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <string.h>

static void appendBytes(MlirStringRef bytes, void *buffer) {
  thunkyBufferAppend(buffer, bytes.data, bytes.length);
}

/* The first error, as `name:line:col: message` with the caller's name for
 * the parser's "-", on one line. */
typedef struct Diagnosed {
  const char *name;
  ThunkyError *error;
  bool reported;
} Diagnosed;

static void appendMessage(MlirStringRef text, void *userData) {
  char *message = ((Diagnosed *)userData)->error->message;
  size_t used = strlen(message), room = sizeof ((ThunkyError *)0)->message - used - 1;
  size_t n = text.length < room ? text.length : room;
  memcpy(message + used, text.data, n);
  message[used + n] = 0;
  for (char *c = message + used; *c; c++)
    *c = *c == '\n' ? ' ' : *c;
}

static MlirLogicalResult takeDiagnostic(MlirDiagnostic diagnostic, void *userData) {
  Diagnosed *d = userData;
  if (d->reported || mlirDiagnosticGetSeverity(diagnostic) != MlirDiagnosticError)
    return mlirLogicalResultSuccess();
  MlirLocation loc = mlirDiagnosticGetLocation(diagnostic);
  while (mlirLocationIsAName(loc))
    loc = mlirLocationNameGetChildLoc(loc);
  if (mlirLocationIsAFileLineColRange(loc)) {
    MlirStringRef file = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
    bool parsed = file.length == 0 || (file.length == 1 && file.data[0] == '-');
    thunkyErrorf(d->error, "%.*s:%d:%d: ", parsed ? (int)strlen(d->name) : (int)file.length,
                 parsed ? d->name : file.data, mlirLocationFileLineColRangeGetStartLine(loc),
                 mlirLocationFileLineColRangeGetStartColumn(loc));
  } else {
    thunkyErrorf(d->error, "%s: ", d->name);
  }
  mlirDiagnosticPrint(diagnostic, appendMessage, d);
  d->reported = true;
  return mlirLogicalResultSuccess();
}

bool thunkyExportModuleBytes(const void *data, size_t size, const char *name, ThunkyBuffer *out,
                             ThunkyError *error) {
  MlirContext ctx = mlirContextCreate();
  Diagnosed diagnosed = {name, error, false};
  /* Attached before the dialect's own handler (which names thunks), so
   * that one sees each diagnostic first. */
  mlirContextAttachDiagnosticHandler(ctx, takeDiagnostic, &diagnosed, NULL);
  thunkyContextLoadDialects(ctx);
  MlirModule module = mlirModuleCreateParse(ctx, mlirStringRefCreate(data, size));
  bool ok = !mlirModuleIsNull(module) &&
            mlirLogicalResultIsSuccess(
                thunkyExportExecutable(mlirModuleGetOperation(module), appendBytes, out));
  if (!mlirModuleIsNull(module))
    mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  if (!ok && !diagnosed.reported)
    thunkyErrorf(error, "%s: the module does not parse or export", name);
  return ok;
}
