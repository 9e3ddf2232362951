/*===- pass_kit.c - external passes from a ThunkyPassInfo ---------------===*/
#include "thunky-c/PassKit.h"

#include "thunky-c/Dialect.h"

#include <stdint.h>

/* Passes built from a ThunkyPassInfo keep no state of their own: every
 * instance shares the info, and a clone is the same info again. */
static void noop(void *userData) {}
static void *cloneInfo(void *userData) { return userData; }

static void runInfo(MlirOperation op, MlirExternalPass pass, void *userData) {
  const ThunkyPassInfo *info = userData;
  info->run(op, pass);
}

MlirPass thunkyPassCreate(const ThunkyPassInfo *info) {
  MlirDialectHandle thunky = mlirGetDialectHandle__thunky__();
  MlirExternalPassCallbacks callbacks = {noop, noop, NULL, cloneInfo, runInfo};
  /* The info's address is unique and stable, as a TypeID must be. The C
   * API's user data is not const; the callbacks only read through it. */
  return mlirCreateExternalPass(
      mlirTypeIDCreate(info), mlirStringRefCreateFromCString(info->name),
      mlirStringRefCreateFromCString(info->argument),
      mlirStringRefCreateFromCString(info->description),
      mlirStringRefCreateFromCString(""), 1, &thunky, callbacks, (void *)(uintptr_t)info);
}
