/*===- register.c - the list of thunky passes ---------------------------===*/
#include "thunky-c/Passes.h"

void thunkyRegisterPasses(void) {
  /* mlir-opt calls the pass plugin's hook once per --load-pass-plugin, and
   * the registry refuses a second registration of the same pass. */
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  thunkyRegisterPass(thunkyCreateFlattenSequentialPass);
  thunkyRegisterPass(thunkyCreateFoldSlicesPass);
  thunkyRegisterPass(thunkyCreateElideCopiesPass);
  thunkyRegisterPass(thunkyCreatePackScratchPass);
  thunkyRegisterPass(thunkyCreateStripMetadataPass);
  thunkyRegisterPass(thunkyCreateStatsPass);
  thunkyRegisterPass(thunkyCreateMemoryReportPass);
  thunkyRegisterPass(thunkyCreateCheckRacesPass);
  thunkyRegisterPass(thunkyCreateRemoveRedundantAsyncPass);
  thunkyRegisterPass(thunkyCreateExpandAsyncScopePass);
  thunkyRegisterPass(thunkyCreateOptimizePass);
}
