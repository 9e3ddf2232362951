/*===- sim_cublaslt.c - a SIMULATED cuBLASLt (libcublasLt.so.13), for tests ===*
 *
 * Matmuls through the host backend's reference gemm (thunky-c/HostGemm.h),
 * enqueued on the caller's stream, so that the CUDA backend over the
 * simulation computes what the host backend does, bit for bit (sim.h says
 * what the simulation is). cuBLASLt's column-major operands are the host
 * gemm's column-major layouts; f32 and f64, as the host gemm runs.
 *
 *===--------------------------------------------------------------------===*/
#include "sim.h"

#include "thunky-c/ElementTypes.h"
#include "thunky-c/HostGemm.h"

#include <cublasLt.h>

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
} Desc;

_Static_assert(sizeof(Layout) <= sizeof(cublasLtMatrixLayoutOpaque_t), "layout fits");
_Static_assert(sizeof(Desc) <= sizeof(cublasLtMatmulDescOpaque_t), "desc fits");

static Layout *layoutOf(cublasLtMatrixLayout_t l) { return (Layout *)(void *)l; }
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
  *descOf(*desc) = (Desc){compute, scale, CUBLAS_OP_N, CUBLAS_OP_N};
  return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  free(desc);
  return CUBLAS_STATUS_SUCCESS;
}

SIM_EXPORT cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                                         cublasLtMatmulDescAttributes_t attr,
                                                         const void *value, size_t size) {
  if (!desc || size != sizeof(int32_t))
    return CUBLAS_STATUS_INVALID_VALUE;
  int32_t op;
  memcpy(&op, value, sizeof op);
  if (op != CUBLAS_OP_N && op != CUBLAS_OP_T)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if (attr == CUBLASLT_MATMUL_DESC_TRANSA)
    descOf(desc)->transA = op;
  else if (attr == CUBLASLT_MATMUL_DESC_TRANSB)
    descOf(desc)->transB = op;
  else
    return CUBLAS_STATUS_NOT_SUPPORTED;
  return CUBLAS_STATUS_SUCCESS;
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
  return type == CUDA_R_32F ? THUNKY_TYPE_F32 : type == CUDA_R_64F ? THUNKY_TYPE_F64 : 0;
}

/* The host gemm's description of D = alpha op(A) op(B) + beta D. */
static ThunkyMatrixLayout hostLayout(const Layout *l, bool transposed) {
  return (ThunkyMatrixLayout){.rowMajor = false, .transposed = transposed, .rows = l->rows,
                              .cols = l->cols, .batch = (uint64_t)(l->batch > 0 ? l->batch : 1),
                              .leadingStride = (uint64_t)l->ld,
                              .batchStride = (uint64_t)l->batchStride};
}

static bool describe(const Desc *d, const Layout *a, const Layout *b, const Layout *c,
                     ThunkyPlanGemm *g) {
  int32_t type = elementType(a->type);
  if (!type || b->type != a->type || c->type != a->type || d->scale != a->type)
    return false;
  *g = (ThunkyPlanGemm){.lhs = {0, 0, 0}, .rhs = {1, 0, 0}, .out = {2, 0, 0},
                        .lhsLayout = hostLayout(a, d->transA == CUBLAS_OP_T),
                        .rhsLayout = hostLayout(b, d->transB == CUBLAS_OP_T),
                        .outLayout = hostLayout(c, false), .elementType = type};
  uint64_t m = d->transA == CUBLAS_OP_T ? a->cols : a->rows;
  uint64_t k = d->transA == CUBLAS_OP_T ? a->rows : a->cols;
  uint64_t kb = d->transB == CUBLAS_OP_T ? b->cols : b->rows;
  uint64_t n = d->transB == CUBLAS_OP_T ? b->rows : b->cols;
  return k == kb && c->rows == m && c->cols == n;
}

SIM_EXPORT cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
    cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
    cublasLtMatmulPreference_t pref, int requested, cublasLtMatmulHeuristicResult_t results[],
    int *found) {
  ThunkyPlanGemm g;
  if (!handle || !desc || !pref || requested < 1 || c != d)
    return CUBLAS_STATUS_INVALID_VALUE;
  *found = 0;
  if (!describe(descOf(desc), layoutOf(a), layoutOf(b), layoutOf(c), &g))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  memset(&results[0], 0, sizeof results[0]);
  results[0].state = CUBLAS_STATUS_SUCCESS;
  *found = 1;
  return CUBLAS_STATUS_SUCCESS;
}

typedef struct Matmul {
  ThunkyPlanGemm gemm;
  uint8_t *memory[3];
  size_t bytes[3]; /* of A, B and D, to check they lie in device memory */
} Matmul;

static size_t spanBytes(const Layout *l) {
  size_t element = l->type == CUDA_R_64F ? 8 : 4;
  size_t batches = (size_t)(l->batch > 1 ? l->batch : 1);
  return ((batches - 1) * (size_t)l->batchStride + (size_t)l->ld * (l->cols - 1) + l->rows) *
         element;
}

static bool runMatmul(void *data, char *why, size_t whySize) {
  const Matmul *m = data;
  for (int i = 0; i < 3; i++)
    if (!thunkySimValid(m->memory[i], m->bytes[i])) {
      snprintf(why, whySize, "cublasLt-sim: matmul operand %c ([%p, +%zu)) is outside every "
               "allocation", "ABD"[i], (void *)m->memory[i], m->bytes[i]);
      return false;
    }
  ThunkyError error;
  if (thunkyHostGemm(&m->gemm, m->memory, &error))
    return true;
  snprintf(why, whySize, "cublasLt-sim: %s", error.message);
  return false;
}

SIM_EXPORT cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                         const void *alpha, const void *A,
                                         cublasLtMatrixLayout_t a, const void *B,
                                         cublasLtMatrixLayout_t b, const void *beta,
                                         const void *C, cublasLtMatrixLayout_t c, void *D,
                                         cublasLtMatrixLayout_t d,
                                         const cublasLtMatmulAlgo_t *algo, void *workspace,
                                         size_t workspaceBytes, cudaStream_t stream) {
  (void)algo, (void)workspace, (void)workspaceBytes;
  if (!handle || !desc || !alpha || !beta || C != D || c != d)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (thunkySimInjected("cublasLtMatmul"))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  Matmul *m = malloc(sizeof *m);
  if (!m)
    return CUBLAS_STATUS_ALLOC_FAILED;
  if (!describe(descOf(desc), layoutOf(a), layoutOf(b), layoutOf(c), &m->gemm)) {
    free(m);
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  /* alpha and beta are host values in the scale type, read now. */
  if (m->gemm.elementType == THUNKY_TYPE_F32) {
    float f[2];
    memcpy(&f[0], alpha, 4), memcpy(&f[1], beta, 4);
    m->gemm.alphaReal = f[0], m->gemm.beta = f[1];
  } else {
    memcpy(&m->gemm.alphaReal, alpha, 8), memcpy(&m->gemm.beta, beta, 8);
  }
  /* The host gemm takes one array of bases; it only reads A and B. */
  m->memory[0] = (uint8_t *)(uintptr_t)A, m->memory[1] = (uint8_t *)(uintptr_t)B;
  m->memory[2] = D;
  m->bytes[0] = spanBytes(layoutOf(a)), m->bytes[1] = spanBytes(layoutOf(b));
  m->bytes[2] = spanBytes(layoutOf(d));
  return thunkySimEnqueue(stream, runMatmul, m, free) == CUDA_SUCCESS
             ? CUBLAS_STATUS_SUCCESS
             : CUBLAS_STATUS_EXECUTION_FAILED;
}
