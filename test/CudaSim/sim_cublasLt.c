/*===- sim_cublaslt.c - a SIMULATED cuBLASLt (libcublasLt.so.13), for tests ===*
 *
 * Matmuls with a reference gemm of its own, written apart from the host
 * backend's and reading cuBLASLt's descriptors as cublasLt.h defines them
 * (column-major, a leading dimension and a batch stride per matrix, op()
 * from the descriptor), so that a CUDA backend that hands cuBLASLt other
 * operands than the host backend multiplies shows as a difference; it
 * computes as the host backend does, in full (double) precision, summing
 * in order, each result rounded to its type as the host rounds it, so that
 * the two agree bit for bit (sim.h says what the simulation is). A, B, C
 * and D each have their own type, C may be apart from D, and the compute
 * and scale types must be a pair cublasLt.h's type table lists for those
 * types. The epilogues XLA's CUDA backend uses run as cublasLt.h defines
 * them: a bias per row of D, broadcast over columns and batches; the aux,
 * the epilogue's input, at its own leading dimension and batch stride;
 * ReLU, and GELU in its tanh form.
 * THUNKY_CUDA_SIM_GEMM_LOG=1 prints each matmul's types to stderr.
 *
 *===--------------------------------------------------------------------===*/
#include "sim.h"

#include "thunky-c/base/ElementTypes.h"

#include <cublasLt.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIM_EXPORT __attribute__((visibility("default")))

struct cublasLtContext {
  int unused;
};

/* What the opaque descriptors hold here. */
typedef struct Layout {
  cudaDataType type;
  uint64_t rows, cols;
  int64_t ld, batchStride;
  int32_t batch;
} Layout;

typedef struct Desc {
  cublasComputeType_t compute;
  cudaDataType scale;
  int32_t transA, transB;
  uint32_t epilogue; /* cublasLtEpilogue_t */
  const void *bias;  /* of D's type, D's rows long, the same for every batch */
  void *aux;         /* the epilogue's input, of D's type */
  int64_t auxLd, auxBatchStride;
} Desc;

_Static_assert(sizeof(Layout) <= sizeof(cublasLtMatrixLayoutOpaque_t), "layout fits");
_Static_assert(sizeof(Desc) <= sizeof(cublasLtMatmulDescOpaque_t), "desc fits");

static Layout *layoutOf(cublasLtMatrixLayout_t l) { return (Layout *)(void *)l; }

/* The virtual clock's costs (sim.h), in ns: a matmul's of the host's time,
 * and of the stream's, MATMUL_NS and a ns per PRODUCTS_PER_NS of m*n*k. */
enum { MATMUL_HOST_NS = 2500, MATMUL_NS = 3000, PRODUCTS_PER_NS = 100000 };
static Desc *descOf(cublasLtMatmulDesc_t d) { return (Desc *)(void *)d; }

SIM_EXPORT cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle) {
  if (thunkySimInjected("cublasLtCreate"))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  *handle = calloc(1, sizeof **handle);
  return *handle ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}

SIM_EXPORT cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
  if (!handle)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  free(handle);
  return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT const char *cublasLtGetStatusString(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
  default: return "CUBLAS_STATUS_UNKNOWN";
  }
}

SIM_EXPORT cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc,
                                                   cublasComputeType_t compute,
                                                   cudaDataType_t scale) {
  *desc = calloc(1, sizeof **desc);
  if (!*desc)
    return CUBLAS_STATUS_ALLOC_FAILED;
  *descOf(*desc) = (Desc){.compute = compute,
                          .scale = scale,
                          .transA = CUBLAS_OP_N,
                          .transB = CUBLAS_OP_N,
                          .epilogue = CUBLASLT_EPILOGUE_DEFAULT};
  return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  free(desc);
  return CUBLAS_STATUS_SUCCESS;
}

/* The epilogues XLA's CUDA backend hands cuBLASLt (cublasLt.h): a bias,
 * then ReLU or GELU, GELU's input kept in aux or not. */
