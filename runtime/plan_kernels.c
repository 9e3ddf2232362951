/*===- plan_kernels.c - kernels, custom calls and GEMMs as commands ---===*/
#include "plan_builder.h"

#include "thunky-c/ElementTypes.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t dim(const StreamExecutor__Dim3DProto *d, int axis) {
  int64_t v = !d ? 1 : axis == 0 ? d->x : axis == 1 ? d->y : d->z;
  return v > 0 && v <= UINT32_MAX ? (uint32_t)v : 1;
}

/* The binary holding a kernel: one entry per distinct binary, found by the
 * hash of its bytes (two binaries of one hash both get entries). */
static bool binaryIndex(Builder *b, const void *data, size_t size, bool isPtx, uint32_t *out) {
  uint64_t key = thunkyHashBytes(data, size) ^ isPtx;
  uint32_t i;
  if (thunkyHashMapGet(&b->binaryIndex, key, &i)) {
    ThunkyPlanBinary *bin = &b->plan->binaries[i];
    if (bin->isPtx == isPtx && bin->bytes.size == size && !memcmp(bin->bytes.data, data, size)) {
      *out = i;
      return true;
    }
  }
  ThunkyPlanBinary *bin = thunkyPlanPush(&b->binaries);
  if (!bin || !thunkyHashMapPut(&b->binaryIndex, key, b->plan->numBinaries - 1))
    return thunkyErrorf(b->error, "out of memory");
  *out = b->plan->numBinaries - 1;
  bin->isPtx = isPtx;
  return thunkyPlanKeepBytes(b, data, size, &bin->bytes);
}

/* `binary` is an index into plan->binaries (UINT32_MAX: none). */
static bool addKernel(Builder *b, CommandVec *v, const char *name, uint32_t binary,
                      ThunkyRange args, const StreamExecutor__Dim3DProto *grid,
                      const StreamExecutor__Dim3DProto *block, int64_t sharedBytes) {
  ThunkyCommand *c = thunkyPlanEmit(b, v, THUNKY_CMD_KERNEL);
  if (!c)
    return false;
  if (!name || !*name)
    return fail(b, "kernel without a name");
  if (sharedBytes < 0 || sharedBytes > UINT32_MAX)
    return fail(b, "kernel asks for %" PRId64 " bytes of shared memory", sharedBytes);
  ThunkyPlanKernel *k = thunkyPlanPush(&b->kernels);
  if (!k)
    return thunkyErrorf(b->error, "out of memory");
  c->kernel.kernel = b->plan->numKernels - 1;
  c->kernel.args = args;
  for (int i = 0; i < 3; i++)
    c->kernel.grid[i] = dim(grid, i), c->kernel.block[i] = dim(block, i);
  c->kernel.sharedBytes = (uint32_t)sharedBytes;
  k->binary = binary;
  return thunkyPlanKeepString(b, name, &k->name);
}

bool thunkyPlanKernelThunk(Builder *b, CommandVec *v, const Xla__Gpu__KernelThunkProto *k) {
  ThunkyRange args;
  const Executable *exe = b->exe;
  if (!thunkyPlanSliceRange(b, k->n_args, (const SliceProto *const *)k->args, "argument", &args))
    return false;
  /* The executable's own module, its cubin else its PTX, entered once:
   * hashing it for every launch would cost launches times its size. */
  if (b->moduleBinary == UINT32_MAX) {
    bool hasCubin = exe->has_binary && exe->binary.len;
    const void *binary = hasCubin ? (const void *)exe->binary.data : exe->asm_text;
    size_t size = hasCubin ? exe->binary.len : exe->asm_text ? strlen(exe->asm_text) : 0;
    if (size && !binaryIndex(b, binary, size, !hasCubin, &b->moduleBinary))
      return false;
  }
  const Xla__Gpu__LaunchDimensionsProto *l = k->launch_dimensions;
  return addKernel(b, v, k->kernel_name, b->moduleBinary, args,
                   l && l->block_counts ? l->block_counts->coordinates : NULL,
                   l && l->thread_counts_per_block ? l->thread_counts_per_block->coordinates
                                                   : NULL,
                   k->shmem_bytes);
}

