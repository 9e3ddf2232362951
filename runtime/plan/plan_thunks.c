/*===- plan_thunks.c - lists, control flow, copies and ids as commands ---===*
 *
 * One pass over the thunks, depth first. A list's commands are gathered in a
 * temporary vector and appended to the plan when the list is complete, so
 * every list is one contiguous range even though lists nest; the entry list
 * keeps index 0.
 *
 *===--------------------------------------------------------------------===*/
#include "plan_builder.h"

#include "thunky-c/base/ElementTypes.h"
#include "thunky-c/format/HloWork.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool copyThunk(Builder *b, CommandVec *v, const Xla__Gpu__CopyThunkProto *copy,
                      ThunkyCopyDirection direction) {
  ThunkyCommand *c = thunkyPlanEmit(b, v, THUNKY_CMD_COPY);
  if (!c || !copy)
    return c ? fail(b, "copy thunk without its copy") : false;
  if (!thunkyPlanShapedSliceOf(b, copy->source_buffer, "source", &c->copy.src) ||
      !thunkyPlanShapedSliceOf(b, copy->destination_buffer, "destination", &c->copy.dst))
    return false;
  uint64_t size = (uint64_t)copy->mem_size;
  if (copy->mem_size < 0 || size > c->copy.src.size || size > c->copy.dst.size)
    return fail(b, "copies %" PRId64 " bytes between slices of %" PRIu64 " and %" PRIu64,
                copy->mem_size, c->copy.src.size, c->copy.dst.size);
  c->copy.src.size = c->copy.dst.size = size;
  c->copy.direction = (uint8_t)direction;
  return true;
}

/* XLA's DynamicMemcpyThunk (JAX 0.10): a copy of mem_size bytes at an
 * offset pair chosen by the innermost loop's iteration. Reading checked
 * that every offset keeps the bytes inside their slice. */
static bool dynamicCopyThunk(Builder *b, CommandVec *v, const Xla__Gpu__DynamicMemcpyThunkProto *m) {
  ThunkyCommand *c = thunkyPlanEmit(b, v, THUNKY_CMD_COPY);
  if (!c || !thunkyPlanSliceOf(b, m->source_buffer, "source", &c->copy.src) ||
      !thunkyPlanSliceOf(b, m->destination_buffer, "destination", &c->copy.dst))
    return false;
  const Xla__Gpu__DynamicMemcpyThunkProto__Offsets *o = m->offsets;
  size_t n = o ? o->n_src_offsets : 0;
  if (!o || n == 0 || n != o->n_dst_offsets)
    return fail(b, "a dynamic memcpy with %zu source and %zu destination offsets", n,
                o ? o->n_dst_offsets : 0);
  c->copy.direction = THUNKY_COPY_DEVICE_TO_DEVICE;
  c->copy.dependsOnLoop = o->depends_on_loop;
  c->copy.size = (uint64_t)m->mem_size;
  c->copy.offsets = (ThunkyRange){*b->ids.count, (uint32_t)(2 * n)};
  for (size_t i = 0; i < 2 * n; i++) {
    int64_t *offset = thunkyPlanPush(&b->ids); /* the array may move: one at a time */
    if (!offset)
      return thunkyErrorf(b->error, "out of memory");
    *offset = i % 2 ? o->dst_offsets[i / 2] : o->src_offsets[i / 2];
  }
  return true;
}

bool thunkyPlanCopySlices(const ThunkyPlan *plan, const ThunkyCommand *c, uint64_t iteration,
                          ThunkyPlanSlice *src, ThunkyPlanSlice *dst) {
  *src = c->copy.src, *dst = c->copy.dst;
  if (!c->copy.offsets.count)
    return true;
  uint64_t index = c->copy.dependsOnLoop ? iteration : 0;
  if (index >= c->copy.offsets.count / 2)
    return false;
  const int64_t *pair = &plan->ids[c->copy.offsets.first + 2 * index];
  src->offset += (uint64_t)pair[0], dst->offset += (uint64_t)pair[1];
  src->size = dst->size = c->copy.size;
  return true;
}

/*--- control flow -------------------------------------------------------------*/

static bool sequence(Builder *b, const Xla__Gpu__ThunkSequenceProto *s, uint32_t *list) {
  return thunkyPlanBuildList(b, s ? s->n_thunks : 0, s ? s->thunks : NULL, list);
}

static bool conditionalThunk(Builder *b, CommandVec *v, const Xla__Gpu__ConditionalThunkProto *p) {
  ThunkyPlanSlice index;
  if (!thunkyPlanShapedSliceOf(b, p->branch_index_buffer, "branch index", &index))
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
  ThunkyCommand *c = ok ? thunkyPlanEmit(b, v, THUNKY_CMD_CONDITIONAL) : NULL;
  if (c) {
    c->conditional.index = index;
    c->conditional.branches = (ThunkyRange){*b->ids.count, (uint32_t)p->n_branch_thunks};
    for (size_t i = 0; ok && i < p->n_branch_thunks; i++) {
      int64_t *id = thunkyPlanPush(&b->ids);
      ok = id ? (*id = lists[i], true) : thunkyErrorf(b->error, "out of memory");
    }
  }
  free(lists);
  return ok && c;
}