static bool epilogueKnown(uint32_t e) {
  switch (e) {
  case CUBLASLT_EPILOGUE_DEFAULT:
  case CUBLASLT_EPILOGUE_RELU:
  case CUBLASLT_EPILOGUE_BIAS:
  case CUBLASLT_EPILOGUE_RELU_BIAS:
  case CUBLASLT_EPILOGUE_GELU:
  case CUBLASLT_EPILOGUE_GELU_AUX:
  case CUBLASLT_EPILOGUE_GELU_BIAS:
  case CUBLASLT_EPILOGUE_GELU_AUX_BIAS:
    return true;
  default:
    return false;
  }
}

static bool addsBias(uint32_t e) {
  return e == CUBLASLT_EPILOGUE_BIAS || e == CUBLASLT_EPILOGUE_RELU_BIAS ||
         e == CUBLASLT_EPILOGUE_GELU_BIAS || e == CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
}

static bool keepsAux(uint32_t e) {
  return e == CUBLASLT_EPILOGUE_GELU_AUX || e == CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
}

SIM_EXPORT cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                                         cublasLtMatmulDescAttributes_t attr,
                                                         const void *value, size_t size) {
  if (!desc)
    return CUBLAS_STATUS_INVALID_VALUE;
  Desc *d = descOf(desc);
  switch (attr) {
  case CUBLASLT_MATMUL_DESC_TRANSA:
  case CUBLASLT_MATMUL_DESC_TRANSB: {
    int32_t op;
    if (size != sizeof op)
      return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(&op, value, sizeof op);
    if (op != CUBLAS_OP_N && op != CUBLAS_OP_T)
      return CUBLAS_STATUS_NOT_SUPPORTED;
    *(attr == CUBLASLT_MATMUL_DESC_TRANSA ? &d->transA : &d->transB) = op;
    return CUBLAS_STATUS_SUCCESS;
  }
  case CUBLASLT_MATMUL_DESC_EPILOGUE:
    if (size != sizeof d->epilogue)
      return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(&d->epilogue, value, size);
    return epilogueKnown(d->epilogue) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_SUPPORTED;
  case CUBLASLT_MATMUL_DESC_BIAS_POINTER:
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER:
    if (size != sizeof(void *))
      return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(attr == CUBLASLT_MATMUL_DESC_BIAS_POINTER ? (void *)&d->bias : (void *)&d->aux, value,
           size);
    return CUBLAS_STATUS_SUCCESS;
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD:
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE:
    if (size != sizeof(int64_t))
      return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(attr == CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD ? &d->auxLd : &d->auxBatchStride, value,
           size);
    return CUBLAS_STATUS_SUCCESS;
  default:
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
}

SIM_EXPORT cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout,
                                                     cudaDataType type, uint64_t rows,
                                                     uint64_t cols, int64_t ld) {
  if (ld < (int64_t)rows)
    return CUBLAS_STATUS_INVALID_VALUE;
  *layout = calloc(1, sizeof **layout);
  if (!*layout)
    return CUBLAS_STATUS_ALLOC_FAILED;
  *layoutOf(*layout) = (Layout){type, rows, cols, ld, 0, 1};
  return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  free(layout);
  return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t layout,
                                                           cublasLtMatrixLayoutAttribute_t attr,
                                                           const void *value, size_t size) {
  if (!layout)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (attr == CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT && size == sizeof(int32_t))
    memcpy(&layoutOf(layout)->batch, value, size);
  else if (attr == CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET && size == sizeof(int64_t))
    memcpy(&layoutOf(layout)->batchStride, value, size);
  else
    return CUBLAS_STATUS_INVALID_VALUE;
  return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref) {
  *pref = calloc(1, sizeof **pref);
  return *pref ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}

SIM_EXPORT cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
  free(pref);
  return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasLtMatmulPreferenceSetAttribute(
    cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr,
    const void *value, size_t size) {
  (void)value;
  return pref && attr == CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES && size == sizeof(uint64_t)
             ? CUBLAS_STATUS_SUCCESS
             : CUBLAS_STATUS_INVALID_VALUE;
}

static int32_t elementType(cudaDataType type) {
  switch (type) {
  case CUDA_R_16F: return THUNKY_TYPE_F16;
  case CUDA_R_16BF: return THUNKY_TYPE_BF16;
  case CUDA_R_32F: return THUNKY_TYPE_F32;
  case CUDA_R_64F: return THUNKY_TYPE_F64;
  case CUDA_C_32F: return THUNKY_TYPE_C64;
  case CUDA_C_64F: return THUNKY_TYPE_C128;
  default: return 0;
  }
}

