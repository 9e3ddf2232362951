/*===- host_gemm.c - the host backend's reference matrix multiply --------===*
 *
 * A plain triple loop: it is the reference the CUDA backend's cuBLASLt
 * results are compared with, not a fast path.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/HostGemm.h"

#include "thunky-c/Reduce.h"

#include <string.h>

enum { F32 = THUNKY_TYPE_F32, F64 = THUNKY_TYPE_F64 };

/* Element (b, i, j) of op(matrix), as an element offset. */
static uint64_t at(const ThunkyMatrixLayout *l, uint64_t b, uint64_t i, uint64_t j) {
  if (l->transposed) {
    uint64_t t = i;
    i = j, j = t;
  }
  return b * l->batchStride + (l->rowMajor ? i * l->leadingStride + j : j * l->leadingStride + i);
}

static double load(const uint8_t *p, int32_t type, uint64_t index) {
  if (type == F32) {
    float v;
    memcpy(&v, p + index * 4, 4);
    return v;
  }
  double v;
  memcpy(&v, p + index * 8, 8);
  return v;
}

static void store(uint8_t *p, int32_t type, uint64_t index, double value) {
  if (type == F32) {
    float v = (float)value;
    memcpy(p + index * 4, &v, 4);
  } else {
    memcpy(p + index * 8, &value, 8);
  }
}

bool thunkyHostGemmSupports(const ThunkyPlanGemm *g) {
  return g->elementType == F32 || g->elementType == F64;
}

bool thunkyHostGemm(const ThunkyPlanGemm *g, uint8_t *const *memory, ThunkyError *error) {
  if (!thunkyHostGemmSupports(g))
    return thunkyErrorf(error, "the host gemm supports f32 and f64, not element type %d",
                        g->elementType);
  const ThunkyMatrixLayout *L = &g->lhsLayout, *R = &g->rhsLayout, *O = &g->outLayout;
  uint64_t m = L->transposed ? L->cols : L->rows, k = L->transposed ? L->rows : L->cols;
  uint64_t rk = R->transposed ? R->cols : R->rows, n = R->transposed ? R->rows : R->cols;
  uint64_t om = O->transposed ? O->cols : O->rows, on = O->transposed ? O->rows : O->cols;
  if (rk != k || om != m || on != n || L->batch != O->batch || R->batch != O->batch)
    return thunkyErrorf(error,
                        "gemm shapes do not agree: %llux%llu x %llux%llu -> %llux%llu",
                        (unsigned long long)m, (unsigned long long)k, (unsigned long long)rk,
                        (unsigned long long)n, (unsigned long long)om, (unsigned long long)on);
  const uint8_t *lhs = memory[g->lhs.allocation] + g->lhs.offset;
  const uint8_t *rhs = memory[g->rhs.allocation] + g->rhs.offset;
  uint8_t *out = memory[g->out.allocation] + g->out.offset;
  for (uint64_t b = 0; b < O->batch; b++)
    for (uint64_t i = 0; i < m; i++)
      for (uint64_t j = 0; j < n; j++) {
        double sum = 0;
        for (uint64_t p = 0; p < k; p++)
          sum += load(lhs, g->elementType, at(L, b, i, p)) *
                 load(rhs, g->elementType, at(R, b, p, j));
        uint64_t o = at(O, b, i, j);
        double prior = g->beta != 0 ? g->beta * load(out, g->elementType, o) : 0;
        store(out, g->elementType, o, g->alphaReal * sum + prior);
      }
  return true;
}