static bool whileThunk(Builder *b, CommandVec *v, const Xla__Gpu__WhileThunkProto *p) {
  ThunkyPlanSlice predicate;
  uint32_t condition, body;
  if (!thunkyPlanSliceOf(b, p->condition_result_buffer_index, "condition result", &predicate) ||
      !sequence(b, p->condition_thunk_sequence, &condition) ||
      !sequence(b, p->body_thunk_sequence, &body))
    return false;
  if (thunkyWhilePredicate(p) == THUNKY_PREDICATE_NONE)
    return fail(b, "the condition result is %" PRIu64 " bytes: a pred (1, or 4 of which XLA "
                   "reads the first)", predicate.size);
  ThunkyCommand *c = thunkyPlanEmit(b, v, THUNKY_CMD_WHILE);
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
  ThunkyCommand *c = thunkyPlanEmit(b, v, THUNKY_CMD_ASYNC_START);
  if (!c)
    return false;
  c->asyncStart.slot = slot, c->asyncStart.list = list;
  c->asyncStart.communication = p->execution_stream_id_case ==
      XLA__GPU__ASYNC_START_THUNK_PROTO__EXECUTION_STREAM_ID_COMMUNICATION_STREAM_ID;
  uint64_t stream = c->asyncStart.communication ? p->communication_stream_id
                                                : p->computation_stream_id;
  if (stream > UINT32_MAX)
    return fail(b, "%s stream %" PRIu64 " is beyond any stream count",
                c->asyncStart.communication ? "communication" : "computation", stream);
  c->asyncStart.stream = (uint32_t)stream;
  return true;
}

/*--- one thunk ---------------------------------------------------------------*/

static bool idThunk(Builder *b, CommandVec *v, ThunkyCommandKind kind, const SliceProto *dst) {
  ThunkyCommand *c = thunkyPlanEmit(b, v, kind);
  if (!c || !thunkyPlanSliceOf(b, dst, "destination", &c->id.dst))
    return false;
  return c->id.dst.size == 4 ? true : fail(b, "the id destination is not 4 bytes");
}

/* Each thunk gets a number (its position in the whole executable, depth
 * first) and its profile annotation, for messages, profiles and traces. */
static bool keepAccess(ThunkySlice *s, ThunkyAccess access, void *userData) {
  Builder *b = userData;
  ThunkyPlanAccess *a = thunkyPlanPush(&b->accesses);
  if (!a)
    return thunkyErrorf(b->error, "out of memory");
  a->access = (uint8_t)access;
  return thunkyPlanSliceOf(b, s, "slice", &a->slice);
}

/* Whether a thunk of kind `kind` moves bytes between ranks (a kind with a
 * collective config), or between its rank and the host. */
static bool movesBytesOut(const char *kind) {
  static const char *const host[] = {"infeed_thunk", "outfeed_thunk", "host_send_thunk",
                                     "host_recv_thunk"};
  for (size_t i = 0; i < sizeof host / sizeof host[0]; i++)
    if (!strcmp(kind, host[i]))
      return true;
  return thunkyThunkKindIsCollective(kind, strlen(kind));
}

/* The HLO instruction a kernel or custom kernel thunk launches, by its
 * name in the executable's HLO (indexed at the first launch that asks);
 * NULL when it launches none, or the HLO has none by that name. False
 * only when there is HLO but no memory was left to index it. */
static bool launched(Builder *b, const Thunk *t, const Xla__HloInstructionProto **fusion) {
  const char *name = NULL;
  if (t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_KERNEL_THUNK)
    name = t->kernel_thunk->kernel_name;
  else if (t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_KERNEL_THUNK &&
           t->custom_kernel_thunk->custom_kernel)
    name = t->custom_kernel_thunk->custom_kernel->name;
  const Xla__HloModuleProtoWithConfig *hlo = b->exe->hlo_module_with_config;
  if (name && !b->launchesTried && hlo && hlo->hlo_module)
    b->launches = thunkyHloLaunchesCreate(hlo->hlo_module);
  b->launchesTried = b->launchesTried || name;
  *fusion = b->launches && name ? thunkyHloLaunchFind(b->launches, name, strlen(name), NULL) : NULL;
  return !(name && hlo && hlo->hlo_module && !b->launches);
}

/* What a kernel's written arguments held before it ran is to the checks
 * (ThunkyWritten). XLA passes a fusion its operands then its outputs, each
 * buffer once (kernel_arguments.cc), so an output that shares an operand's
 * buffer (a dynamic-update-slice or scatter in place) makes one argument
 * fewer, or is passed as an operand flagged written too: a launch with as
 * many arguments as its fusion in the executable's HLO has operands and
 * outputs, no operand flagged written, updates none, and writes its
 * outputs whole. */