static const char *typeName(cudaDataType type) {
  switch (type) {
  case CUDA_R_16F: return "CUDA_R_16F";
  case CUDA_R_16BF: return "CUDA_R_16BF";
  case CUDA_R_32F: return "CUDA_R_32F";
  case CUDA_R_64F: return "CUDA_R_64F";
  case CUDA_C_32F: return "CUDA_C_32F";
  case CUDA_C_64F: return "CUDA_C_64F";
  default: return "another cudaDataType";
  }
}

static const char *computeName(cublasComputeType_t compute) {
  switch (compute) {
  case CUBLAS_COMPUTE_16F: return "CUBLAS_COMPUTE_16F";
  case CUBLAS_COMPUTE_32F: return "CUBLAS_COMPUTE_32F";
  case CUBLAS_COMPUTE_32F_FAST_16F: return "CUBLAS_COMPUTE_32F_FAST_16F";
  case CUBLAS_COMPUTE_32F_FAST_16BF: return "CUBLAS_COMPUTE_32F_FAST_16BF";
  case CUBLAS_COMPUTE_32F_FAST_TF32: return "CUBLAS_COMPUTE_32F_FAST_TF32";
  case CUBLAS_COMPUTE_64F: return "CUBLAS_COMPUTE_64F";
  default: return "another cublasComputeType_t";
  }
}

/* cublasLt.h's cublasLtMatmul type table, the rows without int8 or fp8:
 * A and B of one type, C and D of one type, and the compute and scale
 * types that go with them. */
static bool typesListed(const Desc *d, cudaDataType a, cudaDataType b, cudaDataType c,
                        cudaDataType out) {
  bool complex = a == CUDA_C_32F || a == CUDA_C_64F;
  if (a != b || c != out || (complex && c != a))
    return false;
  switch (d->compute) {
  case CUBLAS_COMPUTE_16F:
    return d->scale == CUDA_R_16F && a == CUDA_R_16F && c == CUDA_R_16F;
  case CUBLAS_COMPUTE_32F:
    if (complex)
      return a == CUDA_C_32F && d->scale == CUDA_C_32F;
    return d->scale == CUDA_R_32F &&
           (a == CUDA_R_32F ? c == CUDA_R_32F
                            : (a == CUDA_R_16F || a == CUDA_R_16BF) && (c == a || c == CUDA_R_32F));
  case CUBLAS_COMPUTE_32F_FAST_16F:
  case CUBLAS_COMPUTE_32F_FAST_16BF:
  case CUBLAS_COMPUTE_32F_FAST_TF32:
    return (a == CUDA_R_32F || a == CUDA_C_32F) && d->scale == a && c == a;
  case CUBLAS_COMPUTE_64F:
    return (a == CUDA_R_64F || a == CUDA_C_64F) && d->scale == a && c == a;
  default:
    return false;
  }
}

/* Whether D = alpha op(A) op(B) + beta C is one cuBLASLt multiplies. */
static bool describe(const Desc *d, const Layout *a, const Layout *b, const Layout *c,
                     const Layout *out) {
  if (!typesListed(d, a->type, b->type, c->type, out->type))
    return false;
  /* Epilogues are real. */
  if (d->epilogue != CUBLASLT_EPILOGUE_DEFAULT &&
      (out->type == CUDA_C_32F || out->type == CUDA_C_64F))
    return false;
  uint64_t m = d->transA == CUBLAS_OP_T ? a->cols : a->rows;
  uint64_t k = d->transA == CUBLAS_OP_T ? a->rows : a->cols;
  uint64_t kb = d->transB == CUBLAS_OP_T ? b->cols : b->rows;
  uint64_t n = d->transB == CUBLAS_OP_T ? b->rows : b->cols;
  /* cuBLASLt takes one batch count for all four (a broadcast input has
   * stride 0), and C's layout as D's when they are one buffer. */
  return k == kb && out->rows == m && out->cols == n && c->rows == m && c->cols == n &&
         a->batch == out->batch && b->batch == out->batch && c->batch == out->batch;
}

/* How many algorithms the heuristic offers: more than one, so that an
 * algorithm_idx past the first is tested, and few, so that one past them
 * is too. */
