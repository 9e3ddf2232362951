/*===- import_executable.c - GpuExecutableProto -> thunky module --------===*
 *
 * The mapping follows upstream JAX's importer (@main arguments: parameters,
 * fresh outputs, then scratch; constants as thunky.constant; slices; the
 * thunk kinds upstream maps as first-class ops; every other thunk as
 * thunky.call_thunk_proto with its slices renumbered over its operands), and
 * loses nothing: fields an op does not model stay on it as attributes
 * (executable_attrs.h), sequential thunks stay thunky.sequential, PTX and
 * cubin stay once on the module, and each op's location names its thunk.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/Translate.h"

#include "thunky-c/Arena.h"
#include "thunky-c/Executable.h"
#include "executable_attrs.h"
#include "ffi_attrs.h"
#include "thunky-c/Wire.h"
#include "xla_enums.h"
#include "thunky-c/ElementTypes.h"

#include "thunky-c/Diagnostics.h"
#include "thunky-c/Dialect.h"
#include "thunky-c/Ops.h"

#include "thunky-c/Container.h"
#include "thunky-c/HashMap.h"
#include "xla/pjrt/proto/compile_options.pb-c.h"
#include "xla/python/pjrt_ifrt/executable_metadata.pb-c.h"
#include "xla/service/gpu/gpu_executable.pb-c.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef Xla__Gpu__GpuExecutableProto Executable;
typedef Xla__Gpu__ThunkProto Thunk;

typedef struct Importer {
  MlirContext ctx;
  ThunkyArena *arena;
  MlirLocation fileLoc; /* the input, for errors not tied to a thunk */
  MlirLocation loc;     /* the thunk being imported */
  char thunk[256];      /* its name for messages: "thunk 7 zero_tail" */
  ThunkyExecutable *model;
  Executable *exe;      /* model->proto; what import takes out is cleared from it */
  size_t numAllocations;
  MlirValue *allocationValue;
  MlirBlock block; /* where ops go */
  MlirValue *tokens; /* per async slot: its start's token */
  ThunkyLimits limits;
  MlirType elementTypes[THUNKY_TYPE_COUNT]; /* parsed once each */
} Importer;

static const ProtobufCMessageDescriptor *const opaqueMessages[] = {
    &xla__hlo_module_proto_with_config__descriptor,
    &xla__buffer_assignment_proto__descriptor,
    &xla__executable_and_options_proto__descriptor,
    NULL,
};

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static MlirNamedAttribute named(Importer *im, const char *name, MlirAttribute a) {
  return mlirNamedAttributeGet(mlirIdentifierGet(im->ctx, str(name)), a);
}

static MlirAttribute i64Attr(Importer *im, int64_t v) {
  return mlirIntegerAttrGet(mlirIntegerTypeGet(im->ctx, 64), v);
}

static MlirAttribute stringAttr(Importer *im, const char *data, size_t size) {
  return mlirStringAttrGet(im->ctx, mlirStringRefCreate(data, size));
}

/* Reports at the current thunk, naming it: a NameLoc's name does not show
 * in a diagnostic, only its file position. */
static bool error(Importer *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool error(Importer *im, const char *fmt, ...) {
  char message[768];
  va_list args;
  va_start(args, fmt);
  vsnprintf(message, sizeof message, fmt, args);
  va_end(args);
  if (*im->thunk)
    thunkyEmitError(im->loc, "in %s: %s", im->thunk, message);
  else
    thunkyEmitError(im->loc, "%s", message);
  return false;
}

/* Appends a new op to the current block. */
/* MLIR's type for an xla.PrimitiveType, null when there is none. */
static MlirType elementType(Importer *im, int32_t type) {
  if (type <= 0 || type >= THUNKY_TYPE_COUNT)
    return (MlirType){NULL};
  if (mlirTypeIsNull(im->elementTypes[type]))
    im->elementTypes[type] = thunkyElementTypeToMlir(im->ctx, type);
  return im->elementTypes[type];
}

static MlirOperation emit(Importer *im, const char *name, intptr_t nOperands,
                          const MlirValue *operands, intptr_t nResults,
                          const MlirType *results, intptr_t nAttrs,
                          const MlirNamedAttribute *attrs, intptr_t nRegions) {
  MlirOperationState state = mlirOperationStateGet(str(name), im->loc);
  mlirOperationStateAddOperands(&state, nOperands, operands);
  mlirOperationStateAddResults(&state, nResults, results);
  mlirOperationStateAddAttributes(&state, nAttrs, attrs);
  MlirRegion regions[64];
  for (intptr_t i = 0; i < nRegions; ++i) {
    regions[i] = mlirRegionCreate();
    mlirRegionAppendOwnedBlock(regions[i], mlirBlockCreate(0, NULL, NULL));
  }
  mlirOperationStateAddOwnedRegions(&state, nRegions, regions);
  MlirOperation op = mlirOperationCreate(&state);
  mlirBlockAppendOwnedOperation(im->block, op);
  return op;
}

static void emitYield(Importer *im) {
  emit(im, "thunky.yield", 0, NULL, 0, NULL, 0, NULL, 0);
}

/*--- slices --------------------------------------------------------------*/

/* Whether `s` names bytes of an allocation that has a value (the model
 * checked every slice against its allocation); reports what is wrong. */
static bool checkSlice(Importer *im, const ThunkySlice *s) {
  char what[160];
  if (!s)
    return error(im, "%s", "thunk has no buffer slice where one is required");
  if (mlirValueIsNull(im->allocationValue[s->buffer_allocation_index])) {
    snprintf(what, sizeof what, "%" PRId64, s->buffer_allocation_index);
    return error(im, "slice refers to allocation %s, which holds no buffer", what);
  }
  return true;
}

/* The value for a slice: its allocation, or a thunky.slice_buffer of it. */
static bool sliceValue(Importer *im, const ThunkySlice *s, MlirValue *out) {
  if (!checkSlice(im, s))
    return false;
  int64_t size = (int64_t)im->model->allocations[s->buffer_allocation_index].size;
  MlirValue base = im->allocationValue[s->buffer_allocation_index];
  if (s->offset == 0 && s->size == size) {
    *out = base;
    return true;
  }
  MlirType type = thunkyBufferTypeGet(im->ctx, s->size);
  MlirNamedAttribute offset = named(im, "offset", i64Attr(im, s->offset));
  *out = mlirOperationGetResult(
      emit(im, "thunky.slice_buffer", 1, &base, 1, &type, 1, &offset, 0), 0);
  return true;
}

/* Takes the allocation, offset and size out of *slot (they become an SSA
 * value); drops the slice if nothing else (its element_type) is left. */
static void consumeSlice(ThunkySlice **slot) {
  ThunkySlice *s = *slot;
  s->has_offset = s->has_size = s->has_buffer_allocation_index = 0;
  if (thunkyProtoIsEmpty(&s->base))
    *slot = NULL;
}

/* The same for a ShapedSliceProto, which goes too when only the slice was
 * in it: export writes the container back whenever it writes the slice. */
static void consumeShapedSlice(Xla__ShapedSliceProto **slot) {
  consumeSlice(&(*slot)->slice);
  if (thunkyProtoIsEmpty(&(*slot)->base))
    *slot = NULL;
}

/* Drops a thunk sequence that only held the region's thunks; export makes it
 * again for a region with thunks, and an empty region keeps its empty one. */
static void consumeSequence(Xla__Gpu__ThunkSequenceProto **slot) {
  if (!*slot)
    return;
  bool hadThunks = (*slot)->n_thunks != 0;
  thunkyProtoClearField(&(*slot)->base, "thunks");
  if (hadThunks && thunkyProtoIsEmpty(&(*slot)->base))
    *slot = NULL;
}

/*--- thunks --------------------------------------------------------------*/

static bool importThunks(Importer *im, size_t n, Thunk **thunks);

/* Imports `thunks` into region `index` of `op`, ending it with a yield. */
static bool importRegion(Importer *im, MlirOperation op, intptr_t index,
                         size_t n, Thunk **thunks) {
  MlirBlock saved = im->block;
  im->block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, index));
  bool ok = importThunks(im, n, thunks);
  emitYield(im);
  im->block = saved;
  return ok;
}

