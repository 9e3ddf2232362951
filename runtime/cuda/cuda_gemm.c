/*===- cuda_gemm.c - XLA's gemms on cuBLASLt ------------------------------===*
 *
 * cuBLASLt computes D = alpha * op(A) op(B) + beta * C on column-major
 * matrices. A row-major matrix is the column-major storage of its
 * transpose, so each operand becomes column-major with a transpose flag;
 * an output that would need a transpose is computed as the transposed
 * product, op(B)^T op(A)^T, with the operands swapped (C lies as D does).
 * Each operand has its own type; the compute type is the plan's (XLA's:
 * TF32 for f32 and c64 at JAX's default precision) and the scale type
 * XLA's GetScaleType (gpu_blas_lt.cc). A broadcast input (batch 1) is
 * given the output's batch count with stride 0, as cuda_blas_lt.cc does.
 * An epilogue's bias is D's rows long either way: the output's minor
 * dimension, as the plan checks it.
 * Descriptors and the algorithm (the algorithm_idx-th of cuBLASLt's
 * heuristic list, as XLA's CublasLtMatmulThunk picks it) are chosen once
 * per device when the backend is made.
 *
 *===--------------------------------------------------------------------===*/
#include "cuda_state.h"
#include "thunky-c/base/ElementTypes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool dataType(int32_t type, cudaDataType_t *out) {
  switch (type) {
  case THUNKY_TYPE_F16: *out = CUDA_R_16F; return true;
  case THUNKY_TYPE_BF16: *out = CUDA_R_16BF; return true;
  case THUNKY_TYPE_F32: *out = CUDA_R_32F; return true;
  case THUNKY_TYPE_F64: *out = CUDA_R_64F; return true;
  case THUNKY_TYPE_C64: *out = CUDA_C_32F; return true;
  case THUNKY_TYPE_C128: *out = CUDA_C_64F; return true;
  default: return false;
  }
}

/* XLA's ComputationType to cuBLAS's (cuda_blas_utils.cc AsCublasComputeType). */
static cublasComputeType_t computeType(int32_t compute) {
  switch (compute) {
  case THUNKY_GEMM_COMPUTE_F16: return CUBLAS_COMPUTE_16F;
  case THUNKY_GEMM_COMPUTE_F64: return CUBLAS_COMPUTE_64F;
  case THUNKY_GEMM_COMPUTE_F16_AS_F32: return CUBLAS_COMPUTE_32F_FAST_16F;
  case THUNKY_GEMM_COMPUTE_BF16_AS_F32: return CUBLAS_COMPUTE_32F_FAST_16BF;
  case THUNKY_GEMM_COMPUTE_TF32_AS_F32: return CUBLAS_COMPUTE_32F_FAST_TF32;
  default: return CUBLAS_COMPUTE_32F;
  }
}

/* alpha or beta as a host value of the scale type. */
static void scalar(cudaDataType_t scale, double re, double im, unsigned char out[16]) {
  if (scale == CUDA_R_16F) {
    uint16_t h = (uint16_t)thunkySmallFloatEncode(THUNKY_TYPE_F16, (float)re);
    memcpy(out, &h, sizeof h);
  } else if (scale == CUDA_R_32F || scale == CUDA_C_32F) {
    float f[2] = {(float)re, (float)im};
    memcpy(out, f, sizeof f);
  } else {
    double d[2] = {re, im};
    memcpy(out, d, sizeof d);
  }
}

/* The thunk of gemm `index`, for messages (errors only: a scan). */
static uint32_t thunkOf(const ThunkyPlan *plan, uint32_t index) {
  for (uint32_t i = 0; i < plan->numCommands; i++)
    if (plan->commands[i].kind == THUNKY_CMD_GEMM && plan->commands[i].gemm.gemm == index)
      return plan->commands[i].thunk;
  return THUNKY_CUDA_NO_THUNK;
}

typedef struct Describer {
  const ThunkyCudaState *state;
  uint32_t index;
  ThunkyError *error;
} Describer;

/* "thunk 7 (dot)": the thunk of the gemm being described. */
static void gemmName(const Describer *d, char *out, size_t size) {
  thunkyCudaThunkName(d->state, thunkOf(d->state->plan, d->index), out, size);
}

static bool ok(const Describer *d, cublasStatus_t status, const char *call) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return true;
  char name[160];
  gemmName(d, name, sizeof name);
  return thunkyCublasLtFail(&d->state->lt, status, call, name, d->error);
}