static ThunkyWritten writtenArguments(const Thunk *t, const Xla__HloInstructionProto *fusion) {
  size_t args = 0, flags = 0;
  const protobuf_c_boolean *written = NULL;
  if (t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_KERNEL_THUNK) {
    const Xla__Gpu__KernelThunkProto *k = t->kernel_thunk;
    args = k->n_args, flags = k->n_written, written = k->written;
  } else if (t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_KERNEL_THUNK) {
    const Xla__Gpu__CustomKernelThunkProto *k = t->custom_kernel_thunk;
    args = k->n_args, flags = k->n_written, written = k->written;
  } else {
    return THUNKY_WRITTEN_UPDATED;
  }
  if (!fusion || !fusion->opcode || strcmp(fusion->opcode, "fusion"))
    return THUNKY_WRITTEN_UNKNOWN;
  const Xla__ShapeProto *shape = fusion->shape;
  size_t outputs = shape && shape->element_type == XLA__PRIMITIVE_TYPE__TUPLE
                       ? shape->n_tuple_shapes
                       : 1;
  if (args != fusion->n_operand_ids + outputs)
    return THUNKY_WRITTEN_UPDATED;
  for (size_t i = 0; i < fusion->n_operand_ids && i < flags; i++)
    if (written[i])
      return THUNKY_WRITTEN_UPDATED;
  return THUNKY_WRITTEN_OUTPUTS;
}

/* Keeps what the HLO says `fusion` does (plan->works), for the schedule
 * model; false only when out of memory. */
static bool noteWork(Builder *b, const Xla__HloInstructionProto *fusion, uint32_t *work) {
  *work = UINT32_MAX;
  ThunkyWork w;
  bool known;
  if (!fusion)
    return true;
  if (!thunkyHloLaunchWork(b->launches, fusion, &w, &known))
    return false;
  ThunkyWork *at = known ? thunkyPlanPush(&b->works) : NULL;
  if (known && !at)
    return false;
  if (known)
    *at = w, *work = b->plan->numWorks - 1;
  return true;
}

static bool nameThunk(Builder *b, Thunk *t) {
  ThunkyPlanThunk *thunk = thunkyPlanPush(&b->thunks);
  if (!thunk)
    return thunkyErrorf(b->error, "out of memory");
  b->currentThunk = b->plan->numThunks - 1;
  const char *annotation = t->thunk_info ? t->thunk_info->profile_annotation : NULL;
  const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(
      &xla__gpu__thunk_proto__descriptor, (unsigned)t->impl_case);
  thunk->kind = f ? f->name : "an unknown thunk";
  thunk->communicates = thunkyThunkKindIsCollective(thunk->kind, strlen(thunk->kind));
  thunk->id = t->thunk_info ? t->thunk_info->thunk_id : 0;
  thunk->key = b->replayOnly ? 0 : thunkyPlanThunkKey(b, t);
  const Xla__HloInstructionProto *fusion;
  uint32_t work;
  if (!launched(b, t, &fusion) || !noteWork(b, fusion, &work))
    return thunkyErrorf(b->error, "out of memory");
  thunk = &b->plan->thunks[b->currentThunk];
  thunk->written = b->replayOnly ? THUNKY_WRITTEN_UPDATED : writtenArguments(t, fusion);
  thunk->work = work;
  uint32_t first = b->plan->numAccesses;
  /* The pointer moves when the array grows: index it again after. */
  bool ok = thunkyPlanKeepString(b, annotation, &thunk->annotation) &&
            thunkyForEachSlice(&t->base, false, keepAccess, b);
  ThunkyPlanThunk *named = &b->plan->thunks[b->currentThunk];
  named->accesses = (ThunkyRange){first, b->plan->numAccesses - first};
  if (ok && !b->replayOnly && named->accesses.count > 1 &&
      !thunkyPlanOverlapKey(&b->plan->accesses[first], named->accesses.count, &named->key))
    return thunkyErrorf(b->error, "out of memory");
  return ok;
}

/*--- dynamic-slice fusions ----------------------------------------------------*/

/* After a failed build of a fusion's windows from `first` (and starts from
 * `firstStart`) on: the thunk refused when malformed, else the error. */
static bool refuseMalformed(Builder *b, CommandVec *v, uint32_t first, uint32_t firstStart) {
  if (!b->malformed)
    return false;
  b->malformed = false;
  b->plan->numWindows = first, b->plan->numWindowStarts = firstStart;
  return thunkyPlanRefuse(b, v, "%s", b->whyMalformed);
}

typedef Xla__Gpu__DynamicSliceFusionThunkProto Fusion;

/* The window of `buffer` (in the fusion's enclosing scope) that embedded
 * allocation `a` is, moved as `config` says; notes whether a loop moves it
 * (XLA's IsLoopDependent: a loop index and a stride). */