/* Attaches what is left of `t` after the op took its fields. */
static bool attachResidual(Importer *im, MlirOperation op, Thunk *t,
                           ProtobufCMessage *impl, const char *implName) {
  if (impl && thunkyProtoIsEmpty(impl))
    thunkyProtoClearField(&t->base, implName);
  if (thunkyProtoIsEmpty(&t->base))
    return true;
  MlirAttribute kept = thunkyProtoToAttr(im->ctx, &t->base, NULL);
  if (mlirAttributeIsNull(kept))
    return error(im, "%s", "out of memory");
  mlirOperationSetDiscardableAttributeByName(op, str(THUNKY_ATTR_THUNK), kept);
  return true;
}

static bool importMemzero(Importer *im, Thunk *t) {
  Xla__Gpu__MemzeroThunkProto *m = t->memzero_thunk;
  MlirValue dst;
  if (!m->dest_buffer || !sliceValue(im, m->dest_buffer->slice, &dst))
    return m->dest_buffer ? false : error(im, "%s", "memzero_thunk has no dest_buffer");
  MlirOperation op = emit(im, "thunky.memzero", 1, &dst, 0, NULL, 0, NULL, 0);
  consumeShapedSlice(&m->dest_buffer);
  return attachResidual(im, op, t, &m->base, "memzero_thunk");
}

static bool importMemset(Importer *im, Thunk *t) {
  Xla__Gpu__Memset32BitValueThunkProto *m = t->memset32bit_value_thunk;
  MlirValue dst;
  if (!sliceValue(im, m->dest_buffer, &dst))
    return false;
  MlirNamedAttribute value = named(
      im, "value",
      mlirIntegerAttrGet(mlirIntegerTypeGet(im->ctx, 32), (int32_t)m->value));
  MlirOperation op = emit(im, "thunky.memset32", 1, &dst, 0, NULL, 1, &value, 0);
  consumeSlice(&m->dest_buffer);
  m->has_value = 0;
  return attachResidual(im, op, t, &m->base, "memset32bit_value_thunk");
}

static bool importCopy(Importer *im, Thunk *t) {
  Xla__Gpu__CopyThunkProto *c = t->device_to_device_copy_thunk->copy_thunk;
  MlirValue operands[2];
  if (!sliceValue(im, c->source_buffer->slice, &operands[0]) ||
      !sliceValue(im, c->destination_buffer->slice, &operands[1]))
    return false;
  MlirOperation op = emit(im, "thunky.copy", 2, operands, 0, NULL, 0, NULL, 0);
  consumeShapedSlice(&c->source_buffer);
  consumeShapedSlice(&c->destination_buffer);
  c->has_mem_size = 0, c->mem_size = 0; /* the slices' size: export writes it */
  return attachResidual(im, op, t, &t->device_to_device_copy_thunk->base,
                 "device_to_device_copy_thunk");
}

/* Whether a copy thunk fits thunky.copy (all of one buffer into another of
 * its size): both slices, equal sizes, and mem_size, the bytes XLA copies,
 * the same. Any other copy stays opaque, and exact. */
static bool copyIsFirstClass(const Thunk *t) {
  const Xla__Gpu__CopyThunkProto *c = t->device_to_device_copy_thunk->copy_thunk;
  return c && c->source_buffer && c->source_buffer->slice &&
         c->destination_buffer && c->destination_buffer->slice &&
         c->source_buffer->slice->size == c->destination_buffer->slice->size &&
         (c->has_mem_size ? c->mem_size : 0) == c->source_buffer->slice->size;
}

/*--- collectives ---------------------------------------------------------*/

static MlirAttribute replicaGroupsAttr(Importer *im,
                                       const Xla__Gpu__CollectiveConfigProto *c) {
  MlirAttribute *groups = malloc((c->n_replica_groups + 1) * sizeof *groups);
  if (!groups)
    return mlirAttributeGetNull();
  for (size_t g = 0; g < c->n_replica_groups; ++g)
    groups[g] = mlirDenseI64ArrayGet(im->ctx,
                                     (intptr_t)c->replica_groups[g]->n_replica_ids,
                                     c->replica_groups[g]->replica_ids);
  MlirAttribute a = mlirArrayAttrGet(im->ctx, (intptr_t)c->n_replica_groups, groups);
  free(groups);
  return a;
}

/* The element type of a collective whose config names one type for all of
 * its `n` buffers; a null type when it does not. */
static MlirType collectiveElementType(Importer *im,
                                      const Xla__Gpu__CollectiveConfigProto *c,
                                      size_t n) {
  if (!c || c->n_operand_element_type != n || n == 0)
    return (MlirType){NULL};
  for (size_t i = 1; i < n; ++i)
    if (c->operand_element_type[i] != c->operand_element_type[0])
      return (MlirType){NULL};
  return elementType(im, c->operand_element_type[0]);
}

static bool buffersHaveSlices(size_t n, Xla__Gpu__CollectiveBufferProto **b) {
  for (size_t i = 0; i < n; ++i)
    if (!b[i]->source_buffer || !b[i]->source_buffer->slice ||
        !b[i]->destination_buffer || !b[i]->destination_buffer->slice)
      return false;
  return true;
}