static bool fail(const Describer *d, const char *what) {
  char name[160];
  gemmName(d, name, sizeof name);
  return thunkyErrorf(d->error, "cuda: the gemm of %s %s", name, what);
}

/* An operand as cuBLASLt takes it: column-major rows x cols with its
 * strides, used transposed or not. */
typedef struct Operand {
  uint64_t rows, cols, ld, batch, batchStride;
  bool transposed;
} Operand;

static Operand operandOf(const ThunkyMatrixLayout *l) {
  Operand o = {l->rowMajor ? l->cols : l->rows,
               l->rowMajor ? l->rows : l->cols,
               l->leadingStride,
               l->batch,
               l->batchStride,
               l->transposed != l->rowMajor};
  if (!o.ld)
    o.ld = o.rows;
  return o;
}

static bool layout(const Describer *d, cublasLtMatrixLayout_t *out, cudaDataType_t type,
                   const Operand *o) {
  const ThunkyCublasLt *lt = &d->state->lt;
  if (!ok(d, lt->cublasLtMatrixLayoutCreate(out, type, o->rows, o->cols, (int64_t)o->ld),
          "cublasLtMatrixLayoutCreate"))
    return false;
  int32_t count = (int32_t)o->batch;
  int64_t stride = (int64_t)o->batchStride;
  return o->batch <= 1 ||
         (ok(d,
             lt->cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                                  &count, sizeof count),
             "cublasLtMatrixLayoutSetAttribute") &&
          ok(d,
             lt->cublasLtMatrixLayoutSetAttribute(
                 *out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
             "cublasLtMatrixLayoutSetAttribute"));
}

static bool setDesc(const Describer *d, cublasLtMatmulDesc_t desc,
                    cublasLtMatmulDescAttributes_t attribute, const void *value, size_t size) {
  return ok(d, d->state->lt.cublasLtMatmulDescSetAttribute(desc, attribute, value, size),
            "cublasLtMatmulDescSetAttribute");
}

/* The plan's algorithm_idx-th of cuBLASLt's heuristic list, skipping the
 * ones it reports failed, as XLA's GetAlgorithms does; XLA asks for one
 * when the index is 0 and for 128 otherwise, within the workspace it was
 * autotuned with, and the chosen one must fit the workspace slice. */
static bool chooseAlgorithm(const Describer *d, ThunkyCudaRank *rank, ThunkyCudaGemm *g,
                            const ThunkyPlanGemm *p) {
  const ThunkyCublasLt *lt = &d->state->lt;
  int requested = p->algorithm ? 128 : 1, found = 0, usable = 0;
  cublasLtMatmulHeuristicResult_t *results = calloc((size_t)requested, sizeof *results);
  cublasLtMatmulPreference_t preference = NULL;
  uint64_t workspace = p->algorithmWorkspace;
  bool chosen = results &&
                ok(d, lt->cublasLtMatmulPreferenceCreate(&preference),
                   "cublasLtMatmulPreferenceCreate") &&
                ok(d,
                   lt->cublasLtMatmulPreferenceSetAttribute(
                       preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                       sizeof workspace),
                   "cublasLtMatmulPreferenceSetAttribute") &&
                ok(d,
                   lt->cublasLtMatmulAlgoGetHeuristic(rank->lt, g->desc, g->a, g->b, g->c,
                                                      g->d, preference, requested, results,
                                                      &found),
                   "cublasLtMatmulAlgoGetHeuristic");
  if (preference)
    lt->cublasLtMatmulPreferenceDestroy(preference);
  const cublasLtMatmulHeuristicResult_t *pick = NULL;
  for (int i = 0; chosen && i < found && !pick; i++)
    if (results[i].state == CUBLAS_STATUS_SUCCESS && usable++ == (int)p->algorithm)
      pick = &results[i];
  char what[160];
  if (!results) {
    chosen = fail(d, "has no memory for cuBLASLt's algorithms");
  } else if (chosen && !pick) {
    snprintf(what, sizeof what,
             "has no cuBLASLt algorithm %u within %llu bytes of workspace (cuBLASLt offers %d)",
             p->algorithm, (unsigned long long)workspace, usable);
    chosen = fail(d, what);
  } else if (chosen && pick->workspaceSize > p->workspace.size) {
    snprintf(what, sizeof what, "needs %zu bytes of workspace, more than its %llu-byte slice",
             pick->workspaceSize, (unsigned long long)p->workspace.size);
    chosen = fail(d, what);
  } else if (chosen) {
    g->algo = pick->algo;
  }
  free(results);
  return chosen;
}

