/*===- thunky-c/runtime/HostGemm.h - the reference matrix multiply ----------------===*
 *
 * The host backend's gemm, and the simulated cuBLASLt's (test/CudaSim), so
 * that the CUDA backend over the simulation computes what the host does.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_HOST_GEMM_H
#define THUNKY_C_HOST_GEMM_H

#include "thunky-c/Export.h"

#include "thunky-c/runtime/Plan.h"

/* Runs `g` on host memory (allocation bases `memory`): out = alpha *
 * op(lhs) op(rhs) + beta * c, each operand of its own type (f16, bf16, f32,
 * f64, c64, c128), a batch-1 input broadcast. It computes in full (double)
 * precision, whatever g->compute says, and rounds once to the output
 * type: a GPU's f32 GEMM, in TF32 at XLA's default, differs from it within
 * a tolerance, not bit for bit. */
THUNKY_EXPORT bool thunkyHostGemm(const ThunkyPlanGemm *g, uint8_t *const *memory,
                                  ThunkyError *error);

#endif /* THUNKY_C_HOST_GEMM_H */