/* What all collective kinds share, found in one place for each kind. */
typedef struct Collective {
  const char *opName, *implName;
  ProtobufCMessage *impl;
  Xla__Gpu__CollectiveConfigProto *config;
  size_t numBuffers;
  Xla__Gpu__CollectiveBufferProto **buffers;
  int reductionKind; /* -1: the kind has none */
} Collective;

static bool describeCollective(Thunk *t, Collective *c) {
  switch (t->impl_case) {
#define KIND(CASE, field, op, reduction)                                      \
  case XLA__GPU__THUNK_PROTO__IMPL_##CASE:                                     \
    *c = (Collective){op, #field, &t->field->base, t->field->collective_config, \
                      t->field->n_buffers, t->field->buffers, reduction};       \
    return true;
    KIND(ALL_REDUCE_THUNK, all_reduce_thunk, "thunky.all_reduce",
         t->all_reduce_thunk->reduction_kind)
    KIND(REDUCE_SCATTER_THUNK, reduce_scatter_thunk, "thunky.reduce_scatter",
         t->reduce_scatter_thunk->reduction_kind)
    KIND(ALL_GATHER_THUNK, all_gather_thunk, "thunky.all_gather", -1)
    KIND(ALL_TO_ALL_THUNK, all_to_all_thunk, "thunky.all_to_all", -1)
    KIND(COLLECTIVE_PERMUTE_THUNK, collective_permute_thunk,
         "thunky.collective_permute", -1)
#undef KIND
  default:
    return false;
  }
}

/* Whether a collective fits its op: upstream splits multi-buffer thunks
 * into one op each, which would not export back to the same thunk, so
 * those stay opaque; so do types and modes the dialect cannot name. */
static bool collectiveIsFirstClass(Importer *im, Thunk *t) {
  Collective c;
  if (!describeCollective(t, &c) || !c.config ||
      !buffersHaveSlices(c.numBuffers, c.buffers) ||
      !thunkyGroupModeName(c.config->group_mode) ||
      (c.reductionKind >= 0 && !thunkyReductionKindName(c.reductionKind)))
    return false;
  bool allToAll = t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_ALL_TO_ALL_THUNK;
  if (!allToAll && c.numBuffers != 1)
    return false;
  MlirType element = collectiveElementType(im, c.config, c.numBuffers);
  return !mlirTypeIsNull(element) && thunkyCollectiveElementBytes(element) != 0;
}

static bool importCollective(Importer *im, Thunk *t) {
  Collective c;
  describeCollective(t, &c);
  size_t n = c.numBuffers;
  MlirValue *operands = malloc(2 * n * sizeof *operands);
  if (!operands)
    return error(im, "%s", "out of memory");
  bool ok = true;
  for (size_t i = 0; i < n && ok; ++i)
    ok = sliceValue(im, c.buffers[i]->source_buffer->slice, &operands[i]) &&
         sliceValue(im, c.buffers[i]->destination_buffer->slice, &operands[n + i]);
  if (!ok) {
    free(operands);
    return false;
  }
  MlirNamedAttribute attrs[8];
  intptr_t nAttrs = 0;
  attrs[nAttrs++] = named(im, "element_type",
                          mlirTypeAttrGet(collectiveElementType(im, c.config, n)));
  attrs[nAttrs++] = named(im, "group_mode",
                          mlirStringAttrGet(im->ctx, str(thunkyGroupModeName(
                                                         c.config->group_mode))));
  MlirAttribute groups = replicaGroupsAttr(im, c.config);
  bool permute = t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_COLLECTIVE_PERMUTE_THUNK;
  if (!permute || c.config->n_replica_groups)
    attrs[nAttrs++] = named(im, "replica_groups", groups);
  if (c.reductionKind >= 0)
    attrs[nAttrs++] = named(im, "reduction_kind",
                            mlirStringAttrGet(im->ctx, str(thunkyReductionKindName(
                                                           c.reductionKind))));
  if (t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_ALL_TO_ALL_THUNK) {
    attrs[nAttrs++] = named(im, "has_split_dimension",
                            mlirBoolAttrGet(im->ctx,
                                            t->all_to_all_thunk->has_split_dimension));
    t->all_to_all_thunk->has_has_split_dimension = 0;
  }
  if (permute) {
    Xla__Gpu__CollectivePermuteThunkProto *p = t->collective_permute_thunk;
    MlirAttribute *pairs = malloc((p->n_source_target_pairs + 1) * sizeof *pairs);
    if (!pairs) {
      free(operands);
      return error(im, "%s", "out of memory");
    }
    for (size_t i = 0; i < p->n_source_target_pairs; ++i) {
      int64_t pair[2] = {p->source_target_pairs[i]->source,
                         p->source_target_pairs[i]->target};
      pairs[i] = mlirDenseI64ArrayGet(im->ctx, 2, pair);
    }
    attrs[nAttrs++] =
        named(im, "source_target_pairs",
              mlirArrayAttrGet(im->ctx, (intptr_t)p->n_source_target_pairs, pairs));
    free(pairs);
    thunkyProtoClearField(&p->base, "source_target_pairs");
  }
  MlirOperation op =
      emit(im, c.opName, (intptr_t)(2 * n), operands, 0, NULL, nAttrs, attrs, 0);
  free(operands);
  bool buffersLeft = false;
  for (size_t i = 0; i < n; ++i) {
    consumeShapedSlice(&c.buffers[i]->source_buffer);
    consumeShapedSlice(&c.buffers[i]->destination_buffer);
    buffersLeft |= !thunkyProtoIsEmpty(&c.buffers[i]->base);
  }
  if (!buffersLeft)
    thunkyProtoClearField(c.impl, "buffers");
  thunkyProtoClearField(&c.config->base, "operand_element_type");
  thunkyProtoClearField(&c.config->base, "replica_groups");
  thunkyProtoClearField(&c.config->base, "group_mode");
  if (thunkyProtoIsEmpty(&c.config->base))
    thunkyProtoClearField(c.impl, "collective_config");
  if (c.reductionKind >= 0)
    thunkyProtoClearField(c.impl, "reduction_kind");
  return attachResidual(im, op, t, c.impl, c.implName);
}

/*--- custom calls --------------------------------------------------------*/

typedef Xla__Gpu__CustomCallThunkProto CustomCall;

/* The tensor type of an array shape; null for tuples and unknown types. */
static MlirType tensorType(Importer *im, const Xla__ShapeProto *shape) {
  MlirType element = elementType(im, shape->element_type);
  if (mlirTypeIsNull(element))
    return element;
  return mlirRankedTensorTypeGet((intptr_t)shape->n_dimensions, shape->dimensions,
                                 element, mlirAttributeGetNull());
}