/* A gemm_thunk's cuBLAS algorithm picks the kernel only before sm_80
 * (cuBLAS's cublasGemmAlgo_t); thunky runs cuBLASLt's choice, which is the
 * same thing only where the algorithm has no effect. */
static bool algorithmHolds(const Describer *d, const ThunkyCudaRank *rank,
                           const ThunkyPlanGemm *p) {
  if (p->cublasAlgorithm == -1)
    return true;
  int major = 0, minor = 0;
  const ThunkyCudaState *state = d->state;
  if (!THUNKY_CU(state, cuDeviceGetAttribute,
                 (&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, rank->device),
                 THUNKY_CUDA_NO_THUNK, d->error) ||
      !THUNKY_CU(state, cuDeviceGetAttribute,
                 (&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, rank->device),
                 THUNKY_CUDA_NO_THUNK, d->error))
    return false;
  if (major >= 8)
    return true;
  char what[200];
  snprintf(what, sizeof what,
           "picks cuBLAS algorithm %lld, which chooses the kernel on this GPU (sm_%d%d; cuBLAS "
           "ignores it from sm_80 on), and thunky runs cuBLASLt's heuristic choice",
           (long long)p->cublasAlgorithm, major, minor);
  return fail(d, what);
}

/* The plan's epilogue as cuBLASLt's (cublasLt.h cublasLtEpilogue_t). */
static cublasLtEpilogue_t epilogueOf(const ThunkyPlanGemm *p) {
  switch (p->activation) {
  case THUNKY_GEMM_ACTIVATION_RELU:
    return p->hasBias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
  case THUNKY_GEMM_ACTIVATION_GELU:
    return p->hasBias ? (p->hasAux ? CUBLASLT_EPILOGUE_GELU_AUX_BIAS : CUBLASLT_EPILOGUE_GELU_BIAS)
                      : (p->hasAux ? CUBLASLT_EPILOGUE_GELU_AUX : CUBLASLT_EPILOGUE_GELU);
  default:
    return p->hasBias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
  }
}

/* The epilogue, and the aux output laid out as D (as XLA's DoMatmul lays
 * it: D's leading dimension and batch stride); the bias and aux addresses
 * are set at each call, as a dynamic-slice fusion moves them. */
static bool describeEpilogue(const Describer *d, ThunkyCudaGemm *g, const ThunkyPlanGemm *p,
                             const Operand *out) {
  uint32_t epilogue = (uint32_t)epilogueOf(p);
  int64_t ld = (int64_t)out->ld, batchStride = (int64_t)out->batchStride;
  return setDesc(d, g->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue) &&
         (!p->hasAux ||
          (setDesc(d, g->desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ld, sizeof ld) &&
           setDesc(d, g->desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, &batchStride,
                   sizeof batchStride)));
}

static bool describe(const Describer *d, ThunkyCudaRank *rank) {
  const ThunkyPlanGemm *p = &d->state->plan->gemms[d->index];
  ThunkyCudaGemm *g = &rank->gemms[d->index];
  if (!algorithmHolds(d, rank, p))
    return false;
  cudaDataType_t aType, bType, cType, dType;
  if (!dataType(p->lhsType, &aType) || !dataType(p->rhsType, &bType) ||
      !dataType(p->cType, &cType) || !dataType(p->outType, &dType))
    return fail(d, "has an element type the CUDA backend does not multiply (it runs f16, "
                   "bf16, f32, f64, c64 and c128)");
  Operand a = operandOf(&p->lhsLayout), b = operandOf(&p->rhsLayout);
  Operand c = operandOf(&p->cLayout), out = operandOf(&p->outLayout);
  a.batch = b.batch = out.batch; /* a batch-1 input has stride 0: broadcast */
  g->swapped = out.transposed;
  if (g->swapped) { /* compute out^T = op(rhs)^T op(lhs)^T into out's storage */
    Operand t = a;
    a = b, b = t;
    cudaDataType_t tt = aType;
    aType = bType, bType = tt;
    a.transposed = !a.transposed, b.transposed = !b.transposed;
    c.transposed = out.transposed = false;
  }
  cublasComputeType_t compute = computeType(p->compute);
  cudaDataType_t scale =
      p->compute == THUNKY_GEMM_COMPUTE_F32 && dType != CUDA_C_32F ? CUDA_R_32F : dType;
  scalar(scale, p->alphaReal, p->alphaImag, g->alpha);
  scalar(scale, p->beta, 0, g->beta);
  int32_t transA = a.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  int32_t transB = b.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  return ok(d, d->state->lt.cublasLtMatmulDescCreate(&g->desc, compute, scale),
            "cublasLtMatmulDescCreate") &&
         setDesc(d, g->desc, CUBLASLT_MATMUL_DESC_TRANSA, &transA, sizeof transA) &&
         setDesc(d, g->desc, CUBLASLT_MATMUL_DESC_TRANSB, &transB, sizeof transB) &&
         describeEpilogue(d, g, p, &out) && layout(d, &g->a, aType, &a) &&
         layout(d, &g->b, bType, &b) && layout(d, &g->c, cType, &c) &&
         layout(d, &g->d, dType, &out) && chooseAlgorithm(d, rank, g, p);
}