static bool addWindow(Builder *b, const SliceProto *buffer, const Xla__BufferAllocationProto *a,
                      const Xla__Gpu__DynamicSliceConfig *config, bool *dependsOnLoop) {
  ThunkyPlanWindow w = {
      .size = (uint64_t)a->size, .sliced = config != NULL, .loopIndex = UINT32_MAX};
  if (!thunkyPlanSliceOf(b, buffer, "a dynamic-slice fusion buffer", &w.buffer))
    return false;
  if (config) {
    if (config->has_loop_index)
      w.loopIndex = config->loop_index < UINT32_MAX ? (uint32_t)config->loop_index : UINT32_MAX - 1;
    w.byteOffset = config->byte_offset, w.byteStride = config->byte_stride;
  }
  *dependsOnLoop |= w.loopIndex != UINT32_MAX && w.byteStride != 0;
  ThunkyPlanWindow *at = thunkyPlanPush(&b->windows);
  return at ? (*at = w, true) : thunkyErrorf(b->error, "out of memory");
}

/* Before offsets became a DynamicSliceConfig (JAX 0.10's XLA), a fusion
 * had no allocations of its own and read its offsets on the device:
 * placing its windows at their buffers' starts would run another program. */
static bool isOlderFusion(const Fusion *f) {
  if (!f->n_slice_allocations && f->n_parameters + f->n_results)
    return true;
  for (size_t i = 0; i < f->n_parameters; i++)
    if (!f->parameters[i]->slice_config && f->parameters[i]->n_slice_offsets)
      return true;
  for (size_t j = 0; j < f->n_results; j++)
    if (!f->results[j]->update_config && f->results[j]->n_update_offsets)
      return true;
  return false;
}

/* A window of `size` bytes of `buffer`: XLA clamps a sliced window's
 * offset into its buffer, which needs the window to fit; an unsliced one
 * is the buffer itself, which the embedded allocation must not outgrow. */
static bool checkWindow(Builder *b, const char *what, size_t index, const SliceProto *buffer,
                        const Xla__BufferAllocationProto *window, bool sliced) {
  if (!buffer)
    return thunkyPlanMalformed(b, "%s %zu with no buffer", what, index);
  if (!window || window->size < 0 || window->size > buffer->size)
    return thunkyPlanMalformed(
        b, "%s %zu's window of %" PRId64 " bytes, larger than its %" PRId64 "-byte buffer%s", what,
        index, window ? window->size : -1, buffer->size,
        sliced ? "" : " (an unsliced window is the whole buffer)");
  return true;
}

/* Parameter or result `index` of a fusion: buffer `number` of its
 * `numBuffers`, moved as `config` says, the window `window` of it. */
static bool checkTaker(Builder *b, const char *what, size_t index, int64_t number,
                       size_t numBuffers, SliceProto *const *buffers,
                       const Xla__Gpu__DynamicSliceConfig *config,
                       const Xla__BufferAllocationProto *window) {
  if (number < 0 || (uint64_t)number >= numBuffers)
    return thunkyPlanMalformed(b, "%s %zu taking buffer %" PRId64 " of its %zu", what, index,
                               number, numBuffers);
  if (config && config->loop_index < 0)
    return thunkyPlanMalformed(b, "%s %zu's loop_index %" PRId64, what, index, config->loop_index);
  return checkWindow(b, what, index, buffers[number], window, config);
}

/* Each parameter and result takes one of the fusion's buffers and one of
 * its own allocations, in order (DynamicSliceFusionV2Thunk's
 * BuildDynamicSliceBuffers), which its thunks' slices name by position. */
static bool checkFusion(Builder *b, const Fusion *f) {
  size_t windows = f->n_parameters + f->n_results;
  if (f->n_slice_allocations != windows)
    return thunkyPlanMalformed(b,
                               "%zu parameters and %zu results but %zu allocations of its own (XLA "
                               "takes one each)",
                               f->n_parameters, f->n_results, f->n_slice_allocations);
  for (size_t i = 0; i < windows; i++)
    if (!f->slice_allocations[i] || f->slice_allocations[i]->index != (int64_t)i)
      return thunkyPlanMalformed(b, "allocation %zu of index %" PRId64, i,
                                 f->slice_allocations[i] ? f->slice_allocations[i]->index : -1);
  for (size_t i = 0; i < f->n_parameters; i++)
    if (!checkTaker(b, "parameter", i, f->parameters[i]->parameter_number, f->n_parameter_buffers,
                    f->parameter_buffers, f->parameters[i]->slice_config,
                    f->slice_allocations[i]))
      return false;
  for (size_t j = 0; j < f->n_results; j++)
    if (!checkTaker(b, "result", j, f->results[j]->result_number, f->n_result_buffers,
                    f->result_buffers, f->results[j]->update_config,
                    f->slice_allocations[f->n_parameters + j]))
      return false;
  return true;
}