static bool argumentsFit(Importer *im, size_t n, Xla__NullableShapedSliceProto **args,
                         bool *allShaped) {
  for (size_t i = 0; i < n; ++i) {
    Xla__ShapedSliceProto *s = args[i]->shaped_slice;
    if (!s || !s->slice)
      return false;
    *allShaped &= s->shape && !mlirTypeIsNull(tensorType(im, s->shape));
  }
  return true;
}

/* Upstream's conditions (a typed-FFI call with no called computation or
 * state, every argument a slice), and attributes that convert both ways. */
static bool customCallIsFirstClass(Importer *im, const Thunk *t) {
  const CustomCall *c = t->custom_call_thunk;
  bool shaped = true;
  return c->api_version == XLA__CUSTOM_CALL_API_VERSION__API_VERSION_TYPED_FFI &&
         (!c->called_computation || !*c->called_computation) &&
         (!c->execution_state || !c->execution_state->type_name ||
          !*c->execution_state->type_name) &&
         c->attributes && !mlirAttributeIsNull(thunkyFfiAttrsToAttr(im->ctx, c->attributes)) &&
         argumentsFit(im, c->n_operands, c->operands, &shaped) &&
         argumentsFit(im, c->n_results, c->results, &shaped);
}

/* operand_shapes/result_shapes, when every argument has an array shape. */
static MlirAttribute shapesAttr(Importer *im, size_t n, Xla__NullableShapedSliceProto **args) {
  MlirAttribute *types = malloc((n + 1) * sizeof *types);
  if (!types)
    return mlirAttributeGetNull();
  for (size_t i = 0; i < n; ++i) {
    const Xla__ShapeProto *shape = args[i]->shaped_slice->shape;
    MlirType type = shape ? tensorType(im, shape) : (MlirType){NULL};
    if (mlirTypeIsNull(type)) {
      free(types);
      return mlirAttributeGetNull();
    }
    types[i] = mlirTypeAttrGet(type);
  }
  MlirAttribute a = mlirArrayAttrGet(im->ctx, (intptr_t)n, types);
  free(types);
  return a;
}

/* Takes the slices (and the shapes that became types) out of the arguments;
 * drops the list if nothing else is left in it. */
static void consumeArguments(CustomCall *c, const char *field, size_t n,
                             Xla__NullableShapedSliceProto **args, bool shapes) {
  bool left = false;
  for (size_t i = 0; i < n; ++i) {
    Xla__ShapedSliceProto *s = args[i]->shaped_slice;
    if (shapes) {
      thunkyProtoClearField(&s->shape->base, "element_type");
      thunkyProtoClearField(&s->shape->base, "dimensions");
      if (thunkyProtoIsEmpty(&s->shape->base))
        s->shape = NULL;
    }
    consumeShapedSlice(&args[i]->shaped_slice);
    left |= !thunkyProtoIsEmpty(&args[i]->base);
  }
  if (!left)
    thunkyProtoClearField(&c->base, field);
}

static bool importCustomCall(Importer *im, Thunk *t) {
  CustomCall *c = t->custom_call_thunk;
  size_t n = c->n_operands + c->n_results;
  MlirValue *buffers = malloc((n + 1) * sizeof *buffers);
  if (!buffers)
    return error(im, "%s", "out of memory");
  bool ok = true;
  for (size_t i = 0; i < n && ok; ++i) {
    Xla__NullableShapedSliceProto *arg =
        i < c->n_operands ? c->operands[i] : c->results[i - c->n_operands];
    ok = sliceValue(im, arg->shaped_slice->slice, &buffers[i]);
  }
  if (!ok) {
    free(buffers);
    return false;
  }
  MlirAttribute operandShapes = shapesAttr(im, c->n_operands, c->operands);
  MlirAttribute resultShapes = shapesAttr(im, c->n_results, c->results);
  bool shapes = !mlirAttributeIsNull(operandShapes) && !mlirAttributeIsNull(resultShapes);
  MlirNamedAttribute attrs[6] = {
      named(im, "num_operands", i64Attr(im, (int64_t)c->n_operands)),
      named(im, "num_results", i64Attr(im, (int64_t)c->n_results)),
      named(im, "target_name",
            mlirStringAttrGet(im->ctx, str(c->target_name ? c->target_name : ""))),
      named(im, "backend_config", thunkyFfiAttrsToAttr(im->ctx, c->attributes)),
      named(im, "operand_shapes", operandShapes),
      named(im, "result_shapes", resultShapes),
  };
  MlirOperation op = emit(im, "thunky.custom_call", (intptr_t)n, buffers, 0, NULL,
                          shapes ? 6 : 4, attrs, 0);
  free(buffers);
  consumeArguments(c, "operands", c->n_operands, c->operands, shapes);
  consumeArguments(c, "results", c->n_results, c->results, shapes);
  thunkyProtoClearField(&c->base, "target_name");
  thunkyProtoClearField(&c->base, "api_version");
  thunkyProtoClearField(&c->base, "attributes");
  return attachResidual(im, op, t, &c->base, "custom_call_thunk");
}

/*--- control flow and async ----------------------------------------------*/

static bool importSequential(Importer *im, Thunk *t) {
  Xla__Gpu__SequentialThunkProto *s = t->sequential_thunk;
  MlirOperation op = emit(im, "thunky.sequential", 0, NULL, 0, NULL, 0, NULL, 1);
  if (!importRegion(im, op, 0, s->n_thunks, s->thunks))
    return false;
  thunkyProtoClearField(&s->base, "thunks");
  return attachResidual(im, op, t, &s->base, "sequential_thunk");
}

static bool importCollectiveGroup(Importer *im, Thunk *t) {
  Xla__Gpu__CollectiveGroupThunkProto *g = t->collective_group_thunk;
  MlirOperation op =
      emit(im, "thunky.collective_group", 0, NULL, 0, NULL, 0, NULL, 1);
  if (!importRegion(im, op, 0, g->n_thunks, g->thunks))
    return false;
  thunkyProtoClearField(&g->base, "thunks");
  return attachResidual(im, op, t, &g->base, "collective_group_thunk");
}

static bool importConditional(Importer *im, Thunk *t) {
  Xla__Gpu__ConditionalThunkProto *c = t->conditional_thunk;
  MlirValue predicate;
  if (!sliceValue(im, c->branch_index_buffer->slice, &predicate))
    return false;
  if (c->n_branch_thunks > 64)
    return error(im, "%s", "conditional_thunk has more than 64 branches");
  MlirOperation op = emit(im, "thunky.cond", 1, &predicate, 0, NULL, 0, NULL,
                          (intptr_t)c->n_branch_thunks);
  for (size_t b = 0; b < c->n_branch_thunks; ++b)
    if (!importRegion(im, op, (intptr_t)b, c->branch_thunks[b]->n_thunks,
                      c->branch_thunks[b]->thunks))
      return false;
  consumeShapedSlice(&c->branch_index_buffer);
  /* Each branch keeps its ThunkSequenceProto's other fields, if any. */
  for (size_t b = 0; b < c->n_branch_thunks; ++b)
    thunkyProtoClearField(&c->branch_thunks[b]->base, "thunks");
  bool plainBranches = true;
  for (size_t b = 0; b < c->n_branch_thunks; ++b)
    plainBranches &= thunkyProtoIsEmpty(&c->branch_thunks[b]->base);
  if (plainBranches)
    thunkyProtoClearField(&c->base, "branch_thunks");
  return attachResidual(im, op, t, &c->base, "conditional_thunk");
}

