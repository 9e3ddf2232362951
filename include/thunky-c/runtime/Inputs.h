/*===- thunky-c/runtime/Inputs.h - what each rank's parameters hold in a run ----===*
 *
 * The inputs of a run: .npy arrays every rank shares, or seeded random
 * bytes each rank draws its own of (thunky-run --seed). A plain run, a
 * comparison (thunky-c/runtime/Compare.h) and a session all fill parameters so.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_INPUTS_H
#define THUNKY_C_INPUTS_H

#include "thunky-c/Export.h"

#include "thunky-c/runtime/Npy.h"
#include "thunky-c/runtime/Runtime.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What each rank's parameters hold in a run. `arrays` (one per parameter,
 * borrowed) is rank 0's. Given arrays (.npy files) are every rank's, so a
 * result holds for those inputs only. Seeded ones are thunkyRandomInput's
 * of `seed` on rank 0 and of a seed drawn from it and the rank on every
 * other rank, as a real SPMD step gives each device its own shard: a
 * collective that pairs other ranks then moves other bytes. */
typedef struct ThunkyInputs {
  const ThunkyNpyArray *arrays;
  bool seeded;
  uint64_t seed;
} ThunkyInputs;

/* The seed of rank `rank`'s random inputs in a seeded run of `seed`. */
THUNKY_EXPORT uint64_t thunkyRankSeed(uint64_t seed, uint32_t rank);

/* Writes the inputs (borrowed; NULL: none, for a backend that ignores
 * them) into the parameters of every rank of a state `backend` created
 * for `plan`. */
THUNKY_EXPORT bool thunkyWriteInputs(const ThunkyBackendOps *backend, void *state,
                                     const ThunkyPlan *plan, uint32_t ranks,
                                     const ThunkyInputs *inputs, ThunkyError *error);

/* Seeded random bytes for parameter `index` of a plan, the same whatever
 * else runs (thunky-run --seed): floats a reference GEMM keeps finite
 * (f32 and f64 in [-1, 1)), preds 0 or 1. The caller owns *out. */
THUNKY_EXPORT bool thunkyRandomInput(const ThunkyPlanArray *parameter, uint64_t seed,
                                     uint32_t index, ThunkyNpyArray *out, ThunkyError *error);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_INPUTS_H */
