/*===- plan_builder.c - the plan's growing arrays and slices ----------===*/
#include "plan_builder.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Puts the current thunk's name in front of the message just set. */
bool thunkyPlanInThunk(Builder *b) {
  char name[160];
  thunkyPlanThunkName(b->plan, b->currentThunk, name, sizeof name);
  return thunkyErrorContext(b->error, "%s", name);
}

/* Appends one zeroed element to a vector; NULL when out of memory. */
void *thunkyPlanPush(Vec *v) {
  if (*v->count == UINT32_MAX || !thunkyArrayGrow(v->items, &v->capacity, *v->count, v->size))
    return NULL;
  void *item = (char *)*v->items + (size_t)(*v->count)++ * v->size;
  memset(item, 0, v->size);
  return item;
}

/* A copy of data[0, size) owned by the plan. */
bool thunkyPlanKeepBytes(Builder *b, const void *data, size_t size, ThunkyBytes *out) {
  uint8_t *copy = size < SIZE_MAX ? thunkyArenaAlloc(b->kept, size + 1) : NULL;
  if (!copy)
    return thunkyErrorf(b->error, "out of memory");
  if (size)
    memcpy(copy, data, size); /* the arena's zero after it: names and PTX are C strings */
  *out = (ThunkyBytes){copy, size};
  return true;
}

bool thunkyPlanKeepString(Builder *b, const char *s, ThunkyBytes *out) {
  return thunkyPlanKeepBytes(b, s ? s : "", s ? strlen(s) : 0, out);
}

/*--- slices ------------------------------------------------------------------*/

/* The model checked that every slice lies within its allocation: the
 * executable's, or inside a dynamic-slice fusion the fusion's own, which
 * the plan numbers after the executable's (ThunkyPlanWindow). */
bool thunkyPlanSliceOf(Builder *b, const SliceProto *s, const char *what, ThunkyPlanSlice *out) {
  if (!s)
    return fail(b, "%s has no slice", what);
  uint32_t allocation = (uint32_t)s->buffer_allocation_index;
  if (b->inFusion) {
    /* The model leaves a fusion's own allocations to the plan. */
    uint32_t windows = b->plan->numWindows - b->fusionWindows;
    if (s->buffer_allocation_index < 0 || s->buffer_allocation_index >= windows)
      return fail(b, "a slice names allocation %" PRId64 ", but the dynamic-slice fusion has %u",
                  s->buffer_allocation_index, windows);
    allocation += b->plan->numAllocations + b->fusionWindows;
    uint64_t size = b->plan->windows[allocation - b->plan->numAllocations].size;
    if (s->offset < 0 || s->size < 0 || (uint64_t)s->offset > size ||
        (uint64_t)s->size > size - (uint64_t)s->offset)
      return fail(b,
                  "bytes [%" PRId64 ", %" PRId64 ") lie outside the dynamic-slice fusion's "
                  "allocation %" PRId64 " (%" PRIu64 " bytes)",
                  s->offset, s->offset + s->size, s->buffer_allocation_index, size);
  }
  *out = (ThunkyPlanSlice){allocation, (uint64_t)s->offset, (uint64_t)s->size};
  return true;
}

bool thunkyPlanShapedSliceOf(Builder *b, const Xla__ShapedSliceProto *s, const char *what,
                             ThunkyPlanSlice *out) {
  return thunkyPlanSliceOf(b, s ? s->slice : NULL, what, out);
}

/* Appends slices to plan->slices; a NULL entry is a null operand (size 0). */
bool thunkyPlanSliceRange(Builder *b, size_t n, const SliceProto *const *slices,
                          const char *what, ThunkyRange *range) {
  range->first = *b->slices.count;
  range->count = (uint32_t)n;
  for (size_t i = 0; i < n; i++) {
    ThunkyPlanSlice *s = thunkyPlanPush(&b->slices);
    if (!s)
      return thunkyErrorf(b->error, "out of memory");
    if (slices[i])
      thunkyPlanSliceOf(b, slices[i], what, s); /* not NULL: cannot fail */
  }
  return true;
}

ThunkyCommand *thunkyPlanEmit(Builder *b, CommandVec *v, ThunkyCommandKind kind) {
  if (v->count == UINT32_MAX ||
      !thunkyArrayGrow((void **)&v->items, &v->capacity, v->count, sizeof *v->items)) {
    thunkyErrorf(b->error, "out of memory");
    return NULL;
  }
  ThunkyCommand *c = &v->items[v->count++];
  memset(c, 0, sizeof *c);
  c->kind = (uint8_t)kind;
  c->thunk = b->currentThunk;
  return c;
}

bool thunkyPlanMalformed(Builder *b, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(b->whyMalformed, sizeof b->whyMalformed, format, args);
  va_end(args);
  b->malformed = true;
  return false;
}

bool thunkyPlanRefuse(Builder *b, CommandVec *v, const char *format, ...) {
  char why[256];
  int n = snprintf(why, sizeof why, "%s with ", b->plan->thunks[b->currentThunk].kind);
  va_list args;
  va_start(args, format);
  vsnprintf(why + n, sizeof why - (size_t)n, format, args);
  va_end(args);
  return thunkyPlanEmit(b, v, THUNKY_CMD_OPAQUE) &&
         thunkyPlanKeepString(b, why, &b->plan->thunks[b->currentThunk].unsupported);
}
