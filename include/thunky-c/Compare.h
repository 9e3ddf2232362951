/*===- thunky-c/Compare.h - two runs, compared bit for bit ---------------===*
 *
 * What thunky-run --compare and --check-async do, and the equivalence fuzz
 * target: two runs with the same inputs, every output of every rank
 * compared bit for bit; on a difference, both run again with write traces
 * to name the first thunk after which they part (thunky-c/Check.h).
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_COMPARE_H
#define THUNKY_C_COMPARE_H

#include "thunky-c/Npy.h"
#include "thunky-c/Runtime.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One side of a comparison: what runs and how. */
typedef struct ThunkyRunSide {
  const char *name; /* for messages: a path, or "the async-at-done schedule" */
  const ThunkyPlan *plan;
  ThunkyRunConfig config;
} ThunkyRunSide;

/* Whether the two plans take the same parameters (count and bytes); false
 * with a message when not. */
bool thunkySameParameters(const ThunkyPlan *a, const ThunkyPlan *b, ThunkyError *error);

/* Writes inputs[i] (borrowed) into parameter i of every rank of a state
 * `backend` created for `plan`. */
bool thunkyWriteInputs(const ThunkyBackendOps *backend, void *state, const ThunkyPlan *plan,
                       uint32_t ranks, const ThunkyNpyArray *inputs, ThunkyError *error);

/* Seeded random bytes for parameter `index` of a plan, the same whatever
 * else runs (thunky-run --seed): floats a reference GEMM keeps finite
 * (f32 and f64 in [-1, 1)), preds 0 or 1. The caller owns *out. */
bool thunkyRandomInput(const ThunkyPlanArray *parameter, uint64_t seed, uint32_t index,
                       ThunkyNpyArray *out, ThunkyError *error);

/* Runs both sides on `backend` with `inputs` (one per parameter, borrowed)
 * and reports to `out`. Returns 0 when every output of every rank is the
 * same, 1 when one differs (named, with the first divergent thunk), 2 on an
 * error (in *error), including two plans without outputs. */
int thunkyCompareRuns(const ThunkyBackendOps *backend, const ThunkyRunSide *a,
                      const ThunkyRunSide *b, const ThunkyNpyArray *inputs, FILE *out,
                      ThunkyError *error);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_COMPARE_H */
