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

  /* Flattening exposes ops to the block-level analyses; folding gives the
   * slices that copy elision and packing reason about; the second fold
   * tidies the slices elision made. */
  static const ThunkyPassFactory optimize[] = {
      thunkyCreateFlattenSequentialPass, thunkyCreateFoldSlicesPass,
      thunkyCreateElideCopiesPass,       thunkyCreateFoldSlicesPass,
      thunkyCreatePackScratchPass,
  };
  thunkyRegisterPipeline("thunky-optimize",
                         "flatten-sequential, fold-slices, elide-copies, "
                         "fold-slices, pack-scratch",
                         optimize, sizeof optimize / sizeof optimize[0]);
}
