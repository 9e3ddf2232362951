/*===- compare_runs.c - two runs, compared bit for bit ------------------===*/
#include "thunky-c/Compare.h"

#include "thunky-c/ElementTypes.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Rank traces keep at most this many thunk runs each: a long loop is cut,
 * and the search says so. */
enum { MAX_TRACED = 1 << 24 };

bool thunkySameParameters(const ThunkyPlan *a, const ThunkyPlan *b, ThunkyError *error) {
  if (a->numParameters != b->numParameters)
    return thunkyErrorf(error, "the two take %u and %u parameters", a->numParameters,
                        b->numParameters);
  for (uint32_t i = 0; i < a->numParameters; i++)
    if (a->parameters[i].slice.size != b->parameters[i].slice.size)
      return thunkyErrorf(error, "parameter %u is %" PRIu64 " bytes in one and %" PRIu64
                                 " in the other", i, a->parameters[i].slice.size,
                          b->parameters[i].slice.size);
  return true;
}

bool thunkyWriteInputs(const ThunkyBackendOps *backend, void *state, const ThunkyPlan *plan,
                       uint32_t ranks, const ThunkyNpyArray *inputs, ThunkyError *error) {
  for (uint32_t i = 0; i < plan->numParameters; i++)
    for (uint32_t r = 0; r < ranks; r++)
      if (!backend->write(state, r, plan->parameters[i].slice, inputs[i].data, error))
        return false;
  return true;
}

static uint64_t outputBytes(const ThunkyPlan *plan) {
  uint64_t total = 0;
  for (uint32_t i = 0; i < plan->numOutputs; i++)
    total += plan->outputs[i].slice.size;
  return total;
}

/* Runs one side once; with `trace`, records what each thunk wrote, else
 * reads every output of every rank into *outputs (rank-major). */
static bool runSide(const ThunkyBackendOps *backend, const ThunkyRunSide *side,
                    const ThunkyNpyArray *inputs, ThunkyWriteTrace *trace, uint8_t **outputs,
                    ThunkyError *error) {
  ThunkyRunConfig config = side->config;
  config.writeTrace = trace;
  void *state = NULL;
  uint32_t ranks = config.ranks ? config.ranks : 1;
  uint64_t bytes = outputBytes(side->plan) * ranks;
  bool ok = backend->create(side->plan, &config, &state, error) &&
            thunkyWriteInputs(backend, state, side->plan, ranks, inputs, error) &&
            backend->run(state, error);
  if (ok && outputs) {
    uint8_t *at = *outputs = malloc(bytes ? bytes : 1);
    ok = at || thunkyErrorf(error, "out of memory");
    for (uint32_t r = 0; ok && r < ranks; r++)
      for (uint32_t i = 0; ok && i < side->plan->numOutputs; i++) {
        ok = backend->read(state, r, side->plan->outputs[i].slice, at, error);
        at += side->plan->outputs[i].slice.size;
      }
  }
  if (state)
    backend->destroy(state);
  return ok || thunkyErrorContext(error, "%s", side->name);
}

static void describeThunk(FILE *out, const ThunkyRunSide *side, uint32_t thunk) {
  char name[200];
  thunkyPlanThunkName(side->plan, thunk, name, sizeof name);
  fprintf(out, "%s of %s (%s", name, side->name, side->plan->thunks[thunk].kind);
  if (side->plan->thunks[thunk].id)
    fprintf(out, ", XLA thunk id %" PRId64, side->plan->thunks[thunk].id);
  fputc(')', out);
}

/* Both sides again with write traces, and where they part on `rank`. */
static bool reportDivergence(const ThunkyBackendOps *backend, const ThunkyRunSide *a,
                             const ThunkyRunSide *b, const ThunkyNpyArray *inputs,
                             uint32_t rank, FILE *out, ThunkyError *error) {
  uint32_t ranks = a->config.ranks ? a->config.ranks : 1;
  ThunkyWriteTrace *ta = thunkyWriteTraceCreate(ranks, MAX_TRACED);
  ThunkyWriteTrace *tb = thunkyWriteTraceCreate(ranks, MAX_TRACED);
  bool ok = (ta && tb) || thunkyErrorf(error, "out of memory");
  ok = ok && runSide(backend, a, inputs, ta, NULL, error) &&
       runSide(backend, b, inputs, tb, NULL, error);
  uint32_t x, y;
  ThunkyDivergence d = ok ? thunkyWriteTraceDivergence(a->plan, ta, b->plan, tb, rank, &x, &y)
                          : THUNKY_DIVERGENCE_NONE;
  if (d != THUNKY_DIVERGENCE_NONE && d != THUNKY_DIVERGENCE_FAILED)
    fprintf(out, "first divergent thunk on rank %u: ", rank);
  switch (d) {
  case THUNKY_DIVERGENCE_WRITES:
  case THUNKY_DIVERGENCE_ORDER:
    describeThunk(out, a, x);
    fputs(" and ", out);
    describeThunk(out, b, y);
    fputs(d == THUNKY_DIVERGENCE_WRITES ? " wrote different bytes\n"
                                        : " ran in each other's place\n", out);
    break;
  case THUNKY_DIVERGENCE_ONLY_A:
  case THUNKY_DIVERGENCE_ONLY_B: {
    bool inA = d == THUNKY_DIVERGENCE_ONLY_A;
    describeThunk(out, inA ? a : b, inA ? x : y);
    fprintf(out, " ran there and has no counterpart in %s\n", inA ? b->name : a->name);
    break;
  }
  case THUNKY_DIVERGENCE_FAILED:
    ok = thunkyErrorf(error, "out of memory matching the two traces");
    break;
  case THUNKY_DIVERGENCE_NONE:
    if (ok) {
      size_t n;
      bool truncated;
      thunkyWriteTraceGet(ta, rank, &n, &truncated);
      fprintf(out, "no thunk wrote different bytes on rank %u%s\n", rank,
              truncated ? " in the traced part (traces keep 16M thunk runs)" : "");
    }
    break;
  }
  thunkyWriteTraceDestroy(ta);
  thunkyWriteTraceDestroy(tb);
  return ok;
}

