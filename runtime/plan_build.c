/*===- plan_build.c - from a GpuExecutableProto to a plan ------------------===*
 *
 * One pass over the thunks, depth first. A list's commands are gathered in a
 * temporary vector and appended to the plan when the list is complete, so
 * every list is one contiguous range even though lists nest; the entry list
 * keeps index 0. Every slice is checked against its allocation here, so
 * backends trust what they are given.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/Plan.h"

#include "thunky-c/Executable.h"
#include "thunky-c/HashMap.h"

#include "xla/backends/gpu/runtime/thunk.pb-c.h"
#include "xla/service/gpu/gpu_executable.pb-c.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef Xla__Gpu__ThunkProto Thunk;
typedef Xla__Gpu__GpuExecutableProto Executable;
typedef Xla__BufferAssignment__BufferAllocationSliceProto SliceProto;

/* The plan's arrays while they grow. */
typedef struct {
  void **items;
  uint32_t *count;
  uint32_t capacity;
  size_t size;
} Vec;

typedef struct {
  ThunkyCommand *items;
  uint32_t count, capacity;
} CommandVec;

typedef struct {
  ThunkyPlan *plan;
  const ThunkyExecutable *model; /* checked: every slice lies in its allocation */
  const Executable *exe;
  ThunkyError *error;
  Vec commands, lists, slices, collectives, collectiveBuffers, groups, ids, kernels,
      binaries, customCalls, gemms, thunks;
  void **owned; /* copies of bytes the plan keeps */
  size_t numOwned, ownedCapacity;
  ThunkyHashMap binaryIndex; /* hash of a binary's bytes -> plan->binaries */
  uint32_t currentThunk;
} Builder;

/* Puts the current thunk's name in front of the message just set. */
static bool inThunk(Builder *b) {
  char name[160];
  thunkyPlanThunkName(b->plan, b->currentThunk, name, sizeof name);
  return thunkyErrorContext(b->error, "%s", name);
}
#define fail(b, ...) (thunkyErrorf((b)->error, __VA_ARGS__), inThunk(b))

/* Appends one zeroed element to a vector; NULL when out of memory. */
static void *push(Vec *v) {
  if (*v->count == v->capacity) {
    uint32_t capacity = v->capacity ? v->capacity * 2 : 16;
    void *grown = realloc(*v->items, (size_t)capacity * v->size);
    if (!grown)
      return NULL;
    *v->items = grown;
    v->capacity = capacity;
  }
  void *item = (char *)*v->items + (size_t)(*v->count)++ * v->size;
  memset(item, 0, v->size);
  return item;
}

/* A copy of data[0, size) owned by the plan. */
static bool keepBytes(Builder *b, const void *data, size_t size, ThunkyBytes *out) {
  if (b->numOwned == b->ownedCapacity) {
    size_t capacity = b->ownedCapacity ? b->ownedCapacity * 2 : 32;
    void **grown = realloc(b->owned, capacity * sizeof *grown);
    if (!grown)
      return thunkyErrorf(b->error, "out of memory");
    b->owned = grown, b->ownedCapacity = capacity;
  }
  uint8_t *copy = malloc(size + 1);
  if (!copy)
    return thunkyErrorf(b->error, "out of memory");
  if (size)
    memcpy(copy, data, size);
  copy[size] = 0; /* names and PTX are used as C strings */
  b->owned[b->numOwned++] = copy;
  *out = (ThunkyBytes){copy, size};
  return true;
}

static bool keepString(Builder *b, const char *s, ThunkyBytes *out) {
  return keepBytes(b, s ? s : "", s ? strlen(s) : 0, out);
}

/*--- slices ------------------------------------------------------------------*/

/* The model checked that every slice lies within its allocation. */
static bool slice(Builder *b, const SliceProto *s, const char *what, ThunkyPlanSlice *out) {
  if (!s)
    return fail(b, "%s has no slice", what);
  *out = (ThunkyPlanSlice){(uint32_t)s->buffer_allocation_index, (uint64_t)s->offset,
                           (uint64_t)s->size};
  return true;
}

static bool shapedSlice(Builder *b, const Xla__ShapedSliceProto *s, const char *what,
                        ThunkyPlanSlice *out) {
  return slice(b, s ? s->slice : NULL, what, out);
}

/* Appends slices to plan->slices; a NULL entry is a null operand (size 0). */
static bool sliceRange(Builder *b, size_t n, const SliceProto *const *slices,
                       const char *what, ThunkyRange *range) {
  range->first = *b->slices.count;
  range->count = (uint32_t)n;
  for (size_t i = 0; i < n; i++) {
    ThunkyPlanSlice *s = push(&b->slices);
    if (!s)
      return thunkyErrorf(b->error, "out of memory");
    if (slices[i])
      slice(b, slices[i], what, s); /* not NULL: cannot fail */
  }
  return true;
}

