/*===- plan_tma.c - a kernel's TMA descriptors, as XLA checks them -------===*
 *
 * XLA passes a kernel argument that has a TMA descriptor as the 128-byte
 * CUtensorMap cuTensorMapEncodeTiled makes of it, by value. Before that,
 * TmaDescriptor::Create (stream_executor/gpu/tma_metadata.cc) checks it
 * against the limits CUDA documents for cuTensorMapEncodeTiled; the plan
 * checks the same, so that a bad descriptor is refused by name rather
 * than by the driver.
 *
 *===--------------------------------------------------------------------===*/
#include "plan_builder.h"

#include <inttypes.h>
#include <stdlib.h>

typedef StreamExecutor__Gpu__TmaDescriptorProto Descriptor;

/* TmaDescriptor's limits. */
enum { MAX_BOX_DIM = 256, MIN_RANK = 1, MAX_RANK = 5, MAX_ELEMENT_STRIDE = 8 };
#define MAX_GLOBAL_DIM (UINT64_C(1) << 32)
#define MAX_GLOBAL_STRIDE ((UINT64_C(1) << 40) - 1)

static bool bad(Builder *b, uint32_t arg, const char *why) {
  return thunkyPlanMalformed(b, "the TMA descriptor of argument %u: %s", arg, why);
}

/* TmaDescriptor::Create's checks, in its order, with its words. */
static bool check(Builder *b, uint32_t arg, const ThunkyPlanTma *t) {
  uint32_t e = t->elementSize, r = t->rank;
  bool none = t->interleave == 0;
  if (e != 1 && e != 2 && e != 4 && e != 8)
    return bad(b, arg, "unsupported element size (1, 2, 4 or 8 bytes)");
  for (uint32_t d = 0; d < r; d++)
    if (!t->globalDims[d] || t->globalDims[d] > MAX_GLOBAL_DIM)
      return bad(b, arg, "global_dims must be non-zero and <= 2^32");
  for (uint32_t i = 0; i + 1 < r; i++) {
    uint64_t stride = t->globalStrides[i];
    if (stride % 16 || stride > MAX_GLOBAL_STRIDE)
      return bad(b, arg, "global_strides must be a multiple of 16 and < 2^40");
    if (t->interleave == 2 && stride % 32)
      return bad(b, arg, "global_strides must be a multiple of 32 when interleave is 32B");
    if (i > 0 && stride % t->globalStrides[i - 1])
      return bad(b, arg, "each global stride must be a multiple of the one before");
    if (stride < t->globalDims[i])
      return bad(b, arg, "each global stride must be >= its global dim");
  }
  for (uint32_t d = 0; d < r; d++)
    if (!t->boxDims[d] || t->boxDims[d] > MAX_BOX_DIM)
      return bad(b, arg, "box_dims must be non-zero and <= 256");
  uint64_t inner = (uint64_t)t->boxDims[0] * e;
  if (none && inner % 16)
    return bad(b, arg,
               "when interleave is none, box_dims[0] * element size must be a multiple "
               "of 16 bytes");
  if (t->elementStrides[0] != 1)
    return bad(b, arg, "element_strides[0] must be 1");
  for (uint32_t d = 0; d < r; d++)
    if (!t->elementStrides[d] || t->elementStrides[d] > MAX_ELEMENT_STRIDE)
      return bad(b, arg, "element_strides must be non-zero and <= 8");
  static const uint64_t swizzleSpan[] = {0, 32, 64, 128};
  if (none && t->swizzle && inner > swizzleSpan[t->swizzle])
    return bad(b, arg,
               "when interleave is none, box_dims[0] * element size must fit the "
               "swizzle's span (32, 64 or 128 bytes)");
  if (t->interleave == 2 && t->swizzle != 1)
    return bad(b, arg, "when interleave is 32B, swizzle must be 32B");
  return true;
}