static void describeOutput(FILE *out, const ThunkyPlan *plan, uint32_t i) {
  char type[128];
  const ThunkyPlanArray *o = &plan->outputs[i];
  int64_t bytes[1] = {(int64_t)o->slice.size};
  if (o->elementType)
    thunkyNpyDescribe(o->elementType, o->rank, o->dims, type, sizeof type);
  else
    thunkyNpyDescribe(0, 1, bytes, type, sizeof type);
  fprintf(out, "output %u (%s)", i, type);
}

/* The first differing byte of two runs' outputs: 0 none, 1 found. */
static int firstDifference(const ThunkyPlan *plan, uint32_t ranks, const uint8_t *x,
                           const uint8_t *y, uint32_t *rank, uint32_t *output,
                           uint64_t *byte) {
  uint64_t at = 0;
  for (uint32_t r = 0; r < ranks; r++)
    for (uint32_t i = 0; i < plan->numOutputs; i++) {
      uint64_t size = plan->outputs[i].slice.size;
      if (memcmp(x + at, y + at, size)) {
        uint64_t k = 0;
        while (x[at + k] == y[at + k])
          k++;
        *rank = r, *output = i, *byte = k;
        return 1;
      }
      at += size;
    }
  return 0;
}

int thunkyCompareRuns(const ThunkyBackendOps *backend, const ThunkyRunSide *a,
                      const ThunkyRunSide *b, const ThunkyNpyArray *inputs, FILE *out,
                      ThunkyError *error) {
  const ThunkyPlan *pa = a->plan, *pb = b->plan;
  uint32_t ranks = a->config.ranks ? a->config.ranks : 1;
  if (!thunkySameParameters(pa, pb, error))
    return thunkyErrorContext(error, "%s and %s cannot be compared", a->name, b->name), 2;
  if (!pa->numOutputs && !pb->numOutputs)
    return thunkyErrorf(error, "%s and %s have no outputs (output_info_map): nothing to compare",
                        a->name, b->name), 2;
  uint8_t *x = NULL, *y = NULL;
  if (!runSide(backend, a, inputs, NULL, &x, error) ||
      !runSide(backend, b, inputs, NULL, &y, error)) {
    free(x), free(y);
    return 2;
  }
  int status = 0;
  uint32_t rank = 0, output = 0;
  uint64_t byte = 0;
  if (pa->numOutputs != pb->numOutputs) {
    fprintf(out, "different: %s has %u outputs, %s %u\n", a->name, pa->numOutputs, b->name,
            pb->numOutputs);
    status = 1;
  }
  for (uint32_t i = 0; !status && i < pa->numOutputs; i++)
    if (pa->outputs[i].slice.size != pb->outputs[i].slice.size) {
      fprintf(out, "different: output %u is %" PRIu64 " bytes in %s and %" PRIu64 " in %s\n", i,
              pa->outputs[i].slice.size, a->name, pb->outputs[i].slice.size, b->name);
      status = 1;
    }
  if (!status && firstDifference(pa, ranks, x, y, &rank, &output, &byte)) {
    uint64_t at = byte;
    for (uint32_t r = 0; r < rank; r++)
      at += outputBytes(pa);
    for (uint32_t i = 0; i < output; i++)
      at += pa->outputs[i].slice.size;
    uint32_t width = thunkyElementBytes(pa->outputs[output].elementType);
    fputs("different: ", out);
    describeOutput(out, pa, output);
    fprintf(out, " of rank %u differs first at byte %" PRIu64, rank, byte);
    if (width > 1)
      fprintf(out, " (element %" PRIu64 ")", byte / width);
    fprintf(out, ": 0x%02x in %s, 0x%02x in %s\n", x[at], a->name, y[at], b->name);
    status = 1;
  }
  free(x), free(y);
  if (status == 0) {
    fprintf(out, "same: %u output(s) on %u rank(s), bit for bit\n", pa->numOutputs, ranks);
    return 0;
  }
  return reportDivergence(backend, a, b, inputs, rank, out, error) ? 1 : 2;
}