/*--- thunks ------------------------------------------------------------------*/

static bool buildList(Builder *b, size_t n, Thunk *const *thunks, uint32_t *list);
static bool addThunk(Builder *b, CommandVec *v, const Thunk *t);

static ThunkyCommand *emit(Builder *b, CommandVec *v, ThunkyCommandKind kind) {
  if (v->count == v->capacity) {
    uint32_t capacity = v->capacity ? v->capacity * 2 : 16;
    ThunkyCommand *grown = realloc(v->items, capacity * sizeof *grown);
    if (!grown) {
      thunkyErrorf(b->error, "out of memory");
      return NULL;
    }
    v->items = grown, v->capacity = capacity;
  }
  ThunkyCommand *c = &v->items[v->count++];
  memset(c, 0, sizeof *c);
  c->kind = (uint8_t)kind;
  c->thunk = b->currentThunk;
  return c;
}

static bool copyThunk(Builder *b, CommandVec *v, const Xla__Gpu__CopyThunkProto *copy,
                      ThunkyCopyDirection direction) {
  ThunkyCommand *c = emit(b, v, THUNKY_CMD_COPY);
  if (!c || !copy)
    return c ? fail(b, "copy thunk without its copy") : false;
  if (!shapedSlice(b, copy->source_buffer, "source", &c->copy.src) ||
      !shapedSlice(b, copy->destination_buffer, "destination", &c->copy.dst))
    return false;
  uint64_t size = (uint64_t)copy->mem_size;
  if (copy->mem_size < 0 || size > c->copy.src.size || size > c->copy.dst.size)
    return fail(b, "copies %" PRId64 " bytes between slices of %" PRIu64 " and %" PRIu64,
                copy->mem_size, c->copy.src.size, c->copy.dst.size);
  c->copy.src.size = c->copy.dst.size = size;
  c->copy.direction = (uint8_t)direction;
  return true;
}

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
  ThunkyPlanBinary *bin = push(&b->binaries);
  if (!bin || !thunkyHashMapPut(&b->binaryIndex, key, b->plan->numBinaries - 1))
    return thunkyErrorf(b->error, "out of memory");
  *out = b->plan->numBinaries - 1;
  bin->isPtx = isPtx;
  return keepBytes(b, data, size, &bin->bytes);
}

static bool addKernel(Builder *b, CommandVec *v, const char *name, const void *binary,
                      size_t binarySize, bool isPtx, ThunkyRange args,
                      const StreamExecutor__Dim3DProto *grid,
                      const StreamExecutor__Dim3DProto *block, int64_t sharedBytes) {
  ThunkyCommand *c = emit(b, v, THUNKY_CMD_KERNEL);
  if (!c)
    return false;
  if (!name || !*name)
    return fail(b, "kernel without a name");
  if (sharedBytes < 0 || sharedBytes > UINT32_MAX)
    return fail(b, "kernel asks for %" PRId64 " bytes of shared memory", sharedBytes);
  ThunkyPlanKernel *k = push(&b->kernels);
  if (!k)
    return thunkyErrorf(b->error, "out of memory");
  c->kernel.kernel = b->plan->numKernels - 1;
  c->kernel.args = args;
  for (int i = 0; i < 3; i++)
    c->kernel.grid[i] = dim(grid, i), c->kernel.block[i] = dim(block, i);
  c->kernel.sharedBytes = (uint32_t)sharedBytes;
  k->binary = UINT32_MAX;
  if (binarySize && !binaryIndex(b, binary, binarySize, isPtx, &k->binary))
    return false;
  return keepString(b, name, &k->name);
}

static bool kernelThunk(Builder *b, CommandVec *v, const Xla__Gpu__KernelThunkProto *k) {
  ThunkyRange args;
  const Executable *exe = b->exe;
  if (!sliceRange(b, k->n_args, (const SliceProto *const *)k->args, "argument", &args))
    return false;
  /* The executable's own module: its cubin, else its PTX. */
  bool hasCubin = exe->has_binary && exe->binary.len;
  const void *binary = hasCubin ? (const void *)exe->binary.data : exe->asm_text;
  size_t size = hasCubin ? exe->binary.len : exe->asm_text ? strlen(exe->asm_text) : 0;
  const Xla__Gpu__LaunchDimensionsProto *l = k->launch_dimensions;
  return addKernel(b, v, k->kernel_name, binary, size, !hasCubin, args,
                   l && l->block_counts ? l->block_counts->coordinates : NULL,
                   l && l->thread_counts_per_block ? l->thread_counts_per_block->coordinates
                                                   : NULL,
                   k->shmem_bytes);
}

