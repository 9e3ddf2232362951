/*===- plan_gemm.c - gemm_thunk and cublas_lt_matmul_thunk as commands ---===*
 *
 * A GemmConfigProto as XLA runs it (xla/stream_executor/gpu/gpu_blas_lt.cc,
 * stream_executor/cuda/cuda_blas_lt.cc GetMatmulPlan, service/gpu/
 * matmul_utils.cc RunGemm): each operand with its own layout and element
 * type, cuBLASLt's C apart from D, a batch of 1 broadcast against a batched
 * output, and the compute type XLA picks. A field that changes what runs
 * and that thunky does not run makes the thunk THUNKY_CMD_OPAQUE, with the
 * field named in ThunkyPlanThunk.unsupported: both backends refuse it by
 * that name, and a fingerprint run still takes it as an uninterpreted
 * function. A config that is malformed (shapes that do not agree, a layout
 * past its slice) is an error.
 *
 *===--------------------------------------------------------------------===*/
#include "plan_builder.h"

#include "thunky-c/base/ElementTypes.h"

#include <inttypes.h>
#include <stdio.h>

typedef Xla__GemmConfigProto__MatrixLayout LayoutProto;

enum {
  F16 = THUNKY_TYPE_F16, BF16 = THUNKY_TYPE_BF16, F32 = THUNKY_TYPE_F32,
  F64 = THUNKY_TYPE_F64, C64 = THUNKY_TYPE_C64, C128 = THUNKY_TYPE_C128,
};

/* XLA's GemmConfig::kNumAlgorithms: how many algorithms cublas_lt's
 * algorithm_idx indexes into. */
enum { XLA_NUM_ALGORITHMS = 128 };

static const char *enumName(const ProtobufCEnumDescriptor *d, int value) {
  const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(d, value);
  return v ? v->name : "an unknown value";
}

static const char *typeName(int32_t type) {
  const char *name = thunkyElementTypeName(type);
  return name ? name : "an unknown type";
}

static bool layoutOf(Builder *b, const LayoutProto *l, const char *what,
                     ThunkyMatrixLayout *out) {
  if (!l || l->num_rows < 0 || l->num_cols < 0 || l->batch_size < 0 ||
      l->leading_dim_stride < 0 || l->batch_stride < 0)
    return fail(b, "gemm: the %s layout is missing or negative", what);
  if (l->order != XLA__GEMM_CONFIG_PROTO__MATRIX_LAYOUT__ORDER__ORDER_ROW_MAJOR &&
      l->order != XLA__GEMM_CONFIG_PROTO__MATRIX_LAYOUT__ORDER__ORDER_COLUMN_MAJOR)
    return fail(b, "gemm: the %s layout has no order (XLA refuses ORDER_UNKNOWN)", what);
  uint64_t batch = l->batch_size ? (uint64_t)l->batch_size : 1;
  *out = (ThunkyMatrixLayout){
      .rowMajor = l->order == XLA__GEMM_CONFIG_PROTO__MATRIX_LAYOUT__ORDER__ORDER_ROW_MAJOR,
      .transposed = l->transpose == XLA__BLAS_TRANSPOSE_PROTO__BLAS_TRANSPOSE,
      .rows = (uint64_t)l->num_rows,
      .cols = (uint64_t)l->num_cols,
      .batch = batch,
      .leadingStride = (uint64_t)l->leading_dim_stride,
      /* One matrix has no batch stride; against a batched output it is
       * broadcast, read again for every batch (cuda_blas_lt.cc). */
      .batchStride = batch == 1 ? 0 : (uint64_t)l->batch_stride};
  return true;
}

