/*===- thunky-c/runtime/HostGemm.h - the reference matrix multiply ----------------===*
 *
 * The host backend's gemm: the reference a GPU's results are held against.
 * The simulated cuBLASLt (test/CudaSim) multiplies with its own, written
 * apart, so that a misreading of XLA's matrix layouts shows.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_HOST_GEMM_H
#define THUNKY_C_HOST_GEMM_H

#include "thunky-c/Export.h"

#include "thunky-c/runtime/Plan.h"

/* Runs `g` on host memory (allocation bases `memory`): out = alpha *
 * op(lhs) op(rhs) + beta * c, each operand of its own type (f16, bf16, f32,
 * f64, c64, c128), a batch-1 input broadcast, then g's epilogue (its bias,
 * aux and activation: ThunkyPlanGemm). It computes in full (double)
 * precision, whatever g->compute says, and rounds once to the output type
 * (a 16-bit float through f32, as from a GPU's f32 accumulator): a GPU's
 * f32 GEMM, in TF32 at XLA's default, differs from it within a tolerance,
 * not bit for bit. */
THUNKY_EXPORT bool thunkyHostGemm(const ThunkyPlanGemm *g, uint8_t *const *memory,
                                  ThunkyError *error);

#endif /* THUNKY_C_HOST_GEMM_H */
