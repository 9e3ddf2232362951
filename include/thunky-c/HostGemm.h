/*===- host_gemm.h - the host backend's reference matrix multiply --------===*/
#ifndef THUNKY_RUNTIME_HOST_GEMM_H
#define THUNKY_RUNTIME_HOST_GEMM_H

#include "thunky-c/Plan.h"

/* Runs `g` on host memory (allocation bases `memory`): f32 and f64, in
 * double precision accumulation. */
bool thunkyHostGemm(const ThunkyPlanGemm *g, uint8_t *const *memory, ThunkyError *error);
/* Whether thunkyHostGemm has a reference for g's element type. */
bool thunkyHostGemmSupports(const ThunkyPlanGemm *g);

#endif /* THUNKY_RUNTIME_HOST_GEMM_H */