enum { ALGORITHMS = 3 };

SIM_EXPORT cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
    cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
    cublasLtMatmulPreference_t pref, int requested, cublasLtMatmulHeuristicResult_t results[],
    int *found) {
  if (!handle || !desc || !pref || requested < 1)
    return CUBLAS_STATUS_INVALID_VALUE;
  *found = 0;
  if (!describe(descOf(desc), layoutOf(a), layoutOf(b), layoutOf(c), layoutOf(d)))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  for (int i = 0; i < requested && i < ALGORITHMS; i++) {
    memset(&results[i], 0, sizeof results[i]);
    results[i].algo.data[0] = (uint64_t)i;
    results[i].state = CUBLAS_STATUS_SUCCESS;
    *found = i + 1;
  }
  return CUBLAS_STATUS_SUCCESS;
}

typedef struct Matmul {
  Layout layout[4]; /* of A, B, C and D */
  bool transA, transB;
  uint32_t epilogue;
  const uint8_t *bias;
  Layout auxLayout; /* D's type and shape at the aux's own ld and batch stride */
  uint8_t *aux;
  double alpha[2], beta[2]; /* real and imaginary parts */
  uint8_t *memory[4];
  size_t bytes[4]; /* of A, B, C and D, to check they lie in device memory */
} Matmul;

typedef struct Value {
  double re, im;
} Value;

static bool isComplex(cudaDataType type) { return type == CUDA_C_32F || type == CUDA_C_64F; }

/* Element (i, j) of batch b: column-major, ld apart, batchStride between
 * batches (0 for an operand broadcast over them). */
static uint64_t offsetOf(const Layout *l, uint64_t b, uint64_t i, uint64_t j) {
  return b * (uint64_t)l->batchStride + j * (uint64_t)l->ld + i;
}

static Value element(const Layout *l, const uint8_t *base, uint64_t index) {
  int32_t type = elementType(l->type);
  const uint8_t *p = base + index * thunkyElementBytes(type);
  if (l->type == CUDA_R_16F || l->type == CUDA_R_16BF) {
    uint16_t bits;
    memcpy(&bits, p, 2);
    return (Value){thunkySmallFloatDecode(type, bits), 0};
  }
  if (l->type == CUDA_R_32F || l->type == CUDA_C_32F) {
    float v[2] = {0, 0};
    memcpy(v, p, isComplex(l->type) ? 8 : 4);
    return (Value){v[0], v[1]};
  }
  double v[2] = {0, 0};
  memcpy(v, p, isComplex(l->type) ? 16 : 8);
  return (Value){v[0], v[1]};
}

/* Rounded as the host backend rounds: 16-bit floats through float. */
static void put(const Layout *l, uint8_t *base, uint64_t index, Value v) {
  int32_t type = elementType(l->type);
  uint8_t *p = base + index * thunkyElementBytes(type);
  if (l->type == CUDA_R_16F || l->type == CUDA_R_16BF) {
    uint16_t bits = (uint16_t)thunkySmallFloatEncode(type, (float)v.re);
    memcpy(p, &bits, 2);
  } else if (l->type == CUDA_R_32F || l->type == CUDA_C_32F) {
    float f[2] = {(float)v.re, (float)v.im};
    memcpy(p, f, isComplex(l->type) ? 8 : 4);
  } else {
    double d[2] = {v.re, v.im};
    memcpy(p, d, isComplex(l->type) ? 16 : 8);
  }
}

