/*===- executable_thunks.c - one walk over every thunk ------------------===*
 *
 * Depth first, as the planner numbers thunks, so a message here names the
 * same thunk as a profile does.
 *
 *===--------------------------------------------------------------------===*/
#include "executable_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Control flow nests no deeper than this (protobuf nesting is already
 * bounded by the wire check; this bounds every recursion over thunks). */
#define MAX_DEPTH 64

typedef struct Walk {
  ThunkyExecutable *exe;
  const ThunkyLimits *limits;
  ThunkyError *error;
  const ThunkyThunkProto *thunk; /* the one being read, for messages */
  uint64_t number;               /* its depth-first position */
  uint32_t depth;
  /* Inside a dynamic-slice fusion or thunk, whose own allocations its
   * thunks' slices name. */
  bool ownAllocations;
} Walk;

static bool fail(Walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(Walk *w, const char *fmt, ...) {
  char what[400], name[160];
  va_list args;
  va_start(args, fmt);
  vsnprintf(what, sizeof what, fmt, args);
  va_end(args);
  const Xla__Gpu__ThunkInfoProto *info = w->thunk ? w->thunk->thunk_info : NULL;
  const char *annotation = info ? info->profile_annotation : NULL;
  thunkyThunkName(w->number, annotation, annotation ? strlen(annotation) : 0,
                  info ? info->thunk_id : 0, name, sizeof name);
  return thunkyErrorf(w->error, "%s: %s", name, what);
}

static bool checkSlice(ThunkySlice *s, ThunkyAccess access, void *userData) {
  Walk *w = userData;
  const ThunkyExecutable *exe = w->exe;
  if (w->ownAllocations) /* the planner's to check */
    return true;
  if (s->buffer_allocation_index < 0 || (uint64_t)s->buffer_allocation_index >= exe->numAllocations)
    return fail(w, "a slice names allocation %" PRId64 ", but the executable has %u",
                s->buffer_allocation_index, exe->numAllocations);
  uint64_t size = exe->allocations[s->buffer_allocation_index].size;
  if (s->offset < 0 || s->size < 0 || (uint64_t)s->offset > size ||
      (uint64_t)s->size > size - (uint64_t)s->offset)
    return fail(w, "bytes [%" PRId64 ", %" PRId64 ") lie outside allocation %" PRId64
                   " (%" PRIu64 " bytes)", s->offset, s->offset + s->size,
                s->buffer_allocation_index, size);
  return true;
}

static bool walkList(Walk *w, size_t n, ThunkyThunkProto *const *thunks, bool nests);

static bool walkSequence(Walk *w, const Xla__Gpu__ThunkSequenceProto *s) {
  return !s || walkList(w, s->n_thunks, s->thunks, true);
}

static bool asyncStart(Walk *w, uint64_t id) {
  ExecutableInternal *in = internalOf(w->exe);
  uint32_t slot;
  if (thunkyHashMapGet(&in->asyncSlots, id, &slot))
    return fail(w, "async execution id %" PRIu64 " is started twice", id);
  if (w->exe->numAsyncSlots == UINT32_MAX - 1 ||
      !thunkyHashMapPut(&in->asyncSlots, id, w->exe->numAsyncSlots))
    return thunkyErrorf(w->error, "out of memory");
  w->exe->numAsyncSlots++;
  return true;
}

/* A custom kernel's code is inline or, in newer XLA, an index into the
 * executable's table of kernel specs. */
static bool checkCustomKernel(Walk *w, const Xla__Gpu__CustomKernelProto *c) {
  if (!c || !c->has_kernel_spec_index)
    return true;
  if (c->kernel_spec)
    return fail(w, "the custom kernel has both its code and kernel_spec_index %d",
                c->kernel_spec_index);
  size_t n = w->exe->proto->n_kernel_specs;
  if (c->kernel_spec_index < 0 || (size_t)c->kernel_spec_index >= n)
    return fail(w, "kernel_spec_index %d is past the executable's %zu kernel specs",
                c->kernel_spec_index, n);
  return true;
}

/* Every offset a dynamic memcpy may take keeps its bytes inside its slices. */
static bool checkDynamicMemcpy(Walk *w, const Xla__Gpu__DynamicMemcpyThunkProto *m) {
  const Xla__Gpu__DynamicMemcpyThunkProto__Offsets *o = m->offsets;
  int64_t src = m->source_buffer ? m->source_buffer->size : 0;
  int64_t dst = m->destination_buffer ? m->destination_buffer->size : 0;
  if (m->mem_size < 0)
    return fail(w, "a dynamic memcpy of %" PRId64 " bytes", m->mem_size);
  for (size_t i = 0; o && i < o->n_src_offsets; i++)
    if (o->src_offsets[i] < 0 || o->src_offsets[i] > src - m->mem_size)
      return fail(w, "source offset %zu (%" PRId64 ") and %" PRId64
                     " bytes lie outside its %" PRId64 "-byte slice",
                  i, o->src_offsets[i], m->mem_size, src);
  for (size_t i = 0; o && i < o->n_dst_offsets; i++)
    if (o->dst_offsets[i] < 0 || o->dst_offsets[i] > dst - m->mem_size)
      return fail(w, "destination offset %zu (%" PRId64 ") and %" PRId64
                     " bytes lie outside its %" PRId64 "-byte slice",
                  i, o->dst_offsets[i], m->mem_size, dst);
  return true;
}

/* The thunks a dynamic-slice fusion or thunk embeds name its own
 * allocations, which import keeps as they are and the planner checks
 * before it runs them: here they are numbered and nested, depth first, as
 * the planner does. */
static bool walkEmbedded(Walk *w, const Xla__Gpu__ThunkSequenceProto *embedded) {
  bool outer = w->ownAllocations;
  w->ownAllocations = true;
  bool ok = walkSequence(w, embedded);
  w->ownAllocations = outer;
  return ok;
}

static bool walkThunk(Walk *w, ThunkyThunkProto *t) {
  const ThunkyThunkProto *parent = w->thunk;
  uint64_t parentNumber = w->number;
  w->thunk = t, w->number = w->exe->numThunks++;
  bool ok = w->exe->numThunks <= w->limits->maxThunks ||
            fail(w, "more than %" PRIu64 " thunks (the max-thunks limit)", w->limits->maxThunks);
  ok = ok && thunkyForEachSlice(&t->base, false, checkSlice, w);
  switch (t->impl_case) {
  case XLA__GPU__THUNK_PROTO__IMPL_SEQUENTIAL_THUNK:
    ok = ok && walkList(w, t->sequential_thunk->n_thunks, t->sequential_thunk->thunks, false);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_COLLECTIVE_GROUP_THUNK:
    ok = ok && walkList(w, t->collective_group_thunk->n_thunks, t->collective_group_thunk->thunks,
                        true);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_CONDITIONAL_THUNK:
    for (size_t b = 0; ok && b < t->conditional_thunk->n_branch_thunks; b++)
      ok = walkSequence(w, t->conditional_thunk->branch_thunks[b]);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_WHILE_THUNK:
    ok = ok && walkSequence(w, t->while_thunk->condition_thunk_sequence) &&
         walkSequence(w, t->while_thunk->body_thunk_sequence);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_ASYNC_START_THUNK:
    ok = ok && asyncStart(w, t->async_start_thunk->async_execution_id) &&
         walkSequence(w, t->async_start_thunk->thunks);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_ASYNC_DONE_THUNK: {
    uint32_t slot;
    uint64_t id = t->async_done_thunk->async_execution_id;
    ok = ok && (thunkyExecutableAsyncSlot(w->exe, id, &slot) ||
                fail(w, "async done waits for execution id %" PRIu64
                        ", which no earlier async start started", id));
    break;
  }
  case XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_KERNEL_THUNK:
    ok = ok && checkCustomKernel(w, t->custom_kernel_thunk->custom_kernel);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_DYNAMIC_MEMCPY_THUNK:
    ok = ok && checkDynamicMemcpy(w, t->dynamic_memcpy_thunk);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_DYNAMIC_SLICE_FUSION_THUNK:
    ok = ok && walkEmbedded(w, t->dynamic_slice_fusion_thunk->embedded_thunks);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_DYNAMIC_SLICE_THUNK:
    ok = ok && walkEmbedded(w, t->dynamic_slice_thunk->embedded_thunk);
    break;
  default:
    break;
  }
  w->thunk = parent, w->number = parentNumber;
  return ok;
}

static bool walkList(Walk *w, size_t n, ThunkyThunkProto *const *thunks, bool nests) {
  w->depth += nests;
  if (w->depth > MAX_DEPTH)
    return fail(w, "control flow nests deeper than %d", MAX_DEPTH);
  if (w->depth > w->exe->maxDepth)
    w->exe->maxDepth = w->depth;
  bool ok = true;
  for (size_t i = 0; ok && i < n; i++)
    ok = walkThunk(w, thunks[i]);
  w->depth -= nests;
  return ok;
}

bool thunkyExecutableReadThunks(ThunkyExecutable *exe, const ThunkyLimits *limits,
                                ThunkyError *error) {
  Walk w = {.exe = exe, .limits = limits, .error = error};
  return walkList(&w, exe->proto->n_thunks, exe->proto->thunks, true);
}

bool thunkyExecutableReadThunk(ThunkyExecutable *exe, const ThunkyLimits *limits,
                               ThunkyThunkProto *thunk, ThunkyError *error) {
  Walk w = {.exe = exe, .limits = limits, .error = error};
  return walkList(&w, 1, &thunk, true);
}

const StreamExecutor__KernelLoaderSpecProto *
thunkyCustomKernelSpec(const ThunkyExecutable *exe, const Xla__Gpu__CustomKernelProto *c) {
  if (!c)
    return NULL;
  if (!c->has_kernel_spec_index)
    return c->kernel_spec;
  size_t i = (size_t)c->kernel_spec_index;
  return c->kernel_spec_index >= 0 && i < exe->proto->n_kernel_specs ? exe->proto->kernel_specs[i]
                                                                       : NULL;
}

bool thunkyExecutableAsyncSlot(const ThunkyExecutable *exe, uint64_t id, uint32_t *slot) {
  return thunkyHashMapGet(&internalOf(exe)->asyncSlots, id, slot);
}

ThunkyPredicate thunkyWhilePredicate(const Xla__Gpu__WhileThunkProto *w) {
  const ThunkySlice *s = w->condition_result_buffer_index;
  return s && (s->size == 1 || s->size == 4) ? THUNKY_PREDICATE_PRED : THUNKY_PREDICATE_NONE;
}

ThunkyPredicate thunkyConditionalPredicate(const Xla__Gpu__ConditionalThunkProto *c) {
  if (!c->branch_index_buffer || !c->branch_index_buffer->slice || c->n_branch_thunks == 0)
    return THUNKY_PREDICATE_NONE;
  int64_t size = c->branch_index_buffer->slice->size;
  if (size == 4)
    return THUNKY_PREDICATE_S32;
  return size == 1 && c->n_branch_thunks == 2 ? THUNKY_PREDICATE_PRED : THUNKY_PREDICATE_NONE;
}