/* The command of a fusion whose windows are those from `first` on: its
 * embedded thunks planned over them. */
static bool emitFusion(Builder *b, CommandVec *v, uint32_t first,
                       const Xla__Gpu__ThunkSequenceProto *embedded, bool moves, bool reads) {
  bool outerIn = b->inFusion;
  uint32_t outer = b->fusionWindows, slices = b->plan->numSlices, params = b->plan->numParams, list;
  b->inFusion = true, b->fusionWindows = first;
  bool ok = thunkyPlanBuildList(b, embedded ? embedded->n_thunks : 0,
                                embedded ? embedded->thunks : NULL, &list);
  b->inFusion = outerIn, b->fusionWindows = outer;
  ThunkyCommand *c = ok ? thunkyPlanEmit(b, v, THUNKY_CMD_DYNAMIC_SLICE_FUSION) : NULL;
  if (!c)
    return false;
  c->fusion.list = list;
  c->fusion.windows = (ThunkyRange){first, b->plan->numWindows - first};
  c->fusion.slices = (ThunkyRange){slices, b->plan->numSlices - slices};
  c->fusion.params = (ThunkyRange){params, b->plan->numParams - params};
  c->fusion.dependsOnLoop = moves;
  c->fusion.readsDevice = reads;
  return true;
}

/* XLA's DynamicSliceFusionV2Thunk: its parameters and results are windows
 * of its buffers, and its thunks run with those windows as their
 * allocations. */
static bool fusionThunk(Builder *b, CommandVec *v, const Fusion *f) {
  if (isOlderFusion(f))
    return thunkyPlanRefuse(b, v, "the offsets of JAX 0.10's XLA, read on the device");
  if (f->verify_offsets)
    return thunkyPlanRefuse(b, v,
                            "verify_offsets, a check of each window on the device "
                            "(xla_gpu_experimental_dynamic_slice_fusion_verify_offsets)");
  if (!checkFusion(b, f))
    return refuseMalformed(b, v, b->plan->numWindows, b->plan->numWindowStarts);
  uint32_t first = b->plan->numWindows;
  bool moves = false;
  for (size_t i = 0; i < f->n_parameters; i++) {
    const Xla__Gpu__DynamicSliceFusionThunkProto__ParameterProto *p = f->parameters[i];
    if (!addWindow(b, f->parameter_buffers[p->parameter_number], f->slice_allocations[i],
                   p->slice_config, &moves))
      return false;
  }
  for (size_t j = 0; j < f->n_results; j++) {
    const Xla__Gpu__DynamicSliceFusionThunkProto__ResultProto *r = f->results[j];
    if (!addWindow(b, f->result_buffers[r->result_number],
                   f->slice_allocations[f->n_parameters + j], r->update_config, &moves))
      return false;
  }
  return emitFusion(b, v, first, f->embedded_thunks, moves, false);
}

/*--- dynamic_slice_thunk -------------------------------------------------------*/

typedef Xla__Gpu__DynamicSliceThunkProto DynamicSlice;

/* Dimensions at most: XLA's shapes have far fewer. */
#define MAX_RANK 64

/* ShapeUtil::ByteStrides of an array shape by its layout (row-major
 * without one), into strides[rank], with its dimensions from the most
 * minor in order[rank] and its byte size in *bytes. False for a layout
 * that is not a permutation of its dimensions, elements smaller than a
 * byte, or more than 2^63 bytes. */
static bool byteStrides(const Xla__ShapeProto *shape, uint64_t *strides, size_t *order,
                        uint64_t *bytes) {
  size_t rank = shape->n_dimensions;
  uint32_t element = thunkyElementBytes(shape->element_type);
  const Xla__LayoutProto *layout = shape->layout;
  bool laidOut = layout && layout->n_minor_to_major;
  if (!element || rank > MAX_RANK || (laidOut && layout->n_minor_to_major != rank))
    return false;
  bool seen[MAX_RANK] = {0};
  uint64_t stride = element;
  for (size_t k = 0; k < rank; k++) {
    int64_t d = laidOut ? layout->minor_to_major[k] : (int64_t)(rank - 1 - k);
    if (d < 0 || (size_t)d >= rank || seen[d] || shape->dimensions[d] < 0)
      return false;
    seen[d] = true, order[k] = (size_t)d, strides[d] = stride;
    if (__builtin_mul_overflow(stride, (uint64_t)shape->dimensions[d], &stride) ||
        stride > INT64_MAX)
      return false;
  }
  *bytes = stride;
  return true;
}

/* Whether a window of `sliced` dimensions is one run of bytes of its
 * buffer, as XLA's DynamicSliceThunk takes it to be: from the most minor
 * dimension, every one past the first it cuts is 1. */