/* cuBLASLt's GELU, its tanh form, in double as the rest. */
static double gelu(double x) {
  return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

/* The epilogue of element (i, j) of batch b: bias[i] (D's row), then the
 * sum kept in aux, then the activation. */
static Value epilogue(const Matmul *m, uint64_t b, uint64_t i, uint64_t j, Value v) {
  uint32_t e = m->epilogue;
  if (addsBias(e))
    v.re += element(&m->layout[3], m->bias, i).re;
  if (keepsAux(e))
    put(&m->auxLayout, m->aux, offsetOf(&m->auxLayout, b, i, j), v);
  if (e == CUBLASLT_EPILOGUE_RELU || e == CUBLASLT_EPILOGUE_RELU_BIAS)
    v.re = v.re > 0 ? v.re : 0;
  else if (e != CUBLASLT_EPILOGUE_DEFAULT && e != CUBLASLT_EPILOGUE_BIAS)
    v.re = gelu(v.re);
  return v;
}

/* D = alpha op(A) op(B) + beta C, element by element, each product summed
 * in order, then the epilogue; as BLAS, alpha 0 reads neither input and
 * beta 0 not C. */
static void multiply(const Matmul *m) {
  const Layout *A = &m->layout[0], *B = &m->layout[1], *C = &m->layout[2], *D = &m->layout[3];
  uint64_t rows = D->rows, cols = D->cols, inner = m->transA ? A->rows : A->cols;
  uint64_t batches = (uint64_t)(D->batch > 1 ? D->batch : 1);
  bool complex = isComplex(A->type) || isComplex(B->type);
  bool products = m->alpha[0] != 0 || m->alpha[1] != 0;
  for (uint64_t b = 0; b < batches; b++)
    for (uint64_t j = 0; j < cols; j++)
      for (uint64_t i = 0; i < rows; i++) {
        Value sum = {0, 0}, out = {0, 0};
        for (uint64_t p = 0; products && p < inner; p++) {
          Value x =
              element(A, m->memory[0], m->transA ? offsetOf(A, b, p, i) : offsetOf(A, b, i, p));
          Value y =
              element(B, m->memory[1], m->transB ? offsetOf(B, b, j, p) : offsetOf(B, b, p, j));
          if (complex) {
            sum.re += x.re * y.re - x.im * y.im;
            sum.im += x.re * y.im + x.im * y.re;
          } else {
            sum.re += x.re * y.re;
          }
        }
        if (products)
          out = (Value){m->alpha[0] * sum.re - m->alpha[1] * sum.im,
                        m->alpha[0] * sum.im + m->alpha[1] * sum.re};
        if (m->beta[0] != 0) {
          Value prior = element(C, m->memory[2], offsetOf(C, b, i, j));
          out.re += m->beta[0] * prior.re, out.im += m->beta[0] * prior.im;
        }
        put(D, m->memory[3], offsetOf(D, b, i, j), epilogue(m, b, i, j, out));
      }
}

static size_t spanBytes(const Layout *l) {
  int32_t type = elementType(l->type);
  size_t batches = (size_t)(l->batch > 1 ? l->batch : 1);
  return ((batches - 1) * (size_t)l->batchStride + (size_t)l->ld * (l->cols - 1) + l->rows) *
         (type ? thunkyElementBytes(type) : 1);
}

static bool runMatmul(void *data, char *why, size_t whySize) {
  const Matmul *m = data;
  for (int i = 0; i < 4; i++)
    if ((i != 2 || m->beta[0] != 0) && !thunkySimValid(m->memory[i], m->bytes[i])) {
      snprintf(why, whySize, "cublasLt-sim: matmul operand %c ([%p, +%zu)) is outside every "
               "allocation", "ABCD"[i], (void *)m->memory[i], m->bytes[i]);
      return false;
    }
  const Layout *D = &m->layout[3];
  size_t biasBytes = (size_t)D->rows * thunkyElementBytes(elementType(D->type));
  if (addsBias(m->epilogue) && !thunkySimValid(m->bias, biasBytes)) {
    snprintf(why, whySize, "cublasLt-sim: matmul bias ([%p, +%zu)) is outside every allocation",
             (const void *)m->bias, biasBytes);
    return false;
  }
  if (keepsAux(m->epilogue) && !thunkySimValid(m->aux, spanBytes(&m->auxLayout))) {
    snprintf(why, whySize, "cublasLt-sim: matmul aux ([%p, +%zu)) is outside every allocation",
             (void *)m->aux, spanBytes(&m->auxLayout));
    return false;
  }
  multiply(m);
  return true;
}

/* In place, C's layout must be D's (cublasLt.h). */
static bool sameLayout(const Layout *c, const Layout *d) {
  return c->type == d->type && c->rows == d->rows && c->cols == d->cols && c->ld == d->ld &&
         c->batch == d->batch && c->batchStride == d->batchStride;
}

/* alpha or beta: a host value in the scale type, read when the call is
 * made. */
static void scalar(cudaDataType scale, const void *p, double *re, double *im) {
  *im = 0;
  if (scale == CUDA_R_16F) {
    uint16_t h;
    memcpy(&h, p, 2);
    *re = thunkySmallFloatDecode(THUNKY_TYPE_F16, h);
  } else if (scale == CUDA_R_32F || scale == CUDA_C_32F) {
    float f[2] = {0, 0};
    memcpy(f, p, scale == CUDA_C_32F ? 8 : 4);
    *re = f[0], *im = f[1];
  } else {
    double v[2] = {0, 0};
    memcpy(v, p, scale == CUDA_C_64F ? 16 : 8);
    *re = v[0], *im = v[1];
  }
}

SIM_EXPORT cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                         const void *alpha, const void *A,
                                         cublasLtMatrixLayout_t a, const void *B,
                                         cublasLtMatrixLayout_t b, const void *beta,
                                         const void *C, cublasLtMatrixLayout_t c, void *D,
                                         cublasLtMatrixLayout_t d,
                                         const cublasLtMatmulAlgo_t *algo, void *workspace,
                                         size_t workspaceBytes, cudaStream_t stream) {
  (void)workspace, (void)workspaceBytes;
  if (!handle || !desc || !alpha || !beta || !algo || algo->data[0] >= ALGORITHMS ||
      (C == D && !sameLayout(layoutOf(c), layoutOf(d))))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (thunkySimInjected("cublasLtMatmul"))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  const Desc *op = descOf(desc);
  Matmul *m = malloc(sizeof *m);
  if (!m)
    return CUBLAS_STATUS_ALLOC_FAILED;
  if (!describe(op, layoutOf(a), layoutOf(b), layoutOf(c), layoutOf(d))) {
    free(m);
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  /* A complex beta is taken by its real part, as XLA's GemmConfig has no
   * other. */
  scalar(op->scale, alpha, &m->alpha[0], &m->alpha[1]);
  scalar(op->scale, beta, &m->beta[0], &m->beta[1]);
  m->transA = op->transA == CUBLAS_OP_T, m->transB = op->transB == CUBLAS_OP_T;
  /* An epilogue reads its pointers and the aux's layout when the call is
   * made; an aux narrower than D is no aux. */
  m->epilogue = op->epilogue, m->bias = op->bias, m->aux = op->aux;
  m->auxLayout = *layoutOf(d);
  m->auxLayout.ld = op->auxLd, m->auxLayout.batchStride = op->auxBatchStride;
  if ((addsBias(op->epilogue) && !op->bias) ||
      (keepsAux(op->epilogue) && (!op->aux || op->auxLd < (int64_t)layoutOf(d)->rows))) {
    free(m);
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  m->layout[0] = *layoutOf(a), m->layout[1] = *layoutOf(b);
  m->layout[2] = *layoutOf(c), m->layout[3] = *layoutOf(d);
  const char *log = getenv("THUNKY_CUDA_SIM_GEMM_LOG");
  if (log && !strcmp(log, "1"))
    fprintf(stderr,
            "cublasLt-sim: matmul compute %s scale %s, A %s B %s C %s D %s, batch %d, "
            "C %s D\n",
            computeName(op->compute), typeName(op->scale), typeName(layoutOf(a)->type),
            typeName(layoutOf(b)->type), typeName(layoutOf(c)->type),
            typeName(layoutOf(d)->type), layoutOf(d)->batch, C == D ? "is" : "apart from");
  const void *bases[4] = {A, B, C, D};
  const Layout *layouts[4] = {layoutOf(a), layoutOf(b), layoutOf(c), layoutOf(d)};
  for (int i = 0; i < 4; i++)
    m->memory[i] = (uint8_t *)(uintptr_t)bases[i], m->bytes[i] = spanBytes(layouts[i]);
  uint64_t products =
      m->layout[3].rows * m->layout[3].cols * (m->transA ? m->layout[0].rows : m->layout[0].cols);
  return thunkySimEnqueueTimed(stream, runMatmul, m, free, MATMUL_HOST_NS,
                               MATMUL_NS + products / PRODUCTS_PER_NS) == CUDA_SUCCESS
             ? CUBLAS_STATUS_SUCCESS
             : CUBLAS_STATUS_EXECUTION_FAILED;
}
