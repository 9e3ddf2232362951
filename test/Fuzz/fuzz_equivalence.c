/*===- fuzz_equivalence.c - thunky-optimize keeps every program's meaning ===*
 *
 * An executable that plans, imports and runs as a fingerprint run
 * (docs/checking.md) is optimized (thunky-optimize), exported and run
 * again on the same inputs: every output must be the same bit for bit, and
 * a module with no race must not gain one. A program that reads scratch it
 * never wrote is skipped: it has no meaning to keep, even where only a
 * loop's trip count reads it (a rewrite that moves that scratch may make the
 * loop run forever). Any difference aborts, with the
 * report of thunky-run --compare. The symbolic check (--backend symbolic)
 * runs too: on whatever plans it must agree with itself, and where the
 * fingerprint finds the optimized program the same, so must it. One rank (no rendezvous to wait for when
 * a fuzzed program's ranks diverge) and small limits keep an input cheap.
 *
 *===--------------------------------------------------------------------===*/
#include "fuzz_mlir.h"

#include "thunky-c/runtime/Check.h"
#include "thunky-c/runtime/Compare.h"
#include "thunky-c/passes/Passes.h"


#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* Whether a run of `side` reads scratch no thunk wrote: with scratch
 * starting as other bytes, under either schedule of its async regions,
 * some thunk writes other bytes or runs another number of times. Only the
 * symbolic run sees it surely: a thunk that writes a pred from such bytes
 * writes 0 or 1 in a fingerprint run, the same for two fills one time in
 * two, but a term of what it read on symbols. A run that fails counts as
 * reading it. Comparing outputs alone misses a loop whose trip count reads
 * such scratch, which a rewrite that moves the scratch may make endless. */
static bool readsUnwritten(const ThunkyRunSide *side, const ThunkyInputs *given) {
  const ThunkyBackendOps *backends[] = {&thunkySymbolicBackend, &thunkyHostBackend};
  bool reads = false;
  for (int run = 0; run < 4 && !reads; run++) {
    const ThunkyBackendOps *backend = backends[run / 2];
    ThunkyWriteLog *traces[2] = {thunkyWriteLogCreate(1, 1 << 20),
                                   thunkyWriteLogCreate(1, 1 << 20)};
    reads = !traces[0] || !traces[1];
    for (int dirty = 0; dirty < 2 && !reads; dirty++) {
      ThunkyRunConfig config = side->config;
      config.asyncAtDone = run % 2, config.writeLog = traces[dirty];
      config.scratchByte = dirty ? 0xa5 : 0;
      void *state = NULL;
      ThunkyError error;
      reads = !backend->create(side->plan, &config, &state, &error) ||
              !thunkyWriteInputs(backend, state, side->plan, 1, given, &error) ||
              !backend->run(state, &error);
      if (state)
        backend->destroy(state);
    }
    uint32_t x, y;
    reads = reads || thunkyWriteLogDivergence(side->plan, traces[0], side->plan, traces[1], 0,
                                                &x, &y) != THUNKY_DIVERGENCE_NONE;
    thunkyWriteLogDestroy(traces[0]);
    thunkyWriteLogDestroy(traces[1]);
  }
  return reads;
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
  if (same == 0 && readsUnwritten(&a, &given))
    same = 2;
  MlirContext ctx = thunkyFuzzContext();
  MlirOperation module = same == 0 ? thunkyFuzzImport(ctx, data, size) : (MlirOperation){NULL};
  if (!mlirOperationIsNull(module)) {
    bool raceFree = thunkyFuzzRunPipeline(ctx, module, "builtin.module(thunky-check-races)");
    if (!thunkyFuzzRunPipeline(ctx, module, "builtin.module(thunky-optimize)"))
      fail("thunky-optimize failed on an imported module", NULL, module);
    if (raceFree && !thunkyFuzzRunPipeline(ctx, module, "builtin.module(thunky-check-races)"))
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
