/*===- host_gemm.c - the host backend's reference matrix multiply --------===*
 *
 * A plain triple loop: it is the reference the CUDA backend's cuBLASLt
 * results are compared with, not a fast path. Every element is read into
 * a double (complex: a pair), products and sums are exact to double
 * precision, and the result is rounded to the output type: once, except
 * that a 16-bit float goes through f32 first, as it leaves a GPU's f32
 * accumulator. So it does not reproduce cuBLASLt's rounding, f32
 * accumulation or the TF32 inputs
 * XLA runs f32 at: a GEMM on a GPU differs from it within a tolerance
 * (docs/runtime.md). A cuBLASLt epilogue is applied to the double before
 * that rounding, as cuBLASLt applies it to its accumulator.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/runtime/HostGemm.h"

#include "thunky-c/base/ElementTypes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
  F16 = THUNKY_TYPE_F16, BF16 = THUNKY_TYPE_BF16, F32 = THUNKY_TYPE_F32,
  F64 = THUNKY_TYPE_F64, C64 = THUNKY_TYPE_C64, C128 = THUNKY_TYPE_C128,
};

/* Columns of op(rhs) decoded at a time: bounds the scratch to 64 k values
 * however wide the output. */
enum { PANEL = 64 };

typedef struct Value {
  double re, im;
} Value;

/* Element (b, i, j) of op(matrix), as an element offset; a broadcast
 * operand's batch stride is 0. */
static uint64_t at(const ThunkyMatrixLayout *l, uint64_t b, uint64_t i, uint64_t j) {
  if (l->transposed) {
    uint64_t t = i;
    i = j, j = t;
  }
  return b * l->batchStride + (l->rowMajor ? i * l->leadingStride + j : j * l->leadingStride + i);
}

static Value load(const uint8_t *base, int32_t type, uint64_t index) {
  const uint8_t *p = base + index * thunkyElementBytes(type);
  switch (type) {
  case F16:
  case BF16: {
    uint16_t bits;
    memcpy(&bits, p, 2);
    return (Value){thunkySmallFloatDecode(type, bits), 0};
  }
  case F32:
  case C64: {
    float v[2] = {0, 0};
    memcpy(v, p, type == C64 ? 8 : 4);
    return (Value){v[0], v[1]};
  }
  default: {
    double v[2] = {0, 0};
    memcpy(v, p, type == C128 ? 16 : 8);
    return (Value){v[0], v[1]};
  }
  }
}

static void store(uint8_t *base, int32_t type, uint64_t index, Value value) {
  uint8_t *p = base + index * thunkyElementBytes(type);
  switch (type) {
  case F16:
  case BF16: {
    uint16_t bits = (uint16_t)thunkySmallFloatEncode(type, (float)value.re);
    memcpy(p, &bits, 2);
    return;
  }
  case F32:
  case C64: {
    float v[2] = {(float)value.re, (float)value.im};
    memcpy(p, v, type == C64 ? 8 : 4);
    return;
  }
  default: {
    double v[2] = {value.re, value.im};
    memcpy(p, v, type == C128 ? 16 : 8);
  }
  }
}

/* row . col over k terms, summed in order. Real operands leave the
 * imaginary part 0: carried along, 0 * inf would make it NaN, and alpha's
 * imaginary part (0) would carry that NaN into the real result. */
static Value dot(const Value *row, const Value *col, uint64_t k, bool complex) {
  Value sum = {0, 0};
  if (!complex) {
    for (uint64_t p = 0; p < k; p++)
      sum.re += row[p].re * col[p].re;
    return sum;
  }
  for (uint64_t p = 0; p < k; p++) {
    sum.re += row[p].re * col[p].re - row[p].im * col[p].im;
    sum.im += row[p].re * col[p].im + row[p].im * col[p].re;
  }
  return sum;
}

static bool known(int32_t type) {
  return type == F16 || type == BF16 || type == F32 || type == F64 || type == C64 ||
         type == C128;
}

/* The index of (i, j) of op(matrix) along its minor (stride-1) dimension. */
static uint64_t minorIndex(const ThunkyMatrixLayout *l, uint64_t i, uint64_t j) {
  if (l->transposed) {
    uint64_t t = i;
    i = j, j = t;
  }
  return l->rowMajor ? j : i;
}

/* cuBLASLt's epilogue (Plan.h, ThunkyGemmActivation), in double. */
static double activate(int32_t activation, double x) {
  switch (activation) {
  case THUNKY_GEMM_ACTIVATION_RELU:
    return x > 0 ? x : 0;
  case THUNKY_GEMM_ACTIVATION_GELU: {
    const double k = 0.7978845608028654; /* sqrt(2 / pi) */
    return 0.5 * x * (1 + tanh(k * (x + 0.044715 * x * x * x)));
  }
  default:
    return x;
  }
}