/* The last element a layout reaches must lie inside its slice. */
static bool layoutFits(Builder *b, const ThunkyMatrixLayout *l, ThunkyPlanSlice s,
                       int32_t type, const char *what) {
  if (!l->rows || !l->cols)
    return true;
  uint64_t inner = l->rowMajor ? l->cols : l->rows, outer = l->rowMajor ? l->rows : l->cols;
  if (l->leadingStride < inner)
    return fail(b, "gemm: %s leading stride %" PRIu64 " is less than %" PRIu64, what,
                l->leadingStride, inner);
  __uint128_t last = (__uint128_t)(l->batch - 1) * l->batchStride +
                     (__uint128_t)(outer - 1) * l->leadingStride + inner;
  if (last * thunkyElementBytes(type) > s.size)
    return fail(b, "gemm: %s (%s) reaches past its %" PRIu64 "-byte slice", what,
                typeName(type), s.size);
  return true;
}

/* Rows and columns of op(matrix). */
static uint64_t opRows(const ThunkyMatrixLayout *l) { return l->transposed ? l->cols : l->rows; }
static uint64_t opCols(const ThunkyMatrixLayout *l) { return l->transposed ? l->rows : l->cols; }

/* XLA's GemmConfig::For checks, with its broadcast rule: an input's batch
 * is the output's or 1. */
static bool shapesAgree(Builder *b, const ThunkyPlanGemm *g) {
  const ThunkyMatrixLayout *l = &g->lhsLayout, *r = &g->rhsLayout, *c = &g->cLayout,
                           *o = &g->outLayout;
  if (opCols(l) != opRows(r) || opRows(o) != opRows(l) || opCols(o) != opCols(r) ||
      opRows(c) != opRows(o) || opCols(c) != opCols(o))
    return fail(b,
                "gemm: operand shapes do not agree: %" PRIu64 "x%" PRIu64 " x %" PRIu64
                "x%" PRIu64 " -> %" PRIu64 "x%" PRIu64 " (c %" PRIu64 "x%" PRIu64 ")",
                opRows(l), opCols(l), opRows(r), opCols(r), opRows(o), opCols(o), opRows(c),
                opCols(c));
  if ((l->batch != o->batch && l->batch != 1) || (r->batch != o->batch && r->batch != 1) ||
      c->batch != o->batch)
    return fail(b,
                "gemm: batches do not agree: lhs %" PRIu64 ", rhs %" PRIu64 ", c %" PRIu64
                ", output %" PRIu64 " (an input's must be the output's or 1)",
                l->batch, r->batch, c->batch, o->batch);
  return true;
}

/* The element types XLA's RunGemm and cuBLASLt multiply without fp8
 * scales: f16 or bf16 into their own type or f32, the others into their
 * own; c is d's type. */
static bool typesRun(const ThunkyPlanGemm *g) {
  int32_t in = g->lhsType, out = g->outType;
  if (g->rhsType != in || g->cType != out)
    return false;
  if (in == F16 || in == BF16)
    return out == in || out == F32;
  return (in == F32 || in == F64 || in == C64 || in == C128) && out == in;
}

/* Which compute types cuBLASLt takes for these inputs (cublasLt.h's
 * cublasLtMatmul type table): the _AS_F32 kinds round f32 inputs down. */
static bool computeRuns(int32_t compute, const ThunkyPlanGemm *g) {
  int32_t in = g->lhsType;
  switch (compute) {
  case THUNKY_GEMM_COMPUTE_F16: return in == F16 && g->outType == F16;
  case THUNKY_GEMM_COMPUTE_F32: return in != F64 && in != C128;
  case THUNKY_GEMM_COMPUTE_F64: return in == F64 || in == C128;
  case THUNKY_GEMM_COMPUTE_F16_AS_F32:
  case THUNKY_GEMM_COMPUTE_BF16_AS_F32:
  case THUNKY_GEMM_COMPUTE_TF32_AS_F32: return in == F32 || in == C64;
  default: return false;
  }
}

/* A precision algorithm's compute type (xla/service/algorithm_util.cc
 * GetBlasComputationType); 0 for one XLA has none for. */