static bool conditionalIsFirstClass(const Thunk *t) {
  return thunkyConditionalPredicate(t->conditional_thunk) != THUNKY_PREDICATE_NONE;
}

static bool importWhile(Importer *im, Thunk *t) {
  Xla__Gpu__WhileThunkProto *w = t->while_thunk;
  MlirValue condition;
  if (!sliceValue(im, w->condition_result_buffer_index, &condition))
    return false;
  MlirOperation op = emit(im, "thunky.while", 1, &condition, 0, NULL, 0, NULL, 2);
  Xla__Gpu__ThunkSequenceProto *cond = w->condition_thunk_sequence;
  Xla__Gpu__ThunkSequenceProto *body = w->body_thunk_sequence;
  if (!importRegion(im, op, 0, cond ? cond->n_thunks : 0, cond ? cond->thunks : NULL) ||
      !importRegion(im, op, 1, body ? body->n_thunks : 0, body ? body->thunks : NULL))
    return false;
  consumeSlice(&w->condition_result_buffer_index);
  consumeSequence(&w->condition_thunk_sequence);
  consumeSequence(&w->body_thunk_sequence);
  return attachResidual(im, op, t, &w->base, "while_thunk");
}

static bool whileIsFirstClass(const Thunk *t) {
  return thunkyWhilePredicate(t->while_thunk) != THUNKY_PREDICATE_NONE;
}

static bool importAsyncStart(Importer *im, Thunk *t) {
  Xla__Gpu__AsyncStartThunkProto *a = t->async_start_thunk;
  uint32_t slot;
  if (!thunkyExecutableAsyncSlot(im->model, a->async_execution_id, &slot))
    return error(im, "%s", "async start has no slot"); /* the model gave every start one */
  bool communication =
      a->execution_stream_id_case ==
      XLA__GPU__ASYNC_START_THUNK_PROTO__EXECUTION_STREAM_ID_COMMUNICATION_STREAM_ID;
  int64_t stream = communication ? (int64_t)a->communication_stream_id
                                 : (int64_t)a->computation_stream_id;
  MlirNamedAttribute attrs[2] = {
      named(im, "stream_id", i64Attr(im, stream)),
      named(im, "is_communication", mlirBoolAttrGet(im->ctx, communication)),
  };
  MlirType tokenType = thunkyTokenTypeGet(im->ctx);
  MlirOperation op =
      emit(im, "thunky.async_start", 0, NULL, 1, &tokenType, 2, attrs, 1);
  im->tokens[slot] = mlirOperationGetResult(op, 0);
  Xla__Gpu__ThunkSequenceProto *body = a->thunks;
  if (!importRegion(im, op, 0, body ? body->n_thunks : 0, body ? body->thunks : NULL))
    return false;
  consumeSequence(&a->thunks);
  /* The stream stays in the residual only through the op; the execution id
   * stays in the residual so that export gives back the same number. */
  a->execution_stream_id_case =
      XLA__GPU__ASYNC_START_THUNK_PROTO__EXECUTION_STREAM_ID__NOT_SET;
  return attachResidual(im, op, t, &a->base, "async_start_thunk");
}

static bool importAsyncDone(Importer *im, Thunk *t) {
  uint64_t id = t->async_done_thunk->async_execution_id;
  uint32_t slot;
  /* The model refused a done before its start. */
  if (!thunkyExecutableAsyncSlot(im->model, id, &slot) || mlirValueIsNull(im->tokens[slot]))
    return error(im, "async done for execution id %" PRIu64 " has no start", id);
  MlirOperation op = emit(im, "thunky.async_done", 1, &im->tokens[slot], 0, NULL, 0, NULL, 0);
  /* The id is the token's: export takes it from the async_start. */
  t->async_done_thunk->has_async_execution_id = 0;
  t->async_done_thunk->async_execution_id = 0;
  return attachResidual(im, op, t, &t->async_done_thunk->base, "async_done_thunk");
}

/*--- everything else: call_thunk_proto -----------------------------------*/

typedef struct Localizer {
  Importer *im;
  int64_t *globals; /* distinct allocation indices, first-seen order */
  int *writes;      /* per operand: whether the thunk may write it */
  size_t count;
  ThunkyHashMap locals; /* allocation index -> operand */
  bool failed;
} Localizer;

static bool localizeSlice(ThunkySlice *s, ThunkyAccess access, void *userData) {
  Localizer *l = userData;
  if (!checkSlice(l->im, s)) {
    l->failed = true;
    return false;
  }
  int64_t global = s->buffer_allocation_index;
  uint32_t local;
  if (!thunkyHashMapGet(&l->locals, (uint64_t)global, &local)) {
    local = (uint32_t)l->count;
    if (!thunkyHashMapPut(&l->locals, (uint64_t)global, local)) {
      l->failed = true;
      return error(l->im, "%s", "out of memory");
    }
    l->globals[l->count] = global;
    l->writes[l->count++] = 0;
  }
  l->writes[local] |= (access & THUNKY_ACCESS_WRITE) != 0;
  s->buffer_allocation_index = (int64_t)local;
  /* XLA's slices are proto3: a zero is never on the wire. An explicit one is
   * dropped here, as export would drop it, so that import(export(m)) is m. */
  s->has_buffer_allocation_index = local != 0;
  s->has_offset = s->offset != 0;
  s->has_size = s->size != 0;
  return true;
}

static bool countSlice(ThunkySlice *s, ThunkyAccess access, void *userData) {
  ++*(size_t *)userData;
  return true;
}

static const char *kernelName(const Thunk *t) {
  if (t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_KERNEL_THUNK &&
      t->kernel_thunk->kernel_name)
    return t->kernel_thunk->kernel_name;
  if (t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_KERNEL_THUNK &&
      t->custom_kernel_thunk->custom_kernel &&
      t->custom_kernel_thunk->custom_kernel->name)
    return t->custom_kernel_thunk->custom_kernel->name;
  return "thunk";
}

/* A custom kernel's cubin or PTX, moved out of the thunk (see
 * THUNKY_ATTR_KERNEL_BINARY); a null attribute when there is none. */