bool thunkyCudaInitGemms(ThunkyCudaState *state, ThunkyCudaRank *rank, ThunkyError *error) {
  const ThunkyPlan *plan = state->plan;
  Describer d = {state, 0, error};
  if (!ok(&d, state->lt.cublasLtCreate(&rank->lt), "cublasLtCreate"))
    return false;
  rank->gemms = calloc(plan->numGemms, sizeof *rank->gemms);
  if (!rank->gemms)
    return thunkyErrorf(error, "cuda: out of memory describing gemms");
  for (; d.index < plan->numGemms; d.index++)
    if (!describe(&d, rank))
      return false;
  return true;
}

void thunkyCudaFreeGemms(ThunkyCudaState *state, ThunkyCudaRank *rank) {
  const ThunkyCublasLt *lt = &state->lt;
  for (uint32_t i = 0; rank->gemms && i < state->plan->numGemms; i++) {
    ThunkyCudaGemm *g = &rank->gemms[i];
    if (g->a)
      lt->cublasLtMatrixLayoutDestroy(g->a);
    if (g->b)
      lt->cublasLtMatrixLayoutDestroy(g->b);
    if (g->c)
      lt->cublasLtMatrixLayoutDestroy(g->c);
    if (g->d)
      lt->cublasLtMatrixLayoutDestroy(g->d);
    if (g->desc)
      lt->cublasLtMatmulDescDestroy(g->desc);
  }
  free(rank->gemms);
  rank->gemms = NULL;
  if (rank->lt)
    lt->cublasLtDestroy(rank->lt);
  rank->lt = NULL;
}

/* Points an epilogue's bias or aux at `slice` on this rank. */
static cublasStatus_t setAddress(const ThunkyCudaState *state, const ThunkyCudaRank *rank,
                                 const ThunkyCudaGemm *g, cublasLtMatmulDescAttributes_t attribute,
                                 ThunkyPlanSlice slice) {
  void *address = (void *)(uintptr_t)thunkyCudaAddress(rank, slice);
  return state->lt.cublasLtMatmulDescSetAttribute(g->desc, attribute, &address, sizeof address);
}

bool thunkyCudaGemm(ThunkyCudaState *state, ThunkyCudaRank *rank, uint32_t index,
                    CUstream stream, uint32_t thunk) {
  const ThunkyPlanGemm *p = &state->plan->gemms[index];
  const ThunkyCudaGemm *g = &rank->gemms[index];
  void *a = (void *)(uintptr_t)thunkyCudaAddress(rank, g->swapped ? p->rhs : p->lhs);
  void *b = (void *)(uintptr_t)thunkyCudaAddress(rank, g->swapped ? p->lhs : p->rhs);
  void *c = (void *)(uintptr_t)thunkyCudaAddress(rank, p->c);
  void *out = (void *)(uintptr_t)thunkyCudaAddress(rank, p->out);
  void *workspace = (void *)(uintptr_t)thunkyCudaAddress(rank, p->workspace);
  const char *call = "cublasLtMatmulDescSetAttribute";
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  if (p->hasBias)
    status = setAddress(state, rank, g, CUBLASLT_MATMUL_DESC_BIAS_POINTER, p->bias);
  if (p->hasAux && status == CUBLAS_STATUS_SUCCESS)
    status = setAddress(state, rank, g, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, p->aux);
  if (status == CUBLAS_STATUS_SUCCESS) {
    call = "cublasLtMatmul";
    status = state->lt.cublasLtMatmul(
        rank->lt, g->desc, g->alpha, a, g->a, b, g->b, g->beta, c, g->c, out, g->d, &g->algo,
        p->workspace.size ? workspace : NULL, p->workspace.size, stream);
  }
  if (status == CUBLAS_STATUS_SUCCESS)
    return true;
  char where[160];
  thunkyCudaThunkName(state, thunk, where, sizeof where);
  return thunkyCublasLtFail(&state->lt, status, call, where, &rank->error);
}