static int32_t algorithmCompute(int algorithm) {
  switch (algorithm) {
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_F16_F16_F16: return THUNKY_GEMM_COMPUTE_F16;
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_BF16_BF16_F32:
    return THUNKY_GEMM_COMPUTE_BF16_AS_F32;
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_ANY_F8_ANY_F8_F32:
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_ANY_F8_ANY_F8_F32_FAST_ACCUM:
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_F16_F16_F32:
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_BF16_BF16_F32_X3:
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_BF16_BF16_F32_X6:
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_BF16_BF16_F32_X9:
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_F32_F32_F32:
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_TF32_TF32_F32_X3:
    return THUNKY_GEMM_COMPUTE_F32;
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_TF32_TF32_F32:
    return THUNKY_GEMM_COMPUTE_TF32_AS_F32;
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_F64_F64_F64: return THUNKY_GEMM_COMPUTE_F64;
  default: return 0;
  }
}

/* XLA's compute type: cublas_lt's compute_type when set (the legacy
 * gemm's RunGemm does not read it); else the precision algorithm's; else
 * by the output type, f32 and c64 in TF32 at precision DEFAULT or HIGH
 * when the lhs is of the output's type (gpu_blas_lt.cc
 * GetBlasComputationType; TensorFloat-32 is on unless a process turns it
 * off, and JAX leaves it on). False, with *why set, when thunky cannot
 * run it. */
static bool computeOf(const Xla__GemmConfigProto *config, bool lt, const ThunkyPlanGemm *g,
                      int32_t *compute, char *why, size_t size) {
  if (lt && config->compute_type != XLA__BLAS_COMPUTATION_TYPE_PROTO__BLAS_COMPUTATION_TYPE_UNSET) {
    *compute = (int32_t)config->compute_type;
  } else if (config->precision_algorithm != XLA__PRECISION_CONFIG__ALGORITHM__ALG_UNSET) {
    if (!(*compute = algorithmCompute(config->precision_algorithm))) {
      snprintf(why, size, "precision_algorithm %s",
               enumName(&xla__precision_config__algorithm__descriptor,
                        config->precision_algorithm));
      return false;
    }
  } else if (g->outType == F32 || g->outType == C64) {
    *compute = config->compute_precision <= 1 && g->lhsType == g->outType
                   ? THUNKY_GEMM_COMPUTE_TF32_AS_F32
                   : THUNKY_GEMM_COMPUTE_F32;
  } else {
    *compute = g->outType == F64 || g->outType == C128 ? THUNKY_GEMM_COMPUTE_F64
                                                       : THUNKY_GEMM_COMPUTE_F32;
  }
  if (computeRuns(*compute, g))
    return true;
  snprintf(why, size, "compute type %s for %s operands",
           enumName(&xla__blas_computation_type_proto__descriptor, *compute),
           typeName(g->lhsType));
  return false;
}

typedef struct GemmSlices {
  const SliceProto *lhs, *rhs, *c, *out, *workspace, *bias, *aux;
  int32_t biasType; /* the bias's element type where its shape says, else 0 */
} GemmSlices;

/* The epilogues XLA's CUDA backend hands cuBLASLt (cuda_blas_lt.cc
 * AsCublasLtEpilogue), by their parts as cublasLt.h's cublasLtEpilogue_t
 * describes them; the SILU ones, which it refuses, are not here. */