/* The proto's form, read as TmaDescriptor::FromProto reads it. */
static bool read(Builder *b, uint32_t arg, const Descriptor *d, ThunkyPlanTma *t) {
  *t = (ThunkyPlanTma){.arg = arg, .rank = (uint32_t)d->n_global_dims};
  if (d->interleave > 2 || d->swizzle > 3 || d->l2_promotion > 3 || d->float_oob_fill > 1)
    return bad(b, arg, "an interleave, swizzle, L2 promotion or fill this XLA does not know");
  if (d->n_global_dims < MIN_RANK || d->n_global_dims > MAX_RANK)
    return bad(b, arg, "unsupported rank (1 to 5)");
  if (d->n_box_dims != t->rank || d->n_element_strides != t->rank)
    return bad(b, arg, "global_dims, box_dims and element_strides must have the same rank");
  if (d->n_global_strides != t->rank - 1)
    return bad(b, arg, "global_strides must have one fewer than global_dims");
  if (d->interleave && t->rank < 3)
    return bad(b, arg, "an interleave needs a rank of 3 or more");
  if (d->element_size < 0 || d->element_size > 8)
    return bad(b, arg, "unsupported element size (1, 2, 4 or 8 bytes)");
  t->elementSize = (uint32_t)d->element_size;
  for (uint32_t i = 0; i < t->rank; i++) {
    if (d->global_dims[i] < 0 || d->box_dims[i] < 0 || d->element_strides[i] < 0)
      return bad(b, arg, "global_dims, box_dims and element_strides must be non-negative");
    t->globalDims[i] = (uint64_t)d->global_dims[i];
    t->boxDims[i] = (uint32_t)d->box_dims[i],
    t->elementStrides[i] = (uint32_t)d->element_strides[i];
  }
  for (uint32_t i = 0; i + 1 < t->rank; i++) {
    if (d->global_strides[i] < 0)
      return bad(b, arg, "global_strides must be non-negative");
    t->globalStrides[i] = (uint64_t)d->global_strides[i];
  }
  t->interleave = (uint8_t)d->interleave, t->swizzle = (uint8_t)d->swizzle;
  t->l2Promotion = (uint8_t)d->l2_promotion, t->floatOobFill = (uint8_t)d->float_oob_fill;
  return check(b, arg, t);
}

bool thunkyPlanTmas(Builder *b, const StreamExecutor__Gpu__TmaMetadataProto *tma, uint32_t numArgs,
                    ThunkyRange *out) {
  *out = (ThunkyRange){b->plan->numTmas, 0};
  size_t n = tma ? tma->n_arg_index_to_tma_info : 0;
  if (!n)
    return true;
  /* By argument, whatever the map's order, in time linear in the arguments. */
  const Descriptor **byArg = calloc(numArgs + 1, sizeof *byArg);
  if (!byArg)
    return thunkyErrorf(b->error, "out of memory");
  bool ok = true;
  for (size_t i = 0; ok && i < n; i++) {
    const StreamExecutor__Gpu__TmaMetadataProto__ArgIndexToTmaInfoEntry *e =
        tma->arg_index_to_tma_info[i];
    if (e->key < 0 || e->key >= numArgs || !e->value)
      ok = thunkyPlanMalformed(b, "a TMA descriptor for argument %" PRId64 " of %u", e->key,
                               numArgs);
    else if (byArg[e->key])
      ok = thunkyPlanMalformed(b, "two TMA descriptors for argument %" PRId64, e->key);
    else
      byArg[e->key] = e->value;
  }
  for (uint32_t a = 0; ok && a < numArgs; a++) {
    if (!byArg[a])
      continue;
    ThunkyPlanTma t;
    ThunkyPlanTma *at = (ok = read(b, a, byArg[a], &t)) ? thunkyPlanPush(&b->tmas) : NULL;
    if (ok && !at)
      ok = thunkyErrorf(b->error, "out of memory");
    if (ok)
      *at = t;
  }
  free(byArg);
  out->count = b->plan->numTmas - out->first;
  return ok;
}
