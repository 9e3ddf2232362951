/*===- fuzz_equivalence.c - thunky-optimize keeps every program's meaning ===*
 *
 * An executable that plans, imports and runs as a fingerprint run
 * (docs/checking.md) is optimized (thunky-optimize), exported and run
 * again on the same inputs: every output must be the same bit for bit, and
 * a module with no race must not gain one. A program whose outputs depend
 * on scratch it never wrote is skipped: it has no meaning to keep. Any difference aborts, with the
 * report of thunky-run --compare. The symbolic check (--kernels=symbolic)
 * runs too: on whatever plans it must agree with itself, and where the
 * fingerprint finds the optimized program the same, so must it. One rank (no rendezvous to wait for when
 * a fuzzed program's ranks diverge) and small limits keep an input cheap.
 *
 *===--------------------------------------------------------------------===*/
#include "fuzz_mlir.h"

#include "thunky-c/Compare.h"
#include "thunky-c/Passes.h"

#include "mlir-c/Pass.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void ignore(MlirStringRef text, void *userData) { (void)text, (void)userData; }

/* Runs `pipeline` on the module; false when it fails. */
static bool runPipeline(MlirContext ctx, MlirOperation module, const char *pipeline) {
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  bool ok = mlirLogicalResultIsSuccess(
                mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm),
                                      mlirStringRefCreateFromCString(pipeline), ignore, NULL)) &&
            mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, module));
  mlirPassManagerDestroy(pm);
  return ok;
}

static bool plan(const void *data, size_t size, ThunkyPlan **out) {
  ThunkyLimits limits = thunkyLimitsDefault();
  limits.maxThunks = 4096, limits.maxAllocationBytes = 1 << 22, limits.maxAllocations = 4096;
  limits.maxDecodedBytes = 1 << 24;
  ThunkyError error;
  return thunkyPlanCreate(data, size, &limits, out, &error);
}

static void fail(const char *what, const ThunkyError *error, MlirOperation module) {
  fprintf(stderr, "thunky fuzz: %s%s%s\n", what, error ? ": " : "", error ? error->message : "");
  thunkyFuzzFail("the optimized module", module);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool registered;
  if (!registered)
    thunkyRegisterPasses(), registered = true;
  ThunkyPlan *original = NULL, *optimized = NULL;
  if (!plan(data, size, &original))
    return 0;
  ThunkyNpyArray *inputs = calloc(original->numParameters + 1, sizeof *inputs);
  ThunkyRegistry *registry = thunkyRegistryCreate();
  bool ok = inputs && registry;
  for (uint32_t i = 0; ok && i < original->numParameters; i++) {
    inputs[i].size = original->parameters[i].slice.size;
    ok = (inputs[i].data = malloc(inputs[i].size + 1)) != NULL;
    if (ok)
      thunkyFingerprintFill(i, inputs[i].data, inputs[i].size);
  }
  ThunkyRunConfig config = {.ranks = 1, .partitions = 1, .maxIterations = 256,
                            .maxHostMemory = 64 << 20, .registry = registry,
                            .fingerprint = true, .undefinedInitial = true};
  ThunkyRunSide a = {"the original", original, config}, b = a;
  const ThunkyInputs given = {inputs, false, 0};
  FILE *sink = fopen("/dev/null", "w");
  ThunkyError error;
  /* Only what runs can be compared; run twice, it must agree with itself. */
  int same = ok && sink ? thunkyCompareRuns(&thunkyHostBackend, &a, &a, &given, sink, &error) : 2;
  if (same == 1)
    fail("a fingerprint run differs from itself", NULL, (MlirOperation){NULL});
  if (ok && sink && thunkyCompareRuns(&thunkySymbolicBackend, &a, &a, &given, sink, &error) == 1)
    fail("a symbolic run differs from itself", NULL, (MlirOperation){NULL});
  /* A program that reads scratch it never wrote means nothing on a GPU,
   * and passes may give that scratch to other values: not comparable. */
  ThunkyRunSide dirty = a;
  dirty.config.scratchByte = 0xa5;
  if (same == 0 && thunkyCompareRuns(&thunkyHostBackend, &a, &dirty, &given, sink, &error) != 0)
    same = 2;
  MlirContext ctx = thunkyFuzzContext();
  MlirOperation module = same == 0 ? thunkyFuzzImport(ctx, data, size) : (MlirOperation){NULL};
  if (!mlirOperationIsNull(module)) {
    bool raceFree = runPipeline(ctx, module, "builtin.module(thunky-check-races)");
    if (!runPipeline(ctx, module, "builtin.module(thunky-optimize)"))
      fail("thunky-optimize failed on an imported module", NULL, module);
    if (raceFree && !runPipeline(ctx, module, "builtin.module(thunky-check-races)"))
      fail("thunky-optimize made a race", NULL, module);
    ThunkyBuffer bytes = {0};
    if (mlirLogicalResultIsFailure(thunkyExportExecutable(module, thunkyFuzzAppend, &bytes)))
      fail("the optimized module does not export", NULL, module);
    if (!plan(bytes.data, bytes.size, &optimized))
      fail("the optimized executable does not plan", NULL, module);
    b.name = "the optimized", b.plan = optimized;
    int status = thunkyCompareRuns(&thunkyHostBackend, &a, &b, &given, sink, &error);
    if (status == 1) {
      thunkyCompareRuns(&thunkyHostBackend, &a, &b, &given, stderr, &error);
      fail("thunky-optimize changed the outputs (above)", NULL, module);
    }
    if (status == 2)
      fail("the optimized executable fails where the original runs", &error, module);
    if (thunkyCompareRuns(&thunkySymbolicBackend, &a, &b, &given, sink, &error) == 1) {
      thunkyCompareRuns(&thunkySymbolicBackend, &a, &b, &given, stderr, &error);
      fail("the symbolic check finds a difference the fingerprint does not (above)", NULL, module);
    }
    thunkyBufferDestroy(&bytes);
    mlirOperationDestroy(module);
  }
  mlirContextDestroy(ctx);
  if (sink)
    fclose(sink);
  for (uint32_t i = 0; inputs && i < original->numParameters; i++)
    free(inputs[i].data);
  free(inputs);
  thunkyRegistryDestroy(registry);
  thunkyPlanDestroy(optimized);
  thunkyPlanDestroy(original);
  return 0;
}