static const struct {
  int epilogue;
  bool bias, aux;
  int32_t activation;
} epilogues[] = {
    {XLA__BLAS_LT_EPILOGUE_PROTO__EPILOGUE_DEFAULT, false, false, THUNKY_GEMM_ACTIVATION_NONE},
    {XLA__BLAS_LT_EPILOGUE_PROTO__EPILOGUE_RELU, false, false, THUNKY_GEMM_ACTIVATION_RELU},
    {XLA__BLAS_LT_EPILOGUE_PROTO__EPILOGUE_BIAS, true, false, THUNKY_GEMM_ACTIVATION_NONE},
    {XLA__BLAS_LT_EPILOGUE_PROTO__EPILOGUE_BIAS_THEN_RELU, true, false,
     THUNKY_GEMM_ACTIVATION_RELU},
    {XLA__BLAS_LT_EPILOGUE_PROTO__EPILOGUE_GELU, false, false, THUNKY_GEMM_ACTIVATION_GELU},
    {XLA__BLAS_LT_EPILOGUE_PROTO__EPILOGUE_GELU_WITH_AUX, false, true, THUNKY_GEMM_ACTIVATION_GELU},
    {XLA__BLAS_LT_EPILOGUE_PROTO__EPILOGUE_BIAS_THEN_GELU, true, false,
     THUNKY_GEMM_ACTIVATION_GELU},
    {XLA__BLAS_LT_EPILOGUE_PROTO__EPILOGUE_BIAS_THEN_GELU_WITH_AUX, true, true,
     THUNKY_GEMM_ACTIVATION_GELU},
};

static bool epilogueParts(int epilogue, ThunkyPlanGemm *g) {
  for (size_t i = 0; i < sizeof epilogues / sizeof epilogues[0]; i++)
    if (epilogues[i].epilogue == epilogue) {
      g->hasBias = epilogues[i].bias, g->hasAux = epilogues[i].aux;
      g->activation = epilogues[i].activation;
      return true;
    }
  return false;
}

/* The epilogue's buffers: a bias of the output's type, one element per
 * index of the output's minor dimension (cuBLASLt's D rows, packed); an
 * aux laid out as the output. A buffer the epilogue does not use is a
 * malformed thunk, as the checks would take it as read or written. */
static bool epilogueFits(Builder *b, const ThunkyPlanGemm *g, const GemmSlices *s,
                         const char *epilogue) {
  if ((s->bias != NULL) != g->hasBias)
    return fail(b, "cublas_lt_matmul_thunk: epilogue %s %s", epilogue,
                g->hasBias ? "without its bias" : "with a bias it does not add");
  if ((s->aux != NULL) != g->hasAux)
    return fail(b, "cublas_lt_matmul_thunk: epilogue %s %s", epilogue,
                g->hasAux ? "without its aux output" : "with an aux it does not write");
  const ThunkyMatrixLayout *o = &g->outLayout;
  uint64_t length = o->rowMajor ? o->cols : o->rows;
  if (g->hasBias && s->biasType && s->biasType != g->outType)
    return fail(b, "cublas_lt_matmul_thunk: its bias is %s; cuBLASLt reads it as the output's %s",
                typeName(s->biasType), typeName(g->outType));
  if (g->hasBias && g->bias.size != length * thunkyElementBytes(g->outType))
    return fail(b,
                "cublas_lt_matmul_thunk: its bias has %" PRIu64 " bytes; %" PRIu64
                " %s elements (the output's minor dimension) expected",
                g->bias.size, length, typeName(g->outType));
  return !g->hasAux || layoutFits(b, o, g->aux, g->outType, "aux");
}