static bool customKernelThunk(Builder *b, CommandVec *v,
                              const Xla__Gpu__CustomKernelThunkProto *k) {
  const Xla__Gpu__CustomKernelProto *ck = k->custom_kernel;
  if (!ck)
    return fail(b, "custom kernel thunk without its kernel");
  ThunkyRange args = {*b->slices.count, (uint32_t)k->n_args};
  for (size_t i = 0; i < k->n_args; i++) {
    ThunkyPlanSlice *s = push(&b->slices);
    if (!s)
      return thunkyErrorf(b->error, "out of memory");
    if (!shapedSlice(b, k->args[i], "argument", s))
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
  return addKernel(b, v, name, binary, size, isPtx, args,
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
  bool ok = sliceRange(b, n, slices, what, range);
  free(slices);
  return ok;
}

static bool customCallThunk(Builder *b, CommandVec *v, const Xla__Gpu__CustomCallThunkProto *cc) {
  ThunkyCommand *c = emit(b, v, THUNKY_CMD_CUSTOM_CALL);
  ThunkyPlanCustomCall *call = c ? push(&b->customCalls) : NULL;
  if (!call)
    return c ? thunkyErrorf(b->error, "out of memory") : false;
  c->customCall.call = b->plan->numCustomCalls - 1;
  call->apiVersion = cc->has_api_version ? (int32_t)cc->api_version : 0;
  if (!cc->target_name || !*cc->target_name)
    return fail(b, "custom call without a target name");
  bool ok = nullableRange(b, cc->n_operands, cc->operands, "operand", &c->customCall.operands) &&
            nullableRange(b, cc->n_results, cc->results, "result", &c->customCall.results) &&
            keepString(b, cc->target_name, &call->target) &&
            keepBytes(b, cc->opaque.data, cc->has_opaque ? cc->opaque.len : 0, &call->opaque);
  if (ok && cc->attributes) {
    size_t size = protobuf_c_message_get_packed_size(&cc->attributes->base);
    uint8_t *bytes = malloc(size + 1);
    if (!bytes)
      return thunkyErrorf(b->error, "out of memory");
    protobuf_c_message_pack(&cc->attributes->base, bytes);
    ok = keepBytes(b, bytes, size, &call->attributes);
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

static bool gemm(Builder *b, CommandVec *v, const Xla__GemmConfigProto *config,
                 const SliceProto *lhs, const SliceProto *rhs, const SliceProto *out,
                 const SliceProto *workspace) {
  ThunkyCommand *c = emit(b, v, THUNKY_CMD_GEMM);
  ThunkyPlanGemm *g = c ? push(&b->gemms) : NULL;
  if (!g)
    return c ? thunkyErrorf(b->error, "out of memory") : false;
  c->gemm.gemm = b->plan->numGemms - 1;
  if (!config)
    return fail(b, "gemm without its configuration");
  if (!slice(b, lhs, "lhs", &g->lhs) || !slice(b, rhs, "rhs", &g->rhs) ||
      !slice(b, out, "output", &g->out) ||
      (workspace && !slice(b, workspace, "workspace", &g->workspace)) ||
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

/*--- collectives ----------------------------------------------------------*/

static bool collective(Builder *b, CommandVec *v, ThunkyCollectiveKind kind,
                       const Xla__Gpu__CollectiveConfigProto *config, size_t n,
                       Xla__Gpu__CollectiveBufferProto *const *buffers, ThunkyCollective **out) {
  ThunkyCommand *c = emit(b, v, THUNKY_CMD_COLLECTIVE);
  ThunkyCollective *col = c ? push(&b->collectives) : NULL;
  if (!col)
    return c ? thunkyErrorf(b->error, "out of memory") : false;
  c->collective.collective = b->plan->numCollectives - 1;
  col->kind = (uint8_t)kind;
  col->groupMode = config ? (uint8_t)config->group_mode : 0;
  col->buffers = (ThunkyRange){*b->collectiveBuffers.count, (uint32_t)n};
  for (size_t i = 0; i < n; i++) {
    ThunkyCollectiveBuffer *buf = push(&b->collectiveBuffers);
    if (!buf)
      return thunkyErrorf(b->error, "out of memory");
    if (!shapedSlice(b, buffers[i]->source_buffer, "source", &buf->src) ||
        !shapedSlice(b, buffers[i]->destination_buffer, "destination", &buf->dst))
      return false;
    if (buffers[i]->element_count < 0)
      return fail(b, "buffer %zu has a negative element count", i);
    buf->elementCount = (uint64_t)buffers[i]->element_count;
    buf->elementType = config && i < config->n_operand_element_type
                           ? config->operand_element_type[i]
                           : 0;
  }
  col->groups = (ThunkyRange){*b->groups.count, config ? (uint32_t)config->n_replica_groups : 0};
  for (size_t g = 0; config && g < config->n_replica_groups; g++) {
    const Xla__ReplicaGroup *group = config->replica_groups[g];
    ThunkyRange *r = push(&b->groups);
    if (!r)
      return thunkyErrorf(b->error, "out of memory");
    r->first = *b->ids.count;
    r->count = (uint32_t)group->n_replica_ids;
    for (size_t i = 0; i < group->n_replica_ids; i++) {
      int64_t *id = push(&b->ids);
      if (!id)
        return thunkyErrorf(b->error, "out of memory");
      *id = group->replica_ids[i];
    }
  }
  *out = col;
  return true;
}

static bool collectiveThunk(Builder *b, CommandVec *v, const Thunk *t) {
  ThunkyCollective *c;
  switch (t->impl_case) {
  case XLA__GPU__THUNK_PROTO__IMPL_ALL_REDUCE_THUNK: {
    const Xla__Gpu__AllReduceThunkProto *p = t->all_reduce_thunk;
    if (!collective(b, v, THUNKY_COLLECTIVE_ALL_REDUCE, p->collective_config, p->n_buffers,
                    p->buffers, &c))
      return false;
    c->reduction = (uint8_t)p->reduction_kind;
    break;
  }
  case XLA__GPU__THUNK_PROTO__IMPL_REDUCE_SCATTER_THUNK: {
    const Xla__Gpu__ReduceScatterThunkProto *p = t->reduce_scatter_thunk;
    if (!collective(b, v, THUNKY_COLLECTIVE_REDUCE_SCATTER, p->collective_config, p->n_buffers,
                    p->buffers, &c))
      return false;
    c->reduction = (uint8_t)p->reduction_kind;
    break;
  }
  case XLA__GPU__THUNK_PROTO__IMPL_ALL_GATHER_THUNK: {
    const Xla__Gpu__AllGatherThunkProto *p = t->all_gather_thunk;
    return collective(b, v, THUNKY_COLLECTIVE_ALL_GATHER, p->collective_config, p->n_buffers,
                      p->buffers, &c);
  }
  case XLA__GPU__THUNK_PROTO__IMPL_ALL_TO_ALL_THUNK: {
    const Xla__Gpu__AllToAllThunkProto *p = t->all_to_all_thunk;
    if (!collective(b, v, THUNKY_COLLECTIVE_ALL_TO_ALL, p->collective_config, p->n_buffers,
                    p->buffers, &c))
      return false;
    c->splitDimension = p->has_split_dimension;
    break;
  }
  case XLA__GPU__THUNK_PROTO__IMPL_COLLECTIVE_BROADCAST_THUNK: {
    const Xla__Gpu__CollectiveBroadcastThunkProto *p = t->collective_broadcast_thunk;
    return collective(b, v, THUNKY_COLLECTIVE_BROADCAST, p->collective_config, p->n_buffers,
                      p->buffers, &c);
  }
  case XLA__GPU__THUNK_PROTO__IMPL_COLLECTIVE_PERMUTE_THUNK: {
    const Xla__Gpu__CollectivePermuteThunkProto *p = t->collective_permute_thunk;
    if (!collective(b, v, THUNKY_COLLECTIVE_PERMUTE, p->collective_config, p->n_buffers,
                    p->buffers, &c))
      return false;
    c->pairs = (ThunkyRange){*b->ids.count, 2 * (uint32_t)p->n_source_target_pairs};
    for (size_t i = 0; i < p->n_source_target_pairs; i++) {
      int64_t *pair = push(&b->ids), *target = pair ? push(&b->ids) : NULL;
      if (!target)
        return thunkyErrorf(b->error, "out of memory");
      /* push may move the array: store through fresh pointers */
      b->plan->ids[b->plan->numIds - 2] = p->source_target_pairs[i]->source;
      b->plan->ids[b->plan->numIds - 1] = p->source_target_pairs[i]->target;
    }
    break;
  }
  default:
    return fail(b, "not a collective");
  }
  return true;
}

/*--- control flow -------------------------------------------------------------*/

static bool sequence(Builder *b, const Xla__Gpu__ThunkSequenceProto *s, uint32_t *list) {
  return buildList(b, s ? s->n_thunks : 0, s ? s->thunks : NULL, list);
}

static bool conditionalThunk(Builder *b, CommandVec *v, const Xla__Gpu__ConditionalThunkProto *p) {
  ThunkyPlanSlice index;
  if (!shapedSlice(b, p->branch_index_buffer, "branch index", &index))
    return false;
  if (thunkyConditionalPredicate(p) == THUNKY_PREDICATE_NONE)
    return fail(b, "the branch index is %" PRIu64 " bytes for %zu branches: a pred for two (1) "
                   "or an s32 (4)", index.size, p->n_branch_thunks);
  uint32_t *lists = calloc(p->n_branch_thunks, sizeof *lists);
  if (!lists)
    return thunkyErrorf(b->error, "out of memory");
  bool ok = true;
  for (size_t i = 0; ok && i < p->n_branch_thunks; i++)
    ok = sequence(b, p->branch_thunks[i], &lists[i]);
  /* Nested lists complete first, so branches are not consecutive lists:
   * their indices go to plan->ids. */
  ThunkyCommand *c = ok ? emit(b, v, THUNKY_CMD_CONDITIONAL) : NULL;
  if (c) {
    c->conditional.index = index;
    c->conditional.branches = (ThunkyRange){*b->ids.count, (uint32_t)p->n_branch_thunks};
    for (size_t i = 0; ok && i < p->n_branch_thunks; i++) {
      int64_t *id = push(&b->ids);
      ok = id ? (*id = lists[i], true) : thunkyErrorf(b->error, "out of memory");
    }
  }
  free(lists);
  return ok && c;
}

static bool whileThunk(Builder *b, CommandVec *v, const Xla__Gpu__WhileThunkProto *p) {
  ThunkyPlanSlice predicate;
  uint32_t condition, body;
  if (!slice(b, p->condition_result_buffer_index, "condition result", &predicate) ||
      !sequence(b, p->condition_thunk_sequence, &condition) ||
      !sequence(b, p->body_thunk_sequence, &body))
    return false;
  if (thunkyWhilePredicate(p) == THUNKY_PREDICATE_NONE)
    return fail(b, "the condition result is %" PRIu64 " bytes: a pred (1, or 4 of which XLA "
                   "reads the first)", predicate.size);
  ThunkyCommand *c = emit(b, v, THUNKY_CMD_WHILE);
  if (!c)
    return false;
  predicate.size = 1; /* XLA reads one bool, whatever the slice's size */
  c->loop.predicate = predicate;
  c->loop.condition = condition, c->loop.body = body;
  c->loop.tripCount = p->has_trip_count ? p->trip_count : -1;
  return true;
}

static bool asyncStartThunk(Builder *b, CommandVec *v, const Xla__Gpu__AsyncStartThunkProto *p) {
  uint32_t slot, list;
  /* The model gave each started id a slot; a start must not reuse a slot
   * still in flight (checked by backends at run time, since control flow
   * decides). */
  if (!thunkyExecutableAsyncSlot(b->model, p->async_execution_id, &slot))
    return fail(b, "async start without a slot");
  if (!sequence(b, p->thunks, &list))
    return false;
  ThunkyCommand *c = emit(b, v, THUNKY_CMD_ASYNC_START);
  if (!c)
    return false;
  c->asyncStart.slot = slot, c->asyncStart.list = list;
  c->asyncStart.communication = p->execution_stream_id_case ==
      XLA__GPU__ASYNC_START_THUNK_PROTO__EXECUTION_STREAM_ID_COMMUNICATION_STREAM_ID;
  uint64_t stream = c->asyncStart.communication ? p->communication_stream_id
                                                : p->computation_stream_id;
  c->asyncStart.stream = stream > UINT32_MAX ? UINT32_MAX : (uint32_t)stream;
  return true;
}

/*--- one thunk ---------------------------------------------------------------*/

static bool idThunk(Builder *b, CommandVec *v, ThunkyCommandKind kind, const SliceProto *dst) {
  ThunkyCommand *c = emit(b, v, kind);
  if (!c || !slice(b, dst, "destination", &c->id.dst))
    return false;
  return c->id.dst.size == 4 ? true : fail(b, "the id destination is not 4 bytes");
}

/* Each thunk gets a number (its position in the whole executable, depth
 * first) and its profile annotation, for messages, profiles and traces. */
static bool nameThunk(Builder *b, const Thunk *t) {
  ThunkyBytes *name = push(&b->thunks);
  if (!name)
    return thunkyErrorf(b->error, "out of memory");
  b->currentThunk = b->plan->numThunks - 1;
  const char *annotation = t->thunk_info ? t->thunk_info->profile_annotation : NULL;
  return keepString(b, annotation, name);
}

static bool addThunk(Builder *b, CommandVec *v, const Thunk *t) {
  if (!nameThunk(b, t))
    return false;
  switch (t->impl_case) {
  case XLA__GPU__THUNK_PROTO__IMPL_SEQUENTIAL_THUNK:
    for (size_t i = 0; i < t->sequential_thunk->n_thunks; i++)
      if (!addThunk(b, v, t->sequential_thunk->thunks[i]))
        return false;
    return true;
  case XLA__GPU__THUNK_PROTO__IMPL_COPY_THUNK:
    return copyThunk(b, v, t->copy_thunk, THUNKY_COPY_DEVICE_TO_DEVICE);
  case XLA__GPU__THUNK_PROTO__IMPL_DEVICE_TO_DEVICE_COPY_THUNK:
    return copyThunk(b, v, t->device_to_device_copy_thunk->copy_thunk,
                     THUNKY_COPY_DEVICE_TO_DEVICE);
  case XLA__GPU__THUNK_PROTO__IMPL_DEVICE_TO_HOST_COPY_THUNK:
    return copyThunk(b, v, t->device_to_host_copy_thunk->copy_thunk, THUNKY_COPY_DEVICE_TO_HOST);
  case XLA__GPU__THUNK_PROTO__IMPL_HOST_TO_DEVICE_COPY_THUNK:
    return copyThunk(b, v, t->host_to_device_copy_thunk->copy_thunk, THUNKY_COPY_HOST_TO_DEVICE);
  case XLA__GPU__THUNK_PROTO__IMPL_MEMZERO_THUNK: {
    ThunkyCommand *c = emit(b, v, THUNKY_CMD_MEMZERO);
    return c && shapedSlice(b, t->memzero_thunk->dest_buffer, "destination", &c->memzero.dst);
  }
  case XLA__GPU__THUNK_PROTO__IMPL_MEMSET32BIT_VALUE_THUNK: {
    ThunkyCommand *c = emit(b, v, THUNKY_CMD_MEMSET32);
    if (!c || !slice(b, t->memset32bit_value_thunk->dest_buffer, "destination", &c->memset32.dst))
      return false;
    c->memset32.value = t->memset32bit_value_thunk->value;
    return c->memset32.dst.size % 4 == 0
               ? true
               : fail(b, "memset32 of %" PRIu64 " bytes, not a multiple of 4",
                      c->memset32.dst.size);
  }
  case XLA__GPU__THUNK_PROTO__IMPL_KERNEL_THUNK:
    return kernelThunk(b, v, t->kernel_thunk);
  case XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_KERNEL_THUNK:
    return customKernelThunk(b, v, t->custom_kernel_thunk);
  case XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_CALL_THUNK:
    return customCallThunk(b, v, t->custom_call_thunk);
  case XLA__GPU__THUNK_PROTO__IMPL_GEMM_THUNK: {
    const Xla__Gpu__GemmThunkProto *g = t->gemm_thunk;
    return gemm(b, v, g->gemm_config, g->lhs_buffer, g->rhs_buffer, g->output_buffer,
                g->workspace);
  }
  case XLA__GPU__THUNK_PROTO__IMPL_CUBLAS_LT_MATMUL_THUNK: {
    const Xla__Gpu__CublasLtMatmulThunkProto *g = t->cublas_lt_matmul_thunk;
    if (g->bias || g->aux || g->a_scale || g->b_scale || g->d_amax || g->group_sizes ||
        (g->epilogue != 0))
      return fail(b, "cuBLASLt matmul with an epilogue, bias or scales is not supported yet");
    if (g->impl_case != XLA__GPU__CUBLAS_LT_MATMUL_THUNK_PROTO__IMPL_GEMM_CONFIG)
      return fail(b, "grouped cuBLASLt matmul is not supported yet");
    return gemm(b, v, g->gemm_config, g->a ? g->a->slice : NULL, g->b ? g->b->slice : NULL,
                g->d ? g->d->slice : NULL, g->workspace ? g->workspace->slice : NULL);
  }
  case XLA__GPU__THUNK_PROTO__IMPL_CONDITIONAL_THUNK:
    return conditionalThunk(b, v, t->conditional_thunk);
  case XLA__GPU__THUNK_PROTO__IMPL_WHILE_THUNK:
    return whileThunk(b, v, t->while_thunk);
  case XLA__GPU__THUNK_PROTO__IMPL_ASYNC_START_THUNK:
    return asyncStartThunk(b, v, t->async_start_thunk);
  case XLA__GPU__THUNK_PROTO__IMPL_ASYNC_DONE_THUNK: {
    uint32_t slot;
    if (!thunkyExecutableAsyncSlot(b->model, t->async_done_thunk->async_execution_id, &slot))
      return fail(b, "async done without a start");
    ThunkyCommand *c = emit(b, v, THUNKY_CMD_ASYNC_DONE);
    return c ? (c->asyncDone.slot = slot, true) : false;
  }
  case XLA__GPU__THUNK_PROTO__IMPL_ALL_REDUCE_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_REDUCE_SCATTER_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_ALL_GATHER_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_ALL_TO_ALL_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_COLLECTIVE_BROADCAST_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_COLLECTIVE_PERMUTE_THUNK:
    return collectiveThunk(b, v, t);
  case XLA__GPU__THUNK_PROTO__IMPL_COLLECTIVE_GROUP_THUNK: {
    uint32_t list;
    const Xla__Gpu__CollectiveGroupThunkProto *g = t->collective_group_thunk;
    if (!buildList(b, g->n_thunks, g->thunks, &list))
      return false;
    ThunkyCommand *c = emit(b, v, THUNKY_CMD_COLLECTIVE_GROUP);
    return c ? (c->group.list = list, true) : false;
  }
  case XLA__GPU__THUNK_PROTO__IMPL_REPLICA_ID_THUNK:
    return idThunk(b, v, THUNKY_CMD_REPLICA_ID, t->replica_id_thunk->dest_buffer);
  case XLA__GPU__THUNK_PROTO__IMPL_PARTITION_ID_THUNK:
    return idThunk(b, v, THUNKY_CMD_PARTITION_ID, t->partition_id_thunk->dest_buffer);
  default: {
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(
        &xla__gpu__thunk_proto__descriptor, (unsigned)t->impl_case);
    return fail(b, "%s is not supported by the runtime yet", f ? f->name : "an unknown thunk");
  }
  }
}

/* Builds a list of thunks; the entry list (list == NULL) fills the range
 * reserved at index 0. */
static bool buildList(Builder *b, size_t n, Thunk *const *thunks, uint32_t *list) {
  uint32_t parent = b->currentThunk;
  CommandVec v = {0};
  bool ok = true;
  for (size_t i = 0; ok && i < n; i++)
    ok = addThunk(b, &v, thunks[i]);
  ThunkyRange *range = !ok ? NULL : list ? push(&b->lists) : &b->plan->lists[0];
  ok = ok && (range || thunkyErrorf(b->error, "out of memory"));
  if (ok) {
    range->first = *b->commands.count;
    range->count = v.count;
    if (list)
      *list = b->plan->numLists - 1;
    for (uint32_t i = 0; ok && i < v.count; i++) {
      ThunkyCommand *c = push(&b->commands);
      ok = c ? (*c = v.items[i], true) : thunkyErrorf(b->error, "out of memory");
    }
  }
  free(v.items);
  b->currentThunk = parent; /* what the caller emits next is its own thunk's */
  return ok;
}

/*--- allocations and the program's arrays -----------------------------------*/

static bool readAllocations(Builder *b) {
  const ThunkyExecutable *m = b->model;
  ThunkyPlan *p = b->plan;
  p->allocations = calloc(m->numAllocations + 1, sizeof *p->allocations);
  if (!p->allocations)
    return thunkyErrorf(b->error, "out of memory");
  p->numAllocations = m->numAllocations;
  for (uint32_t i = 0; i < m->numAllocations; i++) {
    const ThunkyExecutableAllocation *a = &m->allocations[i];
    p->allocations[i] = (ThunkyPlanAllocation){
        .size = a->size,
        .parameter = a->parameter,
        .isOutput = a->proto->maybe_live_out,
        .isThreadLocal = a->proto->is_thread_local};
  }
  for (uint32_t i = 0; i < m->numConstants; i++) {
    const ThunkyExecutableConstant *c = &m->constants[i];
    ThunkyPlanAllocation *a = &p->allocations[c->allocation];
    if (!keepBytes(b, c->bytes.data, c->bytes.size, &a->constant))
      return false;
    a->isConstant = true;
  }
  return true;
}

/* The array `shape` describes, living at the start of allocation `a`. */
static bool describeArray(Builder *b, const Xla__ShapeProto *shape, uint32_t a,
                          const char *what, ThunkyPlanArray *out) {
  uint64_t size = b->plan->allocations[a].size;
  *out = (ThunkyPlanArray){.slice = {a, 0, size}};
  if (!shape)
    return true; /* raw bytes: the whole allocation */
  uint32_t bytes = thunkyElementBytes(shape->element_type);
  if (!bytes || shape->n_tuple_shapes || shape->n_dimensions > 8)
    return thunkyErrorf(b->error, "%s: its shape is not an array of a whole-byte type", what);
  out->elementType = shape->element_type;
  out->rank = (uint32_t)shape->n_dimensions;
  __uint128_t total = bytes;
  for (size_t d = 0; d < shape->n_dimensions; d++) {
    if (shape->dimensions[d] < 0)
      return thunkyErrorf(b->error, "%s: dimension %zu is negative", what, d);
    out->dims[d] = shape->dimensions[d];
    total *= (uint64_t)shape->dimensions[d];
  }
  if (total > size)
    return thunkyErrorf(b->error, "%s: its shape needs %llu bytes, allocation %u has %" PRIu64,
                        what, (unsigned long long)total, a, size);
  out->slice.size = (uint64_t)total;
  return true;
}

static bool readArrays(Builder *b) {
  const ThunkyExecutable *m = b->model;
  ThunkyPlan *p = b->plan;
  p->parameters = calloc(m->numParameters + 1, sizeof *p->parameters);
  p->outputs = calloc(m->numOutputs + 1, sizeof *p->outputs);
  if (!p->parameters || !p->outputs)
    return thunkyErrorf(b->error, "out of memory");
  char what[64];
  for (uint32_t i = 0; i < m->numParameters; i++) {
    const ThunkyExecutableAllocation *a = &m->allocations[m->parameters[i]];
    snprintf(what, sizeof what, "parameter %" PRId64, a->parameter);
    if (!describeArray(b, a->shape, m->parameters[i], what, &p->parameters[p->numParameters++]))
      return false;
  }
  for (uint32_t i = 0; i < m->numOutputs; i++) {
    snprintf(what, sizeof what, "output %u", i);
    if (!describeArray(b, m->outputs[i].shape, m->outputs[i].allocation, what,
                       &p->outputs[p->numOutputs++]))
      return false;
  }
  return true;
}

/*--- the plan -----------------------------------------------------------------*/

#define VEC(field, counter) \
  (Vec) { (void **)&plan->field, &plan->counter, 0, sizeof *plan->field }

bool thunkyPlanCreate(const void *data, size_t size, const ThunkyLimits *limits, ThunkyPlan **out,
                     ThunkyError *error) {
  *out = NULL;
  ThunkyExecutable *model;
  if (!thunkyExecutableCreate(data, size, limits, &model, error))
    return false;
  ThunkyPlan *plan = calloc(1, sizeof *plan);
  Builder b = {.plan = plan, .model = model, .exe = model->proto, .error = error};
  bool ok = plan != NULL || thunkyErrorf(error, "out of memory");
  if (ok) {
    b.commands = VEC(commands, numCommands);
    b.lists = VEC(lists, numLists);
    b.slices = VEC(slices, numSlices);
    b.collectives = VEC(collectives, numCollectives);
    b.collectiveBuffers = VEC(collectiveBuffers, numCollectiveBuffers);
    b.groups = VEC(groups, numGroups);
    b.ids = VEC(ids, numIds);
    b.kernels = VEC(kernels, numKernels);
    b.binaries = VEC(binaries, numBinaries);
    b.customCalls = VEC(customCalls, numCustomCalls);
    b.gemms = VEC(gemms, numGemms);
    b.thunks = VEC(thunks, numThunks);
    plan->numAsyncSlots = model->numAsyncSlots;
    plan->maxDepth = model->maxDepth;
    ok = push(&b.lists) != NULL || thunkyErrorf(error, "out of memory"); /* the entry */
    b.currentThunk = UINT32_MAX;
    ok = ok && readAllocations(&b) && readArrays(&b) &&
         buildList(&b, model->proto->n_thunks, model->proto->thunks, NULL);
    /* The owned byte copies move to the plan's storage, NULL-terminated. */
    void **owned = b.numOwned + 1 <= b.ownedCapacity
                       ? b.owned
                       : realloc(b.owned, (b.numOwned + 1) * sizeof *owned);
    if (owned) {
      owned[b.numOwned] = NULL;
      plan->storage = owned;
    } else {
      for (size_t i = 0; i < b.numOwned; i++)
        free(b.owned[i]);
      free(b.owned);
      ok = thunkyErrorf(error, "out of memory");
    }
    if (!ok)
      thunkyPlanDestroy(plan);
  }
  thunkyHashMapDestroy(&b.binaryIndex);
  thunkyExecutableDestroy(model);
  if (ok)
    *out = plan;
  return ok;
}

void thunkyPlanDestroy(ThunkyPlan *plan) {
  if (!plan)
    return;
  for (void **owned = plan->storage; owned && *owned; owned++)
    free(*owned);
  free(plan->storage);
  free(plan->allocations), free(plan->parameters), free(plan->outputs);
  free(plan->commands), free(plan->lists), free(plan->slices), free(plan->collectives);
  free(plan->collectiveBuffers), free(plan->groups), free(plan->ids), free(plan->kernels);
  free(plan->binaries), free(plan->customCalls), free(plan->gemms), free(plan->thunks);
  free(plan);
}

void thunkyPlanThunkName(const ThunkyPlan *plan, uint32_t thunk, char *out, size_t size) {
  if (!plan || thunk >= plan->numThunks)
    snprintf(out, size, "executable");
  else
    thunkyThunkName(thunk, (const char *)plan->thunks[thunk].data, plan->thunks[thunk].size, out,
                    size);
}