static bool contiguous(const Xla__ShapeProto *orig, const Xla__ShapeProto *sliced,
                       const size_t *order) {
  bool cut = false;
  for (size_t k = 0; k < orig->n_dimensions; k++) {
    size_t d = order[k];
    if (cut && sliced->dimensions[d] != 1)
      return false;
    cut |= sliced->dimensions[d] != orig->dimensions[d];
  }
  return true;
}

/* The window of argument `i` (XLA's SliceDef): none, the whole argument,
 * or a slice of it whose start is found per dimension when it runs. */
static bool addSliceDef(Builder *b, const DynamicSlice *d, size_t i, bool *reads) {
  const SliceProto *argument = d->arguments[i]->slice;
  const Xla__Gpu__OptionalDynamicSliceOffsetsProto__DynamicSliceOffsetsProto *offsets =
      d->offsets[i]->offsets;
  ThunkyPlanWindow w = {.loopIndex = UINT32_MAX};
  if (!argument) {
    /* A token: XLA passes no memory, so no embedded slice may have bytes. */
    w.buffer = (ThunkyPlanSlice){0, 0, 0};
  } else if (!thunkyPlanSliceOf(b, argument, "a dynamic-slice argument", &w.buffer)) {
    return false;
  }
  w.size = w.buffer.size;
  if (argument && offsets) {
    const Xla__ShapeProto *orig = d->orig_shapes[i]->shape, *sliced = d->sliced_shapes[i]->shape;
    const Xla__Gpu__OptionalPrimitiveType *type = d->offset_primitive_types[i];
    uint64_t strides[MAX_RANK], unused[MAX_RANK], origBytes, slicedBytes;
    size_t order[MAX_RANK], slicedOrder[MAX_RANK];
    if (!orig || !sliced || !type->has_value)
      return thunkyPlanMalformed(b, "argument %zu with offsets but no %s", i,
                                 !orig     ? "original shape"
                                 : !sliced ? "sliced shape"
                                           : "offset type");
    uint32_t typeBytes = thunkyElementBytes(type->value);
    /* A window of other elements than its buffer's could reach past it. */
    if (!byteStrides(orig, strides, order, &origBytes) ||
        !byteStrides(sliced, unused, slicedOrder, &slicedBytes) ||
        sliced->n_dimensions != orig->n_dimensions || offsets->n_offsets != orig->n_dimensions ||
        sliced->element_type != orig->element_type || !typeBytes || typeBytes > 8)
      return thunkyPlanMalformed(b,
                                 "argument %zu whose shapes, offsets and offset type disagree "
                                 "(each offset needs a dimension of both shapes, the slice its "
                                 "shape's element type)",
                                 i);
    if (origBytes > w.buffer.size)
      return thunkyPlanMalformed(b,
                                 "argument %zu's shape of %" PRIu64 " bytes in a slice of %" PRIu64,
                                 i, origBytes, w.buffer.size);
    w.sliced = true, w.size = slicedBytes, w.starts.first = b->plan->numWindowStarts;
    for (size_t k = 0; k < orig->n_dimensions; k++) {
      if (sliced->dimensions[k] > orig->dimensions[k])
        return thunkyPlanMalformed(b, "argument %zu %" PRId64 " wide in dimension %zu, of %" PRId64,
                                   i, sliced->dimensions[k], k, orig->dimensions[k]);
      const Xla__Gpu__OptionalDynamicSliceOffsetsProto__DynamicSliceOffsetProto *o =
          offsets->offsets[k];
      ThunkyPlanWindowStart start = {.last =
                                         (uint64_t)(orig->dimensions[k] - sliced->dimensions[k]),
                                     .byteStride = strides[k]};
      if (o->offset_case ==
          XLA__GPU__OPTIONAL_DYNAMIC_SLICE_OFFSETS_PROTO__DYNAMIC_SLICE_OFFSET_PROTO__OFFSET_CONST_OFFSET) {
        start.value = o->const_offset;
      } else if (
          o->offset_case ==
          XLA__GPU__OPTIONAL_DYNAMIC_SLICE_OFFSETS_PROTO__DYNAMIC_SLICE_OFFSET_PROTO__OFFSET_SLICE_OFFSET) {
        if (!thunkyPlanSliceOf(b, o->slice_offset, "a dynamic-slice offset", &start.scalar))
          return false;
        if (start.scalar.size < typeBytes)
          return thunkyPlanMalformed(
              b, "argument %zu's offset %zu of %" PRIu64 " bytes, less than its type's %u", i, k,
              start.scalar.size, typeBytes);
        start.scalar.size = typeBytes;
        *reads = true;
      } else {
        return thunkyPlanMalformed(b, "argument %zu's offset %zu, not set", i, k);
      }
      ThunkyPlanWindowStart *at = thunkyPlanPush(&b->windowStarts);
      if (!at)
        return thunkyErrorf(b->error, "out of memory");
      *at = start;
    }
    w.starts.count = b->plan->numWindowStarts - w.starts.first;
    if (!contiguous(orig, sliced, order))
      return thunkyPlanMalformed(b,
                                 "argument %zu's window, not one run of bytes of its buffer as XLA "
                                 "takes it to be",
                                 i);
  }
  ThunkyPlanWindow *at = thunkyPlanPush(&b->windows);
  return at ? (*at = w, true) : thunkyErrorf(b->error, "out of memory");
}

