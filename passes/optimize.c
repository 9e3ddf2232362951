/*===- optimize.c - thunky-optimize: the rewrite passes as one pass ------===*
 *
 * MLIR verifies the whole module after every pass. Run as a pipeline of
 * five passes, the rewrites were verified five times, and the verifier cost
 * more than the rewrites (at 100k thunks about 0.45 s a verification against
 * 1.5 s for all five rewrites). As one pass made of stages the module is
 * verified once, after the last; `verify-stages` verifies after each stage
 * too and names the stage that left an invalid module.
 *
 *===--------------------------------------------------------------------===*/
#include "stages.h"

#include "thunky-c/dialect/Diagnostics.h"
#include "thunky-c/passes/PassKit.h"
#include "thunky-c/passes/Passes.h"

/* Flattening exposes ops to the block-level analyses; folding gives the
 * slices that copy elision and packing reason about; the second fold tidies
 * the slices elision made. */
static const ThunkyPassInfo *const stages[] = {
    &thunkyFlattenSequentialInfo, &thunkyFoldSlicesInfo, &thunkyElideCopiesInfo,
    &thunkyFoldSlicesInfo,        &thunkyPackScratchInfo,
};

enum { OPTION_VERIFY_STAGES };

static void run(MlirOperation root, ThunkyPassState *state) {
  bool changed = false;
  for (size_t i = 0; i < sizeof stages / sizeof stages[0]; ++i) {
    if (!thunkyPassRunStage(stages[i], root, state, &changed))
      return;
    if (thunkyPassGetOption(state, OPTION_VERIFY_STAGES) && !mlirOperationVerify(root)) {
      thunkyEmitOpError(root, "thunky-optimize: the module does not verify after stage %zu "
                              "(%s), above", i + 1, stages[i]->argument);
      thunkyPassSignalFailure(state);
      return;
    }
  }
  if (!changed)
    thunkyPassMarkUnchanged(state);
}

static const ThunkyPassOption options[] = {
    [OPTION_VERIFY_STAGES] = {"verify-stages",
                              "Verify the module after each stage, not only at the end",
                              THUNKY_OPTION_BOOL, 0},
};

static const ThunkyPassInfo info = {
    "ThunkyOptimize", "thunky-optimize",
    "Flatten sequentials, fold slices, elide copies, fold slices again and pack scratch, "
    "verifying once",
    run, options, 1};

MlirPass thunkyCreateOptimizePass(void) { return thunkyPassCreate(&info); }