static MlirAttribute takeKernelBinary(Importer *im, Thunk *t) {
  const Xla__Gpu__CustomKernelProto *k =
      t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_KERNEL_THUNK
          ? t->custom_kernel_thunk->custom_kernel
          : NULL;
  StreamExecutor__KernelLoaderSpecProto *spec = k ? k->kernel_spec : NULL;
  if (spec && spec->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_CUBIN &&
      spec->cubin && spec->cubin->has_data && spec->cubin->data.len) {
    MlirAttribute code =
        stringAttr(im, (const char *)spec->cubin->data.data, spec->cubin->data.len);
    spec->cubin->has_data = 0;
    spec->cubin->data.len = 0;
    return code;
  }
  if (spec && spec->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_PTX &&
      spec->ptx && spec->ptx->data && *spec->ptx->data) {
    MlirAttribute code = stringAttr(im, spec->ptx->data, strlen(spec->ptx->data));
    spec->ptx->data = NULL;
    return code;
  }
  return mlirAttributeGetNull();
}

static bool importOpaque(Importer *im, Thunk *t) {
  size_t numSlices = 0;
  thunkyForEachSlice(&t->base, true, countSlice, &numSlices);
  Localizer l = {.im = im, .globals = malloc((numSlices + 1) * sizeof(int64_t)),
                 .writes = malloc((numSlices + 1) * sizeof(int))};
  if (!l.globals || !l.writes) {
    free(l.globals), free(l.writes);
    return error(im, "%s", "out of memory");
  }
  thunkyForEachSlice(&t->base, true, localizeSlice, &l);
  thunkyHashMapDestroy(&l.locals);
  if (l.failed) {
    free(l.globals), free(l.writes);
    return false;
  }
  MlirValue *operands = malloc((l.count + 1) * sizeof *operands);
  MlirType *types = malloc((l.count + 1) * sizeof *types);
  /* Sized once the binary is out: the thunk without its cubin is small. */
  MlirAttribute code = takeKernelBinary(im, t);
  size_t packed = protobuf_c_message_get_packed_size(&t->base);
  uint8_t *bytes = malloc(packed + 1);
  if (!operands || !types || !bytes) {
    free(l.globals), free(l.writes), free(operands), free(types), free(bytes);
    return error(im, "%s", "out of memory");
  }
  for (size_t i = 0; i < l.count; ++i)
    operands[i] = im->allocationValue[l.globals[i]];
  protobuf_c_message_pack(&t->base, bytes);
  MlirNamedAttribute attrs[4] = {
      named(im, "kernel_name", mlirStringAttrGet(im->ctx, str(kernelName(t)))),
      named(im, "thunk_proto", stringAttr(im, (const char *)bytes, packed)),
      /* PTX and cubin stay once on the module (thunky.executable). */
      named(im, "asm_text", stringAttr(im, "", 0)),
      named(im, "binary", stringAttr(im, "", 0)),
  };
  free(bytes);
  MlirOperation op = emit(im, "thunky.call_thunk_proto", (intptr_t)l.count, operands,
                          0, NULL, 4, attrs, 0);
  if (!mlirAttributeIsNull(code))
    mlirOperationSetDiscardableAttributeByName(op, str(THUNKY_ATTR_KERNEL_BINARY), code);
  /* What the thunk kind table says of each operand, for the passes. */
  mlirOperationSetDiscardableAttributeByName(
      op, str(THUNKY_ATTR_WRITTEN), mlirDenseBoolArrayGet(im->ctx, (intptr_t)l.count, l.writes));
  free(l.globals), free(l.writes), free(operands), free(types);
  return true;
}

/*--- dispatch ------------------------------------------------------------*/

/* Names the thunk `t` in im->thunk and returns the location for its ops. */
static MlirLocation thunkLocation(Importer *im, const Thunk *t) {
  const Xla__Gpu__ThunkInfoProto *info = t->thunk_info;
  snprintf(im->thunk, sizeof im->thunk, "thunk %" PRId64 "%s%s",
           info ? info->thunk_id : 0, info && info->profile_annotation ? " " : "",
           info && info->profile_annotation ? info->profile_annotation : "");
  return mlirLocationNameGet(im->ctx, str(im->thunk), im->fileLoc);
}