bool thunkyPlanCustomKernelThunk(Builder *b, CommandVec *v,
                                 const Xla__Gpu__CustomKernelThunkProto *k) {
  const Xla__Gpu__CustomKernelProto *ck = k->custom_kernel;
  if (!ck)
    return fail(b, "custom kernel thunk without its kernel");
  ThunkyRange args = {*b->slices.count, (uint32_t)k->n_args};
  for (size_t i = 0; i < k->n_args; i++) {
    ThunkyPlanSlice *s = thunkyPlanPush(&b->slices);
    if (!s)
      return thunkyErrorf(b->error, "out of memory");
    if (!thunkyPlanShapedSliceOf(b, k->args[i], "argument", s))
      return false;
  }
  const StreamExecutor__KernelLoaderSpecProto *spec = ck->kernel_spec;
  const void *binary = NULL;
  size_t size = 0;
  bool isPtx = false;
  if (spec && spec->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_CUBIN &&
      spec->cubin)
    binary = spec->cubin->data.data, size = spec->cubin->data.len;
  else if (spec && spec->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_PTX &&
           spec->ptx && spec->ptx->data)
    binary = spec->ptx->data, size = strlen(spec->ptx->data), isPtx = true;
  const char *name = spec && spec->kernel_name && *spec->kernel_name ? spec->kernel_name : ck->name;
  uint32_t index = UINT32_MAX;
  if (size && !binaryIndex(b, binary, size, isPtx, &index))
    return false;
  return addKernel(b, v, name, index, args,
                   ck->block_dims ? ck->block_dims->coordinates : NULL,
                   ck->thread_dims ? ck->thread_dims->coordinates : NULL,
                   ck->shared_memory_bytes);
}

static bool nullableRange(Builder *b, size_t n, Xla__NullableShapedSliceProto *const *in,
                          const char *what, ThunkyRange *range) {
  const SliceProto **slices = calloc(n + 1, sizeof *slices);
  if (!slices)
    return thunkyErrorf(b->error, "out of memory");
  for (size_t i = 0; i < n; i++)
    slices[i] = in[i] && in[i]->shaped_slice ? in[i]->shaped_slice->slice : NULL;
  bool ok = thunkyPlanSliceRange(b, n, slices, what, range);
  free(slices);
  return ok;
}

bool thunkyPlanCustomCallThunk(Builder *b, CommandVec *v,
                               const Xla__Gpu__CustomCallThunkProto *cc) {
  ThunkyCommand *c = thunkyPlanEmit(b, v, THUNKY_CMD_CUSTOM_CALL);
  ThunkyPlanCustomCall *call = c ? thunkyPlanPush(&b->customCalls) : NULL;
  if (!call)
    return c ? thunkyErrorf(b->error, "out of memory") : false;
  c->customCall.call = b->plan->numCustomCalls - 1;
  call->apiVersion = cc->has_api_version ? (int32_t)cc->api_version : 0;
  if (!cc->target_name || !*cc->target_name)
    return fail(b, "custom call without a target name");
  bool ok =
      nullableRange(b, cc->n_operands, cc->operands, "operand", &c->customCall.operands) &&
      nullableRange(b, cc->n_results, cc->results, "result", &c->customCall.results) &&
      thunkyPlanKeepString(b, cc->target_name, &call->target) &&
      thunkyPlanKeepBytes(b, cc->opaque.data, cc->has_opaque ? cc->opaque.len : 0, &call->opaque);
  if (ok && cc->attributes) {
    size_t size = protobuf_c_message_get_packed_size(&cc->attributes->base);
    uint8_t *bytes = malloc(size + 1);
    if (!bytes)
      return thunkyErrorf(b->error, "out of memory");
    protobuf_c_message_pack(&cc->attributes->base, bytes);
    ok = thunkyPlanKeepBytes(b, bytes, size, &call->attributes);
    free(bytes);
  }
  return ok;
}