static bool planGemm(Builder *b, CommandVec *v, const Xla__GemmConfigProto *config, bool lt,
                     const GemmSlices *s, uint32_t algorithm, uint64_t algorithmWorkspace,
                     int epilogue) {
  if (!config)
    return fail(b, "gemm without its configuration");
  ThunkyPlanGemm g = {.alphaReal = config->alpha_real, .alphaImag = config->alpha_imag,
                      .beta = config->beta, .algorithm = algorithm,
                      .cublasAlgorithm = !lt && config->has_algorithm ? config->algorithm : -1};
  const ProtobufCEnumValue *named =
      protobuf_c_enum_descriptor_get_value(&xla__blas_lt_epilogue_proto__descriptor, epilogue);
  if (!named)
    return fail(b, "cublas_lt_matmul_thunk: epilogue %d is no BlasLtEpilogueProto", epilogue);
  const char *epilogueName = named->name;
  if (!epilogueParts(epilogue, &g))
    return thunkyPlanRefuse(b, v, "epilogue %s (XLA's CUDA backend runs no SILU epilogue)",
                            epilogueName);
  /* A legacy gemm accumulates into its output: C is D. */
  const LayoutProto *cLayout = lt ? config->c_layout : config->output_layout;
  if (!thunkyPlanSliceOf(b, s->lhs, "lhs", &g.lhs) ||
      !thunkyPlanSliceOf(b, s->rhs, "rhs", &g.rhs) || !thunkyPlanSliceOf(b, s->c, "c", &g.c) ||
      !thunkyPlanSliceOf(b, s->out, "output", &g.out) ||
      (s->workspace && !thunkyPlanSliceOf(b, s->workspace, "workspace", &g.workspace)) ||
      (s->bias && !thunkyPlanSliceOf(b, s->bias, "bias", &g.bias)) ||
      (s->aux && !thunkyPlanSliceOf(b, s->aux, "aux", &g.aux)) ||
      !layoutOf(b, config->lhs_layout, "lhs", &g.lhsLayout) ||
      !layoutOf(b, config->rhs_layout, "rhs", &g.rhsLayout) ||
      !layoutOf(b, cLayout, "c", &g.cLayout) ||
      !layoutOf(b, config->output_layout, "output", &g.outLayout) || !shapesAgree(b, &g))
    return false;
  g.lhsType = config->lhs_layout->dtype, g.rhsType = config->rhs_layout->dtype;
  g.cType = cLayout->dtype, g.outType = config->output_layout->dtype;
  g.algorithmWorkspace = lt ? algorithmWorkspace : g.workspace.size;
  char why[160];
  if (!typesRun(&g))
    return thunkyPlanRefuse(b, v, "operand types %s x %s -> %s (c %s)", typeName(g.lhsType),
                  typeName(g.rhsType), typeName(g.outType), typeName(g.cType));
  if (!computeOf(config, lt, &g, &g.compute, why, sizeof why))
    return thunkyPlanRefuse(b, v, "%s", why);
  const LayoutProto *layouts[] = {config->lhs_layout, config->rhs_layout, cLayout,
                                  config->output_layout};
  for (int i = 0; i < 4; i++)
    if (layouts[i]->transpose == XLA__BLAS_TRANSPOSE_PROTO__BLAS_CONJUGATE_TRANSPOSE)
      return thunkyPlanRefuse(b, v, "a conjugate-transposed %s", (const char *[]){"lhs", "rhs", "c",
                                                                          "output"}[i]);
  /* cuBLASLt has no transpose for C: it must lie as D does. */
  if ((g.cLayout.rowMajor != g.cLayout.transposed) !=
      (g.outLayout.rowMajor != g.outLayout.transposed))
    return thunkyPlanRefuse(b, v, "a c layout transposed against the output's");
  if (config->scale_mode)
    return thunkyPlanRefuse(b, v, "scale_mode %" PRId32, config->scale_mode);
  /* cuBLASLt's epilogues are real: XLA fuses none into a complex gemm. */
  if ((g.hasBias || g.hasAux || g.activation) &&
      thunkyElementKind(g.outType) == THUNKY_KIND_COMPLEX)
    return thunkyPlanRefuse(b, v, "epilogue %s on a %s output", epilogueName, typeName(g.outType));
  if (!layoutFits(b, &g.lhsLayout, g.lhs, g.lhsType, "lhs") ||
      !layoutFits(b, &g.rhsLayout, g.rhs, g.rhsType, "rhs") ||
      !layoutFits(b, &g.cLayout, g.c, g.cType, "c") ||
      !layoutFits(b, &g.outLayout, g.out, g.outType, "output") ||
      !epilogueFits(b, &g, s, epilogueName))
    return false;
  ThunkyCommand *c = thunkyPlanEmit(b, v, THUNKY_CMD_GEMM);
  ThunkyPlanGemm *kept = c ? thunkyPlanPush(&b->gemms) : NULL;
  if (!kept)
    return c ? thunkyErrorf(b->error, "out of memory") : false;
  *kept = g;
  c->gemm.gemm = b->plan->numGemms - 1;
  return true;
}

