/*===- thunky-c/HostGemm.h - the reference matrix multiply ----------------===*
 *
 * The host backend's gemm, and the simulated cuBLASLt's (test/CudaSim), so
 * that the CUDA backend over the simulation computes what the host does.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_HOST_GEMM_H
#define THUNKY_C_HOST_GEMM_H

#include "thunky-c/Plan.h"

/* Runs `g` on host memory (allocation bases `memory`): f32 and f64, in
 * double precision accumulation. */
bool thunkyHostGemm(const ThunkyPlanGemm *g, uint8_t *const *memory, ThunkyError *error);
/* Whether thunkyHostGemm has a reference for g's element type. */
bool thunkyHostGemmSupports(const ThunkyPlanGemm *g);

#endif /* THUNKY_C_HOST_GEMM_H */
