/*===- cuda_gemm.c - XLA's gemms on cuBLASLt ------------------------------===*
 *
 * cuBLASLt computes D = alpha * op(A) op(B) + beta * C on column-major
 * matrices. A row-major matrix is the column-major storage of its
 * transpose, so each operand becomes column-major with a transpose flag;
 * an output that would need a transpose is computed as the transposed
 * product, op(B)^T op(A)^T, with the operands swapped. Half types
 * accumulate in f32 as XLA does; f32 stays f32 (no TF32). Descriptors and
 * the algorithm are chosen once per device when the backend is made,
 * within the gemm's workspace.
 *
 *===--------------------------------------------------------------------===*/
#include "cuda_state.h"
#include "thunky-c/Reduce.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct GemmTypes {
  cudaDataType_t data, scale;
  cublasComputeType_t compute;
} GemmTypes;

static bool gemmTypes(int32_t type, GemmTypes *t) {
  switch (type) {
  case THUNKY_TYPE_F16:
    *t = (GemmTypes){CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    return true;
  case THUNKY_TYPE_BF16:
    *t = (GemmTypes){CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    return true;
  case THUNKY_TYPE_F32:
    *t = (GemmTypes){CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    return true;
  case THUNKY_TYPE_F64:
    *t = (GemmTypes){CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F};
    return true;
  case THUNKY_TYPE_C64:
    *t = (GemmTypes){CUDA_C_32F, CUDA_C_32F, CUBLAS_COMPUTE_32F};
    return true;
  case THUNKY_TYPE_C128:
    *t = (GemmTypes){CUDA_C_64F, CUDA_C_64F, CUBLAS_COMPUTE_64F};
    return true;
  default: return false;
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

/* Rows and columns once its transpose is applied. */
static uint64_t opRows(const Operand *o) { return o->transposed ? o->cols : o->rows; }
static uint64_t opCols(const Operand *o) { return o->transposed ? o->rows : o->cols; }

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

/* Picks cuBLASLt's preferred algorithm within the gemm's workspace. */
static bool chooseAlgorithm(const Describer *d, ThunkyCudaRank *rank, ThunkyCudaGemm *g,
                            uint64_t workspace) {
  const ThunkyCublasLt *lt = &d->state->lt;
  cublasLtMatmulPreference_t preference = NULL;
  cublasLtMatmulHeuristicResult_t result = {0};
  int found = 0;
  bool chosen = ok(d, lt->cublasLtMatmulPreferenceCreate(&preference),
                   "cublasLtMatmulPreferenceCreate") &&
                ok(d,
                   lt->cublasLtMatmulPreferenceSetAttribute(
                       preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                       sizeof workspace),
                   "cublasLtMatmulPreferenceSetAttribute") &&
                ok(d,
                   lt->cublasLtMatmulAlgoGetHeuristic(rank->lt, g->desc, g->a, g->b, g->c,
                                                      g->c, preference, 1, &result, &found),
                   "cublasLtMatmulAlgoGetHeuristic");
  if (preference)
    lt->cublasLtMatmulPreferenceDestroy(preference);
  if (chosen && !found) {
    char what[96];
    snprintf(what, sizeof what, "has no cuBLASLt algorithm within its %llu bytes of workspace",
             (unsigned long long)workspace);
    return fail(d, what);
  }
  g->algo = result.algo;
  return chosen;
}

static bool describe(const Describer *d, ThunkyCudaRank *rank) {
  const ThunkyPlanGemm *p = &d->state->plan->gemms[d->index];
  ThunkyCudaGemm *g = &rank->gemms[d->index];
  GemmTypes types;
  if (!gemmTypes(p->elementType, &types))
    return fail(d, "has an element type the CUDA backend does not multiply (it runs f16, "
                   "bf16, f32, f64, c64 and c128)");
  Operand a = operandOf(&p->lhsLayout), b = operandOf(&p->rhsLayout);
  Operand c = operandOf(&p->outLayout);
  if (opCols(&a) != opRows(&b) || opRows(&c) != opRows(&a) || opCols(&c) != opCols(&b) ||
      a.batch != c.batch || b.batch != c.batch)
    return fail(d, "has operand shapes that do not agree");
  g->swapped = c.transposed;
  if (g->swapped) { /* compute out^T = op(rhs)^T op(lhs)^T into out's storage */
    Operand t = a;
    a = b, b = t;
    a.transposed = !a.transposed, b.transposed = !b.transposed, c.transposed = false;
  }
  bool wide = types.scale == CUDA_R_64F || types.scale == CUDA_C_64F;
  if (wide) {
    g->alpha.d[0] = p->alphaReal, g->alpha.d[1] = p->alphaImag, g->beta.d[0] = p->beta;
  } else {
    g->alpha.f[0] = (float)p->alphaReal, g->alpha.f[1] = (float)p->alphaImag;
    g->beta.f[0] = (float)p->beta;
  }
  int32_t transA = a.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  int32_t transB = b.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  return ok(d, d->state->lt.cublasLtMatmulDescCreate(&g->desc, types.compute, types.scale),
            "cublasLtMatmulDescCreate") &&
         setDesc(d, g->desc, CUBLASLT_MATMUL_DESC_TRANSA, &transA, sizeof transA) &&
         setDesc(d, g->desc, CUBLASLT_MATMUL_DESC_TRANSB, &transB, sizeof transB) &&
         layout(d, &g->a, types.data, &a) && layout(d, &g->b, types.data, &b) &&
         layout(d, &g->c, types.data, &c) && chooseAlgorithm(d, rank, g, p->workspace.size);
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
    if (g->desc)
      lt->cublasLtMatmulDescDestroy(g->desc);
  }
  free(rank->gemms);
  rank->gemms = NULL;
  if (rank->lt)
    lt->cublasLtDestroy(rank->lt);
  rank->lt = NULL;
}

bool thunkyCudaGemm(ThunkyCudaState *state, ThunkyCudaRank *rank, uint32_t index,
                    CUstream stream, uint32_t thunk) {
  const ThunkyPlanGemm *p = &state->plan->gemms[index];
  const ThunkyCudaGemm *g = &rank->gemms[index];
  void *a = (void *)(uintptr_t)thunkyCudaAddress(rank, g->swapped ? p->rhs : p->lhs);
  void *b = (void *)(uintptr_t)thunkyCudaAddress(rank, g->swapped ? p->lhs : p->rhs);
  void *out = (void *)(uintptr_t)thunkyCudaAddress(rank, p->out);
  void *workspace = (void *)(uintptr_t)thunkyCudaAddress(rank, p->workspace);
  cublasStatus_t status = state->lt.cublasLtMatmul(
      rank->lt, g->desc, &g->alpha, a, g->a, b, g->b, &g->beta, out, g->c, out, g->c, &g->algo,
      p->workspace.size ? workspace : NULL, p->workspace.size, stream);
  if (status == CUBLAS_STATUS_SUCCESS)
    return true;
  char where[160];
  thunkyCudaThunkName(state, thunk, where, sizeof where);
  return thunkyCublasLtFail(&state->lt, status, "cublasLtMatmul", where, &rank->error);
}