static bool importThunk(Importer *im, Thunk *t) {
  MlirLocation saved = im->loc;
  char savedName[sizeof im->thunk];
  memcpy(savedName, im->thunk, sizeof savedName);
  im->loc = thunkLocation(im, t);
  bool ok;
  switch (t->impl_case) {
  case XLA__GPU__THUNK_PROTO__IMPL_MEMZERO_THUNK:
    ok = t->memzero_thunk->dest_buffer && t->memzero_thunk->dest_buffer->slice
             ? importMemzero(im, t)
             : importOpaque(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_MEMSET32BIT_VALUE_THUNK:
    ok = t->memset32bit_value_thunk->dest_buffer &&
                 t->memset32bit_value_thunk->dest_buffer->size % 4 == 0
             ? importMemset(im, t)
             : importOpaque(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_DEVICE_TO_DEVICE_COPY_THUNK:
    ok = copyIsFirstClass(t) ? importCopy(im, t) : importOpaque(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_ALL_REDUCE_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_ALL_GATHER_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_REDUCE_SCATTER_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_ALL_TO_ALL_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_COLLECTIVE_PERMUTE_THUNK:
    ok = collectiveIsFirstClass(im, t) ? importCollective(im, t)
                                       : importOpaque(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_CALL_THUNK:
    ok = customCallIsFirstClass(im, t) ? importCustomCall(im, t) : importOpaque(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_SEQUENTIAL_THUNK:
    ok = importSequential(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_COLLECTIVE_GROUP_THUNK:
    ok = importCollectiveGroup(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_CONDITIONAL_THUNK:
    ok = conditionalIsFirstClass(t) ? importConditional(im, t) : importOpaque(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_WHILE_THUNK:
    ok = whileIsFirstClass(t) ? importWhile(im, t) : importOpaque(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_ASYNC_START_THUNK:
    ok = importAsyncStart(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_ASYNC_DONE_THUNK:
    ok = importAsyncDone(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL__NOT_SET:
    ok = error(im, "%s", "thunk has no kind (its impl oneof is not set)");
    break;
  default:
    ok = importOpaque(im, t);
    break;
  }
  im->loc = saved;
  memcpy(im->thunk, savedName, sizeof savedName);
  return ok;
}

static bool importThunks(Importer *im, size_t n, Thunk **thunks) {
  for (size_t i = 0; i < n; ++i)
    if (!importThunk(im, thunks[i]))
      return false;
  return true;
}

/*--- allocations ---------------------------------------------------------*/

/* Constants bigger than this are refused, and so is padding a constant's
 * bytes by more than MAX_CONSTANT_PADDING up to its allocation: a few bytes
 * of input must not make gigabytes of module. */
#define MAX_CONSTANT_BYTES ((int64_t)1 << 30)
#define MAX_CONSTANT_PADDING ((int64_t)1 << 20)

typedef Xla__BufferAllocationProto Allocation;

/* Upstream's order of @main's arguments: parameters (in the model's
 * order), then outputs that are not parameters in shape-index order, then
 * every remaining allocation that is not a constant, by index. */
static bool argumentOrder(Importer *im, size_t **order, size_t *count) {
  const ThunkyExecutable *m = im->model;
  bool *placed = calloc(m->numAllocations + 1, sizeof *placed);
  *order = calloc(m->numAllocations + 1, sizeof **order);
  *count = 0;
  if (!placed || !*order) {
    free(placed);
    return error(im, "%s", "out of memory");
  }
  for (uint32_t p = 0; p < m->numParameters; p++)
    placed[m->parameters[p]] = true, (*order)[(*count)++] = m->parameters[p];
  for (uint32_t o = 0; o < m->numOutputs; o++)
    if (!placed[m->outputs[o].allocation])
      placed[m->outputs[o].allocation] = true, (*order)[(*count)++] = m->outputs[o].allocation;
  for (uint32_t a = 0; a < m->numAllocations; a++)
    if (!placed[a] && m->allocations[a].constant < 0)
      (*order)[(*count)++] = a;
  free(placed);
  return true;
}

/* "parameter 0", "output {1, 0}", "parameter 2, output {0}", "scratch". */
static MlirAttribute roleAttr(Importer *im, size_t a) {
  const ThunkyExecutableAllocation *alloc = &im->model->allocations[a];
  char text[256];
  size_t used = 0;
  if (alloc->parameter >= 0)
    used += (size_t)snprintf(text, sizeof text, "parameter %" PRId64, alloc->parameter);
  const Xla__ShapeIndexProto *index = alloc->outputIndex;
  if (alloc->isOutput) {
    used += (size_t)snprintf(text + used, sizeof text - used, "%soutput {",
                             used ? ", " : "");
    for (size_t i = 0; index && i < index->n_indexes && used < sizeof text; ++i)
      used += (size_t)snprintf(text + used, sizeof text - used, "%s%" PRId64,
                               i ? ", " : "", index->indexes[i]);
    if (used < sizeof text)
      used += (size_t)snprintf(text + used, sizeof text - used, "}");
  }
  if (!used)
    snprintf(text, sizeof text, "%s",
             alloc->proto->is_thread_local ? "thread-local scratch" : "scratch");
  return mlirStringAttrGet(im->ctx, str(text));
}

/* The allocation's fields less its size, which the buffer type carries. */
static MlirAttribute allocationAttr(Importer *im, size_t a) {
  Allocation *copy = thunkyArenaCopy(im->arena, im->model->allocations[a].proto,
                                     sizeof(Allocation));
  if (!copy)
    return mlirAttributeGetNull();
  copy->has_size = 0;
  return thunkyProtoToAttr(im->ctx, &copy->base, NULL);
}

/*--- constants -----------------------------------------------------------*/

static bool importConstant(Importer *im, const ThunkyExecutableConstant *k) {
  Xla__Gpu__GpuExecutableProto__ConstantInfoProto *c = k->proto;
  size_t a = k->allocation;
  int64_t size = (int64_t)im->model->allocations[a].size;
  int64_t length = (int64_t)k->bytes.size;
  char what[160];
  snprintf(what, sizeof what, "%s (allocation %zu, %" PRId64 " bytes)",
           c->symbol_name ? c->symbol_name : "(unnamed)", a, size);
  if (size > MAX_CONSTANT_BYTES)
    return error(im, "constant %s is larger than the 1 GiB import limit", what);
  if (size - length > MAX_CONSTANT_PADDING)
    return error(im, "constant %s holds %" PRId64 " bytes, more than 1 MiB short of its "
                 "allocation", what, length);
  char *value = calloc((size_t)size + 1, 1);
  if (!value)
    return error(im, "%s", "out of memory");
  if (length) /* data is NULL for an empty constant */
    memcpy(value, k->bytes.data, (size_t)length);
  MlirAttribute allocation = allocationAttr(im, a);
  if (mlirAttributeIsNull(allocation)) {
    free(value);
    return error(im, "%s", "out of memory");
  }
  MlirType type = thunkyBufferTypeGet(im->ctx, size);
  MlirNamedAttribute attrs[3];
  intptr_t n = 0;
  attrs[n++] = named(im, "value", stringAttr(im, value, (size_t)size));
  attrs[n++] = named(im, THUNKY_ATTR_ALLOCATION, allocation);
  if (!k->inProto)
    attrs[n++] = named(im, THUNKY_ATTR_CONTENT_OMITTED, mlirUnitAttrGet(im->ctx));
  free(value);
  MlirOperation op = emit(im, "thunky.constant", 0, NULL, 1, &type, n, attrs, 0);
  im->allocationValue[a] = mlirOperationGetResult(op, 0);
  /* The bytes live in the op; the proto keeps them only if padding made the
   * op's value differ from them. */
  if (k->inProto && length == size)
    thunkyProtoClearField(&c->base, "content");
  return true;
}

/*--- the module ----------------------------------------------------------*/

static MlirOperation buildMain(Importer *im) {
  size_t *order, n;
  if (!argumentOrder(im, &order, &n))
    return (MlirOperation){NULL};
  MlirType *types = malloc((n + 1) * sizeof *types);
  MlirLocation *locs = malloc((n + 1) * sizeof *locs);
  MlirAttribute *argAttrs = malloc((n + 1) * sizeof *argAttrs);
  if (!types || !locs || !argAttrs) {
    free(order), free(types), free(locs), free(argAttrs);
    error(im, "%s", "out of memory");
    return (MlirOperation){NULL};
  }
  for (size_t i = 0; i < n; ++i) {
    size_t a = order[i];
    const Xla__ShapeProto *shape = im->model->allocations[a].shape;
    types[i] = thunkyBufferTypeGet(im->ctx, (int64_t)im->model->allocations[a].size);
    locs[i] = im->fileLoc;
    MlirType logical = shape ? tensorType(im, shape) : (MlirType){NULL};
    MlirAttribute allocation = allocationAttr(im, a);
    if (mlirAttributeIsNull(allocation)) {
      free(order), free(types), free(locs), free(argAttrs);
      error(im, "%s", "out of memory");
      return (MlirOperation){NULL};
    }
    MlirNamedAttribute entries[3] = {
        named(im, THUNKY_ATTR_ALLOCATION, allocation),
        named(im, THUNKY_ATTR_ROLE, roleAttr(im, a)),
    };
    intptr_t count = 2;
    if (!mlirTypeIsNull(logical))
      entries[count++] = named(im, THUNKY_ATTR_SHAPE, mlirTypeAttrGet(logical));
    argAttrs[i] = mlirDictionaryAttrGet(im->ctx, count, entries);
  }
  MlirAttribute fnType = mlirTypeAttrGet(
      mlirFunctionTypeGet(im->ctx, (intptr_t)n, types, 0, NULL));
  MlirNamedAttribute attrs[3] = {
      named(im, "sym_name", mlirStringAttrGet(im->ctx, str("main"))),
      named(im, "function_type", fnType),
      named(im, "arg_attrs", mlirArrayAttrGet(im->ctx, (intptr_t)n, argAttrs)),
  };
  MlirOperationState state = mlirOperationStateGet(str("func.func"), im->fileLoc);
  mlirOperationStateAddAttributes(&state, 3, attrs);
  MlirRegion body = mlirRegionCreate();
  MlirBlock entry = mlirBlockCreate((intptr_t)n, types, locs);
  mlirRegionAppendOwnedBlock(body, entry);
  mlirOperationStateAddOwnedRegions(&state, 1, &body);
  free(types), free(locs), free(argAttrs);
  for (size_t i = 0; i < n; ++i)
    im->allocationValue[order[i]] = mlirBlockGetArgument(entry, (intptr_t)i);
  free(order);
  im->block = entry;
  return mlirOperationCreate(&state);
}

static bool importBody(Importer *im) {
  for (uint32_t c = 0; c < im->model->numConstants; ++c) {
    const ThunkyExecutableConstant *k = &im->model->constants[c];
    /* Constants of argument allocations stay in the executable's table. */
    if (mlirValueIsNull(im->allocationValue[k->allocation]) && !importConstant(im, k))
      return false;
  }
  if (!importThunks(im, im->exe->n_thunks, im->exe->thunks))
    return false;
  im->loc = im->fileLoc;
  emit(im, "func.return", 0, NULL, 0, NULL, 0, NULL, 0);
  return true;
}

static bool setModuleAttr(Importer *im, MlirOperation module, const char *name,
                          ProtobufCMessage *msg) {
  MlirAttribute kept = thunkyProtoToAttr(im->ctx, msg, opaqueMessages);
  if (mlirAttributeIsNull(kept))
    return error(im, "%s", "out of memory");
  mlirOperationSetAttributeByName(module, str(name), kept);
  return true;
}

/* What the layers around the executable carry, so export can rebuild them
 * (the container checked both messages' wire format). */
static bool setContainerAttrs(Importer *im, MlirOperation module, const ThunkyContainer *c) {
  if (c->layering == THUNKY_LAYERING_EXECUTABLE)
    return true;
  ProtobufCAllocator *alloc = thunkyArenaAllocator(im->arena);
  const char *name = thunkyLayeringName(c->layering);
  mlirOperationSetAttributeByName(module, str(THUNKY_ATTR_CONTAINER), stringAttr(im, name, strlen(name)));
  if (c->options.size) {
    ProtobufCMessage *options = protobuf_c_message_unpack(
        &xla__executable_and_options_proto__descriptor, alloc, c->options.size, c->options.data);
    if (!options || !setModuleAttr(im, module, THUNKY_ATTR_OPTIONS, options))
      return error(im, "%s", "the ExecutableAndOptionsProto did not unpack");
  }
  if (c->metadata.size) {
    ProtobufCMessage *metadata =
        protobuf_c_message_unpack(&xla__ifrt__serialized_xla_executable_metadata__descriptor,
                                  alloc, c->metadata.size, c->metadata.data);
    if (!metadata || !setModuleAttr(im, module, THUNKY_ATTR_IFRT_METADATA, metadata))
      return error(im, "%s", "the IFRT metadata did not unpack");
  }
  return true;
}

MlirOperation thunkyImportExecutable(MlirContext ctx, MlirStringRef bytes,
                                     MlirStringRef bufferName) {
  return thunkyImportExecutableWithLimits(ctx, bytes, bufferName, NULL);
}

MlirOperation thunkyImportExecutableWithLimits(MlirContext ctx, MlirStringRef bytes,
                                               MlirStringRef bufferName,
                                               const ThunkyLimits *limits) {
  thunkyContextLoadDialects(ctx);
  Importer im = {.ctx = ctx, .arena = thunkyArenaCreate(),
                 .limits = limits ? *limits : thunkyLimitsDefault()};
  im.fileLoc = mlirLocationFileLineColGet(ctx, bufferName, 0, 0);
  im.loc = im.fileLoc;
  MlirOperation result = {NULL};
  ThunkyError why;
  if (!im.arena) {
    error(&im, "%s", "out of memory");
    return result;
  }
  if (!thunkyExecutableCreate(bytes.data, bytes.length, &im.limits, &im.model, &why)) {
    error(&im, "%s", why.message);
    thunkyArenaDestroy(im.arena);
    return result;
  }
  im.exe = im.model->proto;
  im.numAllocations = im.model->numAllocations;
  im.allocationValue = calloc(im.numAllocations + 1, sizeof *im.allocationValue);
  im.tokens = calloc(im.model->numAsyncSlots + 1, sizeof *im.tokens);
  MlirModule module = mlirModuleCreateEmpty(im.fileLoc);
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirOperation main = {NULL};
  bool ok = (im.allocationValue && im.tokens) || error(&im, "%s", "out of memory");
  ok = ok && !mlirOperationIsNull(main = buildMain(&im));
  if (!mlirOperationIsNull(main))
    mlirBlockAppendOwnedOperation(mlirModuleGetBody(module), main);
  ok = ok && importBody(&im);
  if (ok) {
    Xla__HumanReadableAotExecutable *wrapper = im.model->wrapper;
    /* What the ops and arguments now carry leaves the executable. */
    thunkyProtoClearField(&im.exe->base, "thunks");
    if (im.exe->buffer_allocations)
      thunkyProtoClearField(&im.exe->buffer_allocations->base, "values");
    if (wrapper)
      thunkyProtoClearField(&wrapper->base, "gpu_executable");
    ok = setModuleAttr(&im, moduleOp, THUNKY_ATTR_EXECUTABLE, &im.exe->base) &&
         (!wrapper || setModuleAttr(&im, moduleOp, THUNKY_ATTR_WRAPPER, &wrapper->base)) &&
         setContainerAttrs(&im, moduleOp, &im.model->container) && mlirOperationVerify(moduleOp);
  }
  if (ok)
    result = moduleOp;
  else
    mlirModuleDestroy(module);
  thunkyExecutableDestroy(im.model);
  free(im.allocationValue), free(im.tokens);
  thunkyArenaDestroy(im.arena);
  return result;
}