bool thunkyPlanGemmThunk(Builder *b, CommandVec *v, const Xla__Gpu__GemmThunkProto *t) {
  const Xla__GemmConfigProto *config = t->gemm_config;
  /* XLA's RunGemm hands an autotuned algorithm to cublasGemmEx. cuBLAS's
   * cublasGemmAlgo_t: CUBLAS_GEMM_DEFAULT (-1, XLA's kDefaultAlgorithm),
   * ALGO0..23, which cuBLAS documents as having no effect from sm_80 on
   * (so there the heuristic chooses, as for thunky's own cuBLASLt), and
   * the deprecated tensor-op ones (99..115), which let cuBLAS compute f32
   * in f16 (CUBLAS_COMPUTE_32F_FAST_16F). The CUDA backend refuses ALGO0..23
   * on an older GPU (cuda_gemm.c). */
  if (config && config->has_algorithm && config->algorithm >= 99 && config->algorithm <= 115)
    return thunkyPlanRefuse(b, v, "algorithm %" PRId64 " (a deprecated cuBLAS tensor-op "
                            "algorithm, which may compute f32 in f16)", config->algorithm);
  if (config && config->has_algorithm && (config->algorithm < -1 || config->algorithm > 23))
    return thunkyPlanRefuse(b, v, "algorithm %" PRId64 " (no cublasGemmAlgo_t)",
                            config->algorithm);
  GemmSlices s = {.lhs = t->lhs_buffer,
                  .rhs = t->rhs_buffer,
                  .c = t->output_buffer,
                  .out = t->output_buffer,
                  .workspace = t->workspace};
  return planGemm(b, v, config, false, &s, 0, 0, XLA__BLAS_LT_EPILOGUE_PROTO__EPILOGUE_DEFAULT);
}

static const char *unrunSlice(const Xla__Gpu__CublasLtMatmulThunkProto *t) {
  return t->a_scale       ? "an a_scale (fp8)"
         : t->b_scale     ? "a b_scale (fp8)"
         : t->c_scale     ? "a c_scale (fp8)"
         : t->d_scale     ? "a d_scale (fp8)"
         : t->d_amax      ? "a d_amax (fp8)"
         : t->group_sizes ? "group_sizes"
                          : NULL;
}

bool thunkyPlanCublasLtThunk(Builder *b, CommandVec *v,
                             const Xla__Gpu__CublasLtMatmulThunkProto *t) {
  if (t->impl_case != XLA__GPU__CUBLAS_LT_MATMUL_THUNK_PROTO__IMPL_GEMM_CONFIG)
    return thunkyPlanRefuse(b, v, "a grouped gemm config");
  const char *slice = unrunSlice(t);
  if (slice)
    return thunkyPlanRefuse(b, v, "%s", slice);
  if (t->algorithm_idx < 0 || t->algorithm_idx >= XLA_NUM_ALGORITHMS)
    return fail(b, "cublas_lt_matmul_thunk: algorithm_idx %" PRId64 " is outside XLA's %d",
                t->algorithm_idx, XLA_NUM_ALGORITHMS);
  if (t->autotune_workspace_size < 0)
    return fail(b, "cublas_lt_matmul_thunk: negative autotune_workspace_size");
  GemmSlices s = {.lhs = t->a ? t->a->slice : NULL,
                  .rhs = t->b ? t->b->slice : NULL,
                  .c = t->c ? t->c->slice : NULL,
                  .out = t->d ? t->d->slice : NULL,
                  .workspace = t->workspace ? t->workspace->slice : NULL,
                  .bias = t->bias ? t->bias->slice : NULL,
                  .aux = t->aux ? t->aux->slice : NULL,
                  .biasType = t->bias && t->bias->shape ? t->bias->shape->element_type : 0};
  return planGemm(b, v, t->gemm_config, true, &s, (uint32_t)t->algorithm_idx,
                  (uint64_t)t->autotune_workspace_size, t->epilogue);
}
