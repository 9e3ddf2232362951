/*===- thunky-c/runtime/Compare.h - two runs, compared bit for bit ---------------===*
 *
 * What thunky-run --compare and --check-async do, and the equivalence fuzz
 * target: two runs with the same inputs, every output of every rank
 * compared bit for bit; on a difference, both run again with write logs
 * to name the first thunk after which they part (thunky-c/runtime/Check.h).
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_COMPARE_H
#define THUNKY_C_COMPARE_H

#include "thunky-c/Export.h"

#include "thunky-c/runtime/Inputs.h"
#include "thunky-c/runtime/Npy.h"
#include "thunky-c/runtime/Runtime.h"

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
THUNKY_EXPORT bool thunkySameParameters(const ThunkyPlan *a, const ThunkyPlan *b,
                                        ThunkyError *error);

/* Runs both sides on `backend` with `inputs` (borrowed) and reports to
 * `out`. Returns 0 when every output of every rank is the
 * same, 1 when one differs (named, with the first divergent thunk), 2 on an
 * error (in *error), including two plans without outputs. */
THUNKY_EXPORT int thunkyCompareRuns(const ThunkyBackendOps *backend, const ThunkyRunSide *a,
                                    const ThunkyRunSide *b, const ThunkyInputs *inputs, FILE *out,
                                    ThunkyError *error);

/* --check-async beyond its two schedules: runs `side` (regions at their
 * start) against itself with each async region run late, just after each
 * op beside it (up to its done) that touches its bytes (one of the two
 * writes them), every other region at its start, and compares the
 * outputs, as thunkyCompareRuns does; the first schedule that differs is
 * reported to `out`, named. These are all the places a region can run
 * relative to what it may race with. At most `most` schedules run:
 * *explored says how many did, *total how many were found, and *complete
 * whether the search saw every op (it collects and pairs a bounded number
 * of byte ranges, 2^24 in all). Returns 0 when all those run agree, 1 when one
 * differs, 2 on an error. */
THUNKY_EXPORT int thunkyCompareLateRegions(const ThunkyBackendOps *backend,
                                           const ThunkyRunSide *side, const ThunkyInputs *inputs,
                                           FILE *out, uint32_t most, uint32_t *explored,
                                           uint32_t *total, bool *complete, ThunkyError *error);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_COMPARE_H */
