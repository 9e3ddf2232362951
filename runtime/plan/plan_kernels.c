/*===- plan_kernels.c - kernels and custom calls as commands ----------===*/
#include "plan_builder.h"

#include "thunky-c/base/ElementTypes.h"
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
  if (b->replayOnly) {
    *out = UINT32_MAX; /* no code: a replay launches nothing */
    return true;
  }
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

/* What the two kernel thunks share: everything a launch needs. */
typedef struct Launch {
  const char *name;
  uint32_t binary; /* plan->binaries; UINT32_MAX: none */
  ThunkyRange args;
  const StreamExecutor__Dim3DProto *grid, *block, *cluster;
  int64_t sharedBytes;
  size_t numZeroed;
  const int64_t *zeroed;
  const StreamExecutor__Gpu__TmaMetadataProto *tma;
  const StreamExecutor__KernelLoaderSpecProto *spec; /* a custom kernel's, or NULL */
} Launch;

/* XLA zeroes these arguments on the kernel's stream before every launch
 * (kernel_thunk.cc, custom_kernel_thunk.cc: ExecuteOnStream), so a kernel
 * may accumulate into them. */
static bool zeroOutputs(Builder *b, CommandVec *v, const Launch *l) {
  for (size_t i = 0; i < l->numZeroed; i++) {
    int64_t index = l->zeroed[i];
    if (index < 0 || index >= l->args.count)
      return fail(b, "zeroed output buffer index %" PRId64 " is out of range: %u arguments",
                  index, l->args.count);
    ThunkyCommand *c = thunkyPlanEmit(b, v, THUNKY_CMD_MEMZERO);
    if (!c)
      return false;
    c->memzero.dst = b->plan->slices[l->args.first + (uint32_t)index];
  }
  return true;
}

/* One parameter of a packing spec, as XLA's KernelArgPackingSpec::FromProto
 * and BuildArgument read it (stream_executor/kernel_args_packing_spec.cc):
 * constant bytes, or exactly one relocation, the argument's address. */
static bool packParam(Builder *b, const StreamExecutor__KernelArgPackingSpecProto *in, size_t i,
                      ThunkyRange args) {
  ThunkyPlanParam *p = thunkyPlanPush(&b->params);
  if (!p)
    return thunkyErrorf(b->error, "out of memory");
  p->slice = UINT32_MAX;
  size_t bytes = in && in->has_data ? in->data.len : 0;
  size_t relocations = in ? in->n_relocations : 0;
  if (relocations > 1 || (relocations && bytes) || (!relocations && !bytes))
    return fail(b, "kernel parameter %zu of the packing spec has %zu relocations and %zu "
                   "constant bytes; XLA takes one relocation or some bytes", i, relocations,
                bytes);
  if (bytes)
    return thunkyPlanKeepBytes(b, in->data.data, bytes, &p->bytes);
  const StreamExecutor__KernelArgPackingRelocationProto *r = in->relocations[0];
  int kind = r ? (int)r->kind : 0;
  int32_t index = r ? r->argument_index : -1;
  if (kind != STREAM_EXECUTOR__KERNEL_ARG_PACKING_RELOCATION_PROTO__KIND__KIND_BITS64_ABSOLUTE)
    return fail(b, "kernel parameter %zu of the packing spec has relocation kind %d; only "
                   "KIND_BITS64_ABSOLUTE is known", i, kind);
  if (index < 0 || (uint32_t)index >= args.count)
    return fail(b, "kernel parameter %zu of the packing spec relocates argument %d of %u", i,
                index, args.count);
  p->slice = args.first + (uint32_t)index;
  return true;
}

/* A custom kernel's parameters: the packing spec's, else one pointer per
 * argument; either way as many as the spec's arity says the kernel takes,
 * which XLA checks (cuda_kernel.cc: CudaKernel::Launch). */
static bool packParams(Builder *b, const Launch *l, ThunkyPlanKernel *k) {
  const StreamExecutor__KernelLoaderSpecProto *spec = l->spec;
  const StreamExecutor__KernelArgsPackingSpecProto *packing =
      spec ? spec->kernel_args_packing_spec : NULL;
  size_t count = packing ? packing->n_kernel_arguments : l->args.count;
  if (spec && spec->has_arity && spec->arity > 0 && (size_t)spec->arity != count)
    return fail(b, "the custom kernel takes %d parameters and is given %zu%s", spec->arity,
                count, packing ? " by its packing spec" : " arguments");
  if (!packing)
    return true;
  if (count > UINT32_MAX - *b->params.count)
    return fail(b, "too many kernel parameters");
  k->packed = true;
  k->params = (ThunkyRange){*b->params.count, (uint32_t)count};
  for (size_t i = 0; i < count; i++)
    if (!packParam(b, packing->kernel_arguments[i], i, l->args))
      return false;
  return true;
}

/* XLA launches with the dimensions as written: a missing one is 0, and a
 * launch of 0 blocks or threads fails (LaunchDimensions::FromProto, then
 * cuLaunchKernel), so the plan refuses what XLA would fail on. */
static bool checkDims(Builder *b, const char *what, const StreamExecutor__Dim3DProto *d) {
  static const char axes[] = "xyz";
  for (int axis = 0; axis < 3; axis++) {
    int64_t n = !d ? 0 : axis == 0 ? d->x : axis == 1 ? d->y : d->z;
    if (n < 1 || n > UINT32_MAX)
      return fail(b, "%s %c is %" PRId64 "%s: XLA's launch would fail (1 to 4294967295)", what,
                  axes[axis], n, d ? "" : " (no launch dimensions)");
  }
  return true;
}