/* XLA's DynamicSliceThunk (JAX 0.10 and 0.11): each argument a window its
 * embedded thunks take as their allocation of the same number. Offsets an
 * HLO module computes from a loop's induction variable are refused. */
static bool dynamicSliceThunk(Builder *b, CommandVec *v, const DynamicSlice *d) {
  size_t n = d->n_arguments;
  bool computed = d->offset_as_function_of_indvar_modules_metadata != NULL;
  for (size_t i = 0; i < d->n_offsets && !computed; i++)
    for (size_t k = 0; d->offsets[i]->offsets && k < d->offsets[i]->offsets->n_offsets; k++)
      computed |=
          d->offsets[i]->offsets->offsets[k]->offset_case ==
          XLA__GPU__OPTIONAL_DYNAMIC_SLICE_OFFSETS_PROTO__DYNAMIC_SLICE_OFFSET_PROTO__OFFSET_HLO_MODULE_OFFSET_IDX;
  if (computed)
    return thunkyPlanRefuse(b, v,
                            "offsets an HLO module computes from the loop's induction "
                            "variable");
  uint32_t first = b->plan->numWindows, firstStart = b->plan->numWindowStarts;
  bool reads = false, ok = true;
  if (d->n_offsets != n || d->n_orig_shapes != n || d->n_sliced_shapes != n ||
      d->n_offset_primitive_types != n || d->n_fake_allocations != n)
    ok = thunkyPlanMalformed(
        b,
        "%zu arguments but %zu offsets, %zu and %zu shapes, %zu offset types and "
        "%zu allocations of its own (XLA takes one each)",
        n, d->n_offsets, d->n_orig_shapes, d->n_sliced_shapes, d->n_offset_primitive_types,
        d->n_fake_allocations);
  else if (!b->plan->numAllocations)
    ok = thunkyPlanMalformed(b, "no allocation in the executable to place a token's window");
  for (size_t i = 0; ok && i < n; i++)
    ok = d->fake_allocations[i] && d->fake_allocations[i]->index == (int64_t)i
             ? addSliceDef(b, d, i, &reads)
             : thunkyPlanMalformed(b, "allocation %zu of index %" PRId64, i,
                                   d->fake_allocations[i] ? d->fake_allocations[i]->index : -1);
  return ok ? emitFusion(b, v, first, d->embedded_thunk, false, reads)
            : refuseMalformed(b, v, first, firstStart);
}

/* A thunk no backend runs yet: what it reads and writes is in the thunk
 * kind table; backends decide whether they can run it. */
static bool opaqueThunk(Builder *b, CommandVec *v) {
  ThunkyPlanThunk *t = &b->plan->thunks[b->currentThunk];
  t->exchange = movesBytesOut(t->kind);
  return thunkyPlanEmit(b, v, THUNKY_CMD_OPAQUE) != NULL;
}

