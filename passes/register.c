/*===- register.c - the list of thunky passes ---------------------------===*/
#include "thunky-c/passes/Passes.h"

#include <pthread.h>

static void registerOnce(void) {
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

void thunkyRegisterPasses(void) {
  /* mlir-opt calls the pass plugin's hook once per --load-pass-plugin, the
   * registry refuses a second registration of the same pass, and threads
   * of one process (Python's) may ask at once: none may return before the
   * passes are registered. */
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, registerOnce);
}