static bool matrixLayout(Builder *b, const Xla__GemmConfigProto__MatrixLayout *l,
                         const char *what, ThunkyMatrixLayout *out) {
  if (!l || l->num_rows < 0 || l->num_cols < 0 || l->batch_size < 0 ||
      l->leading_dim_stride < 0 || l->batch_stride < 0)
    return fail(b, "gemm: the %s layout is missing or negative", what);
  *out = (ThunkyMatrixLayout){
      .rowMajor = l->order == XLA__GEMM_CONFIG_PROTO__MATRIX_LAYOUT__ORDER__ORDER_ROW_MAJOR,
      .transposed = l->transpose != XLA__BLAS_TRANSPOSE_PROTO__BLAS_NO_TRANSPOSE,
      .rows = (uint64_t)l->num_rows,
      .cols = (uint64_t)l->num_cols,
      .batch = l->batch_size ? (uint64_t)l->batch_size : 1,
      .leadingStride = (uint64_t)l->leading_dim_stride,
      .batchStride = (uint64_t)l->batch_stride};
  return true;
}

/* The last element a layout reaches must lie inside its slice. */
static bool layoutFits(Builder *b, const ThunkyMatrixLayout *l, ThunkyPlanSlice s,
                       uint32_t elementBytes, const char *what) {
  if (!l->rows || !l->cols)
    return true;
  uint64_t inner = l->rowMajor ? l->cols : l->rows, outer = l->rowMajor ? l->rows : l->cols;
  if (l->leadingStride < inner)
    return fail(b, "gemm: %s leading stride %" PRIu64 " is less than %" PRIu64, what,
                l->leadingStride, inner);
  __uint128_t last = (__uint128_t)(l->batch - 1) * l->batchStride +
                     (__uint128_t)(outer - 1) * l->leadingStride + inner;
  if (last * elementBytes > s.size)
    return fail(b, "gemm: %s reaches past its %" PRIu64 "-byte slice", what, s.size);
  return true;
}

bool thunkyPlanGemm(Builder *b, CommandVec *v, const Xla__GemmConfigProto *config,
                    const SliceProto *lhs, const SliceProto *rhs, const SliceProto *out,
                    const SliceProto *workspace) {
  ThunkyCommand *c = thunkyPlanEmit(b, v, THUNKY_CMD_GEMM);
  ThunkyPlanGemm *g = c ? thunkyPlanPush(&b->gemms) : NULL;
  if (!g)
    return c ? thunkyErrorf(b->error, "out of memory") : false;
  c->gemm.gemm = b->plan->numGemms - 1;
  if (!config)
    return fail(b, "gemm without its configuration");
  if (!thunkyPlanSliceOf(b, lhs, "lhs", &g->lhs) || !thunkyPlanSliceOf(b, rhs, "rhs", &g->rhs) ||
      !thunkyPlanSliceOf(b, out, "output", &g->out) ||
      (workspace && !thunkyPlanSliceOf(b, workspace, "workspace", &g->workspace)) ||
      !matrixLayout(b, config->lhs_layout, "lhs", &g->lhsLayout) ||
      !matrixLayout(b, config->rhs_layout, "rhs", &g->rhsLayout) ||
      !matrixLayout(b, config->output_layout, "output", &g->outLayout))
    return false;
  g->elementType = config->output_layout->dtype;
  g->alphaReal = config->alpha_real, g->alphaImag = config->alpha_imag, g->beta = config->beta;
  uint32_t bytes = thunkyElementBytes(g->elementType);
  if (!bytes)
    return fail(b, "gemm: unsupported element type %d", g->elementType);
  return layoutFits(b, &g->lhsLayout, g->lhs, bytes, "lhs") &&
         layoutFits(b, &g->rhsLayout, g->rhs, bytes, "rhs") &&
         layoutFits(b, &g->outLayout, g->out, bytes, "output");
}