static uint64_t rowsOf(const ThunkyMatrixLayout *l) { return l->transposed ? l->cols : l->rows; }
static uint64_t colsOf(const ThunkyMatrixLayout *l) { return l->transposed ? l->rows : l->cols; }

bool thunkyHostGemm(const ThunkyPlanGemm *g, uint8_t *const *memory, ThunkyError *error) {
  if (!known(g->lhsType) || !known(g->rhsType) || !known(g->cType) || !known(g->outType))
    return thunkyErrorf(error,
                        "the host gemm multiplies f16, bf16, f32, f64, c64 and c128, not "
                        "element types %d x %d -> %d",
                        g->lhsType, g->rhsType, g->outType);
  const ThunkyMatrixLayout *L = &g->lhsLayout, *R = &g->rhsLayout, *C = &g->cLayout,
                           *O = &g->outLayout;
  uint64_t m = rowsOf(L), k = colsOf(L), n = colsOf(R), batch = O->batch;
  if (rowsOf(R) != k || rowsOf(O) != m || colsOf(O) != n || rowsOf(C) != m || colsOf(C) != n ||
      (L->batch != batch && L->batch != 1) || (R->batch != batch && R->batch != 1) ||
      C->batch != batch)
    return thunkyErrorf(error,
                        "gemm shapes do not agree: %llux%llu x %llux%llu -> %llux%llu "
                        "(batches %llu, %llu -> %llu)",
                        (unsigned long long)m, (unsigned long long)k,
                        (unsigned long long)rowsOf(R), (unsigned long long)n,
                        (unsigned long long)rowsOf(O), (unsigned long long)colsOf(O),
                        (unsigned long long)L->batch, (unsigned long long)R->batch,
                        (unsigned long long)batch);
  const uint8_t *lhs = memory[g->lhs.allocation] + g->lhs.offset;
  const uint8_t *rhs = memory[g->rhs.allocation] + g->rhs.offset;
  const uint8_t *c = memory[g->c.allocation] + g->c.offset;
  uint8_t *out = memory[g->out.allocation] + g->out.offset;
  const uint8_t *bias = g->hasBias ? memory[g->bias.allocation] + g->bias.offset : NULL;
  uint8_t *aux = g->hasAux ? memory[g->aux.allocation] + g->aux.offset : NULL;
  /* As BLAS: alpha 0 reads neither input, beta 0 not C (no NaN from them). */
  bool products = g->alphaReal != 0 || g->alphaImag != 0;
  /* Each operand element is decoded once, not once per product: a panel of
   * op(rhs)'s columns and, per row, op(lhs)'s row, as doubles. */
  uint64_t panel = n < PANEL ? n : PANEL;
  bool complex = g->lhsType == C64 || g->lhsType == C128 || g->rhsType == C64 ||
                 g->rhsType == C128;
  Value *row = malloc((k ? k : 1) * sizeof *row);
  Value *cols = malloc((k ? k : 1) * (panel ? panel : 1) * sizeof *cols);
  if (!row || !cols) {
    free(row), free(cols);
    return thunkyErrorf(error, "out of memory for a %llux%llu gemm panel",
                        (unsigned long long)k, (unsigned long long)panel);
  }
  for (uint64_t b = 0; b < batch; b++)
    for (uint64_t j0 = 0; j0 < n; j0 += panel) {
      uint64_t width = n - j0 < panel ? n - j0 : panel;
      for (uint64_t j = 0; products && j < width; j++)
        for (uint64_t p = 0; p < k; p++)
          cols[j * k + p] = load(rhs, g->rhsType, at(R, b, p, j0 + j));
      for (uint64_t i = 0; i < m; i++) {
        for (uint64_t p = 0; products && p < k; p++)
          row[p] = load(lhs, g->lhsType, at(L, b, i, p));
        for (uint64_t j = 0; j < width; j++) {
          Value result = {0, 0};
          if (products) {
            Value sum = dot(row, cols + j * k, k, complex);
            result = (Value){g->alphaReal * sum.re - g->alphaImag * sum.im,
                             g->alphaReal * sum.im + g->alphaImag * sum.re};
          }
          if (g->beta != 0) {
            Value prior = load(c, g->cType, at(C, b, i, j0 + j));
            result.re += g->beta * prior.re, result.im += g->beta * prior.im;
          }
          if (bias)
            result.re += load(bias, g->outType, minorIndex(O, i, j0 + j)).re;
          if (aux)
            store(aux, g->outType, at(O, b, i, j0 + j), result);
          result.re = activate(g->activation, result.re);
          store(out, g->outType, at(O, b, i, j0 + j), result);
        }
      }
    }
  free(row), free(cols);
  return true;
}