static bool addKernel(Builder *b, CommandVec *v, const Launch *l) {
  if (!l->name || !*l->name)
    return fail(b, "kernel without a name");
  if (!checkDims(b, "block count", l->grid) || !checkDims(b, "threads per block", l->block))
    return false;
  if (l->sharedBytes < 0 || l->sharedBytes > UINT32_MAX)
    return fail(b, "kernel asks for %" PRId64 " bytes of shared memory", l->sharedBytes);
  if (!zeroOutputs(b, v, l))
    return false;
  /* XLA's autotuner picks Triton kernels that take TMA descriptors on
   * Hopper whenever they are faster. */
  ThunkyPlanKernel kernel = {.binary = l->binary};
  uint32_t tmas = b->plan->numTmas;
  if (!thunkyPlanTmas(b, l->tma, l->args.count, &kernel.tmas)) {
    if (!b->malformed)
      return false;
    b->malformed = false, b->plan->numTmas = tmas;
    return thunkyPlanRefuse(b, v, "%s", b->whyMalformed);
  }
  for (int i = 0; i < 3; i++)
    kernel.cluster[i] = dim(l->cluster, i);
  if (!packParams(b, l, &kernel) || !thunkyPlanKeepString(b, l->name, &kernel.name))
    return false;
  ThunkyCommand *c = thunkyPlanEmit(b, v, THUNKY_CMD_KERNEL);
  ThunkyPlanKernel *k = c ? thunkyPlanPush(&b->kernels) : NULL;
  if (!k)
    return c ? thunkyErrorf(b->error, "out of memory") : false;
  *k = kernel;
  c->kernel.kernel = b->plan->numKernels - 1;
  c->kernel.args = l->args;
  for (int i = 0; i < 3; i++)
    c->kernel.grid[i] = dim(l->grid, i), c->kernel.block[i] = dim(l->block, i);
  c->kernel.sharedBytes = (uint32_t)l->sharedBytes;
  return true;
}

static const StreamExecutor__Dim3DProto *clusterOf(const StreamExecutor__ClusterDimProto *c) {
  return c ? c->coordinates : NULL;
}

/* use_pdl is not read: it only lets a launch overlap the previous kernel's
 * tail, and without it griddepcontrol waits are no-ops (docs/runtime.md). */
bool thunkyPlanKernelThunk(Builder *b, CommandVec *v, const Xla__Gpu__KernelThunkProto *k) {
  ThunkyRange args;
  const Executable *exe = b->exe;
  if (!thunkyPlanSliceRange(b, k->n_args, (const SliceProto *const *)k->args, "argument", &args))
    return false;
  /* The executable's own module, its cubin else its PTX, entered once:
   * hashing it for every launch would cost launches times its size. */
  if (b->moduleBinary == UINT32_MAX) {
    bool hasCubin = exe->has_binary && exe->binary.len;
    const ProtobufCBinaryData *code = hasCubin ? &exe->binary : &exe->asm_text;
    const void *binary = code->data;
    size_t size = hasCubin || exe->has_asm_text ? code->len : 0;
    if (size && !binaryIndex(b, binary, size, !hasCubin, &b->moduleBinary))
      return false;
  }
  const Xla__Gpu__LaunchDimensionsProto *d = k->launch_dimensions;
  Launch l = {
      .name = k->kernel_name,
      .binary = b->moduleBinary,
      .args = args,
      .grid = d && d->block_counts ? d->block_counts->coordinates : NULL,
      .block = d && d->thread_counts_per_block ? d->thread_counts_per_block->coordinates : NULL,
      .cluster = clusterOf(k->cluster_dim),
      .sharedBytes = k->shmem_bytes,
      .numZeroed = k->n_zeroed_output_buffer_indices,
      .zeroed = k->zeroed_output_buffer_indices,
      .tma = k->tma_metadata};
  return addKernel(b, v, &l);
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
  const StreamExecutor__KernelLoaderSpecProto *spec = thunkyCustomKernelSpec(b->model, ck);
  const void *binary = NULL;
  size_t size = 0;
  bool isPtx = false;
  if (spec && spec->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_CUBIN &&
      spec->cubin)
    binary = spec->cubin->data.data, size = spec->cubin->data.len;
  else if (spec && spec->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_PTX &&
           spec->ptx && spec->ptx->has_data)
    binary = spec->ptx->data.data, size = spec->ptx->data.len, isPtx = true;
  uint32_t index = UINT32_MAX;
  if (size && !binaryIndex(b, binary, size, isPtx, &index))
    return false;
  Launch l = {
      .name = spec && spec->kernel_name && *spec->kernel_name ? spec->kernel_name : ck->name,
      .binary = index,
      .args = args,
      .grid = ck->block_dims ? ck->block_dims->coordinates : NULL,
      .block = ck->thread_dims ? ck->thread_dims->coordinates : NULL,
      .cluster = clusterOf(ck->cluster_dim),
      .sharedBytes = ck->shared_memory_bytes,
      .numZeroed = k->n_zeroed_output_buffer_indices,
      .zeroed = k->zeroed_output_buffer_indices,
      .tma = k->tma_metadata,
      .spec = spec};
  return addKernel(b, v, &l);
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