static bool addThunk(Builder *b, CommandVec *v, Thunk *t) {
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
  case XLA__GPU__THUNK_PROTO__IMPL_DYNAMIC_MEMCPY_THUNK:
    return dynamicCopyThunk(b, v, t->dynamic_memcpy_thunk);
  case XLA__GPU__THUNK_PROTO__IMPL_MEMZERO_THUNK: {
    ThunkyCommand *c = thunkyPlanEmit(b, v, THUNKY_CMD_MEMZERO);
    return c && thunkyPlanShapedSliceOf(b, t->memzero_thunk->dest_buffer, "destination",
                                        &c->memzero.dst);
  }
  case XLA__GPU__THUNK_PROTO__IMPL_MEMSET32BIT_VALUE_THUNK: {
    ThunkyCommand *c = thunkyPlanEmit(b, v, THUNKY_CMD_MEMSET32);
    if (!c || !thunkyPlanSliceOf(b, t->memset32bit_value_thunk->dest_buffer, "destination",
                                 &c->memset32.dst))
      return false;
    c->memset32.value = t->memset32bit_value_thunk->value;
    return c->memset32.dst.size % 4 == 0
               ? true
               : fail(b, "memset32 of %" PRIu64 " bytes, not a multiple of 4",
                      c->memset32.dst.size);
  }
  case XLA__GPU__THUNK_PROTO__IMPL_KERNEL_THUNK:
    return thunkyPlanKernelThunk(b, v, t->kernel_thunk);
  case XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_KERNEL_THUNK:
    return thunkyPlanCustomKernelThunk(b, v, t->custom_kernel_thunk);
  case XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_CALL_THUNK:
    return thunkyPlanCustomCallThunk(b, v, t->custom_call_thunk);
  case XLA__GPU__THUNK_PROTO__IMPL_GEMM_THUNK:
    return thunkyPlanGemmThunk(b, v, t->gemm_thunk);
  case XLA__GPU__THUNK_PROTO__IMPL_CUBLAS_LT_MATMUL_THUNK:
    return thunkyPlanCublasLtThunk(b, v, t->cublas_lt_matmul_thunk);
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
    ThunkyCommand *c = thunkyPlanEmit(b, v, THUNKY_CMD_ASYNC_DONE);
    return c ? (c->asyncDone.slot = slot, true) : false;
  }
  case XLA__GPU__THUNK_PROTO__IMPL_ALL_REDUCE_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_REDUCE_SCATTER_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_ALL_GATHER_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_ALL_TO_ALL_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_COLLECTIVE_BROADCAST_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_COLLECTIVE_PERMUTE_THUNK:
    return thunkyPlanCollectiveThunk(b, v, t);
  case XLA__GPU__THUNK_PROTO__IMPL_COLLECTIVE_GROUP_THUNK: {
    uint32_t list;
    const Xla__Gpu__CollectiveGroupThunkProto *g = t->collective_group_thunk;
    if (!thunkyPlanBuildList(b, g->n_thunks, g->thunks, &list))
      return false;
    ThunkyCommand *c = thunkyPlanEmit(b, v, THUNKY_CMD_COLLECTIVE_GROUP);
    return c ? (c->group.list = list, true) : false;
  }
  case XLA__GPU__THUNK_PROTO__IMPL_DYNAMIC_SLICE_FUSION_THUNK:
    return fusionThunk(b, v, t->dynamic_slice_fusion_thunk);
  case XLA__GPU__THUNK_PROTO__IMPL_DYNAMIC_SLICE_THUNK:
    return dynamicSliceThunk(b, v, t->dynamic_slice_thunk);
  case XLA__GPU__THUNK_PROTO__IMPL_REPLICA_ID_THUNK:
    return idThunk(b, v, THUNKY_CMD_REPLICA_ID, t->replica_id_thunk->dest_buffer);
  case XLA__GPU__THUNK_PROTO__IMPL_PARTITION_ID_THUNK:
    return idThunk(b, v, THUNKY_CMD_PARTITION_ID, t->partition_id_thunk->dest_buffer);
  case XLA__GPU__THUNK_PROTO__IMPL__NOT_SET:
    return fail(b, "a thunk of no kind this schema knows (from a newer XLA?)");
  case XLA__GPU__THUNK_PROTO__IMPL_RAGGED_ALL_TO_ALL_THUNK:
    /* What it writes is its second buffer's destination (thunk_access.c):
     * with another count the checks could not tell what it changes. */
    if (t->ragged_all_to_all_thunk->n_buffers != 6)
      return fail(b,
                  "ragged_all_to_all_thunk: %zu buffers; XLA gives it one per operand, 6 "
                  "(input, output, input_offsets, send_sizes, output_offsets, recv_sizes)",
                  t->ragged_all_to_all_thunk->n_buffers);
    return opaqueThunk(b, v);
  default:
    return opaqueThunk(b, v);
  }
}

/* Appends a completed list's commands to the plan; the entry list (list ==
 * NULL) fills the range reserved at index 0. */
static bool finishList(Builder *b, CommandVec *v, uint32_t *list) {
  ThunkyRange *range = list ? thunkyPlanPush(&b->lists) : &b->plan->lists[0];
  if (!range)
    return thunkyErrorf(b->error, "out of memory");
  range->first = *b->commands.count;
  range->count = v->count;
  if (list)
    *list = b->plan->numLists - 1;
  for (uint32_t i = 0; i < v->count; i++) {
    ThunkyCommand *c = thunkyPlanPush(&b->commands);
    if (!c)
      return thunkyErrorf(b->error, "out of memory");
    *c = v->items[i];
  }
  return true;
}

bool thunkyPlanBuildList(Builder *b, size_t n, Thunk *const *thunks, uint32_t *list) {
  uint32_t parent = b->currentThunk;
  CommandVec v = {0};
  bool ok = true;
  for (size_t i = 0; ok && i < n; i++)
    ok = addThunk(b, &v, thunks[i]);
  ok = ok && finishList(b, &v, list);
  free(v.items);
  b->currentThunk = parent; /* what the caller emits next is its own thunk's */
  return ok;
}

typedef struct Entry {
  Builder *b;
  CommandVec v;
} Entry;

static bool addEntryThunk(Thunk *t, void *userData, ThunkyError *error) {
  (void)error; /* the builder's own */
  Entry *e = userData;
  return addThunk(e->b, &e->v, t);
}

bool thunkyPlanBuildEntry(Builder *b) {
  Entry e = {b, {0}};
  bool ok = thunkyExecutableForEachThunk(b->model, addEntryThunk, &e, b->error) &&
            finishList(b, &e.v, NULL);
  free(e.v.items);
  return ok;
}
