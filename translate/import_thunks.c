/*===- import_thunks.c - the thunk kinds that have ops of their own ----===*
 *
 * Each kind upstream maps as a first-class op becomes that op when its
 * fields fit; otherwise it stays exact as thunky.call_thunk_proto.
 *
 *===--------------------------------------------------------------------===*/
#include "import.h"

#include "ffi_attrs.h"
#include "proto_attr.h"
#include "xla_enums.h"
#include "thunky-c/dialect/Ops.h"
#include "mlir-c/BuiltinTypes.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool importMemzero(Importer *im, Thunk *t) {
  Xla__Gpu__MemzeroThunkProto *m = t->memzero_thunk;
  MlirValue dst;
  if (!m->dest_buffer || !thunkyImportSliceValue(im, m->dest_buffer->slice, &dst))
    return m->dest_buffer ? false : thunkyImportError(im, "%s", "memzero_thunk has no dest_buffer");
  MlirOperation op = thunkyImportEmit(im, "thunky.memzero", 1, &dst, 0, NULL, 0, NULL, 0);
  thunkyImportConsumeShapedSlice(&m->dest_buffer);
  return thunkyImportAttachResidual(im, op, t, &m->base, "memzero_thunk");
}

static bool importMemset(Importer *im, Thunk *t) {
  Xla__Gpu__Memset32BitValueThunkProto *m = t->memset32bit_value_thunk;
  MlirValue dst;
  if (!thunkyImportSliceValue(im, m->dest_buffer, &dst))
    return false;
  MlirNamedAttribute value = named(
      im, "value",
      mlirIntegerAttrGet(mlirIntegerTypeGet(im->ctx, 32), (int32_t)m->value));
  MlirOperation op = thunkyImportEmit(im, "thunky.memset32", 1, &dst, 0, NULL, 1, &value, 0);
  thunkyImportConsumeSlice(&m->dest_buffer);
  m->has_value = 0;
  return thunkyImportAttachResidual(im, op, t, &m->base, "memset32bit_value_thunk");
}

static bool importCopy(Importer *im, Thunk *t) {
  Xla__Gpu__CopyThunkProto *c = t->device_to_device_copy_thunk->copy_thunk;
  MlirValue operands[2];
  if (!thunkyImportSliceValue(im, c->source_buffer->slice, &operands[0]) ||
      !thunkyImportSliceValue(im, c->destination_buffer->slice, &operands[1]))
    return false;
  MlirOperation op = thunkyImportEmit(im, "thunky.copy", 2, operands, 0, NULL, 0, NULL, 0);
  thunkyImportConsumeShapedSlice(&c->source_buffer);
  thunkyImportConsumeShapedSlice(&c->destination_buffer);
  c->has_mem_size = 0, c->mem_size = 0; /* the slices' size: export writes it */
  return thunkyImportAttachResidual(im, op, t, &t->device_to_device_copy_thunk->base,
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

/* The element_type of a collective with `n` buffers: the one type its
 * config names for them all, or, where `perPair` allows and they differ, a
 * list of one per buffer; null when a type is missing or has no MLIR
 * equivalent collectives take. */
static MlirAttribute collectiveElementTypes(Importer *im,
                                           const Xla__Gpu__CollectiveConfigProto *c,
                                           size_t n, bool perPair) {
  if (!c || c->n_operand_element_type != n || n == 0)
    return mlirAttributeGetNull();
  bool uniform = true;
  for (size_t i = 1; i < n; ++i)
    uniform &= c->operand_element_type[i] == c->operand_element_type[0];
  if (!uniform && !perPair)
    return mlirAttributeGetNull();
  size_t count = uniform ? 1 : n;
  MlirAttribute *types = malloc(count * sizeof *types);
  if (!types)
    return mlirAttributeGetNull();
  bool ok = true;
  for (size_t i = 0; i < count && ok; ++i) {
    MlirType t = thunkyImportElementType(im, c->operand_element_type[i]);
    ok = !mlirTypeIsNull(t) && thunkyCollectiveElementBytes(t) != 0;
    types[i] = ok ? mlirTypeAttrGet(t) : mlirAttributeGetNull();
  }
  MlirAttribute a = !ok ? mlirAttributeGetNull()
                    : uniform ? types[0]
                              : mlirArrayAttrGet(im->ctx, (intptr_t)n, types);
  free(types);
  return a;
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

/* all_reduce, all_gather and reduce_scatter take every buffer pair of
 * their thunk, each with its own element type. (Upstream splits such a
 * thunk into one op per pair, which would not export back to it.) */
static bool collectiveIsPaired(const Thunk *t) {
  return t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_ALL_REDUCE_THUNK ||
         t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_ALL_GATHER_THUNK ||
         t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_REDUCE_SCATTER_THUNK;
}

/* Whether a collective fits its op: a collective_permute of more than one
 * buffer stays opaque, and so do types and modes the dialect cannot name. */
static bool collectiveIsFirstClass(Importer *im, Thunk *t) {
  Collective c;
  if (!describeCollective(t, &c) || !c.config ||
      !buffersHaveSlices(c.numBuffers, c.buffers) ||
      !thunkyGroupModeName(c.config->group_mode) ||
      (c.reductionKind >= 0 && !thunkyReductionKindName(c.reductionKind)))
    return false;
  if (t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_COLLECTIVE_PERMUTE_THUNK &&
      c.numBuffers != 1)
    return false;
  return !mlirAttributeIsNull(
      collectiveElementTypes(im, c.config, c.numBuffers, collectiveIsPaired(t)));
}

static bool importCollective(Importer *im, Thunk *t) {
  Collective c;
  describeCollective(t, &c);
  size_t n = c.numBuffers;
  MlirValue *operands = malloc(2 * n * sizeof *operands);
  if (!operands)
    return thunkyImportError(im, "%s", "out of memory");
  bool ok = true;
  for (size_t i = 0; i < n && ok; ++i)
    ok = thunkyImportSliceValue(im, c.buffers[i]->source_buffer->slice, &operands[i]) &&
         thunkyImportSliceValue(im, c.buffers[i]->destination_buffer->slice, &operands[n + i]);
  if (!ok) {
    free(operands);
    return false;
  }
  MlirNamedAttribute attrs[8];
  intptr_t nAttrs = 0;
  attrs[nAttrs++] = named(im, "element_type",
                          collectiveElementTypes(im, c.config, n, collectiveIsPaired(t)));
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
      return thunkyImportError(im, "%s", "out of memory");
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
      thunkyImportEmit(im, c.opName, (intptr_t)(2 * n), operands, 0, NULL, nAttrs, attrs, 0);
  free(operands);
  bool buffersLeft = false;
  for (size_t i = 0; i < n; ++i) {
    thunkyImportConsumeShapedSlice(&c.buffers[i]->source_buffer);
    thunkyImportConsumeShapedSlice(&c.buffers[i]->destination_buffer);
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
  return thunkyImportAttachResidual(im, op, t, c.impl, c.implName);
}

/*--- custom calls --------------------------------------------------------*/

typedef Xla__Gpu__CustomCallThunkProto CustomCall;

static bool argumentsFit(Importer *im, size_t n, Xla__NullableShapedSliceProto **args,
                         bool *allShaped) {
  for (size_t i = 0; i < n; ++i) {
    Xla__ShapedSliceProto *s = args[i]->shaped_slice;
    if (!s || !s->slice)
      return false;
    *allShaped &= s->shape && !mlirTypeIsNull(thunkyImportTensorType(im, s->shape));
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
    MlirType type = shape ? thunkyImportTensorType(im, shape) : (MlirType){NULL};
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
    thunkyImportConsumeShapedSlice(&args[i]->shaped_slice);
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
    return thunkyImportError(im, "%s", "out of memory");
  bool ok = true;
  for (size_t i = 0; i < n && ok; ++i) {
    Xla__NullableShapedSliceProto *arg =
        i < c->n_operands ? c->operands[i] : c->results[i - c->n_operands];
    ok = thunkyImportSliceValue(im, arg->shaped_slice->slice, &buffers[i]);
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
  MlirOperation op = thunkyImportEmit(im, "thunky.custom_call", (intptr_t)n, buffers, 0, NULL,
                                      shapes ? 6 : 4, attrs, 0);
  free(buffers);
  consumeArguments(c, "operands", c->n_operands, c->operands, shapes);
  consumeArguments(c, "results", c->n_results, c->results, shapes);
  thunkyProtoClearField(&c->base, "target_name");
  thunkyProtoClearField(&c->base, "api_version");
  thunkyProtoClearField(&c->base, "attributes");
  return thunkyImportAttachResidual(im, op, t, &c->base, "custom_call_thunk");
}

/*--- control flow and async ----------------------------------------------*/

static bool importSequential(Importer *im, Thunk *t) {
  Xla__Gpu__SequentialThunkProto *s = t->sequential_thunk;
  MlirOperation op = thunkyImportEmit(im, "thunky.sequential", 0, NULL, 0, NULL, 0, NULL, 1);
  if (!thunkyImportRegion(im, op, 0, s->n_thunks, s->thunks))
    return false;
  thunkyProtoClearField(&s->base, "thunks");
  return thunkyImportAttachResidual(im, op, t, &s->base, "sequential_thunk");
}

static bool importCollectiveGroup(Importer *im, Thunk *t) {
  Xla__Gpu__CollectiveGroupThunkProto *g = t->collective_group_thunk;
  MlirOperation op =
      thunkyImportEmit(im, "thunky.collective_group", 0, NULL, 0, NULL, 0, NULL, 1);
  if (!thunkyImportRegion(im, op, 0, g->n_thunks, g->thunks))
    return false;
  thunkyProtoClearField(&g->base, "thunks");
  return thunkyImportAttachResidual(im, op, t, &g->base, "collective_group_thunk");
}

static bool importConditional(Importer *im, Thunk *t) {
  Xla__Gpu__ConditionalThunkProto *c = t->conditional_thunk;
  MlirValue predicate;
  if (!thunkyImportSliceValue(im, c->branch_index_buffer->slice, &predicate))
    return false;
  if (c->n_branch_thunks > 64)
    return thunkyImportError(im, "%s", "conditional_thunk has more than 64 branches");
  MlirOperation op = thunkyImportEmit(im, "thunky.cond", 1, &predicate, 0, NULL, 0, NULL,
                                      (intptr_t)c->n_branch_thunks);
  for (size_t b = 0; b < c->n_branch_thunks; ++b)
    if (!thunkyImportRegion(im, op, (intptr_t)b, c->branch_thunks[b]->n_thunks,
                      c->branch_thunks[b]->thunks))
      return false;
  thunkyImportConsumeShapedSlice(&c->branch_index_buffer);
  /* Each branch keeps its ThunkSequenceProto's other fields, if any. */
  for (size_t b = 0; b < c->n_branch_thunks; ++b)
    thunkyProtoClearField(&c->branch_thunks[b]->base, "thunks");
  bool plainBranches = true;
  for (size_t b = 0; b < c->n_branch_thunks; ++b)
    plainBranches &= thunkyProtoIsEmpty(&c->branch_thunks[b]->base);
  if (plainBranches)
    thunkyProtoClearField(&c->base, "branch_thunks");
  return thunkyImportAttachResidual(im, op, t, &c->base, "conditional_thunk");
}

static bool conditionalIsFirstClass(const Thunk *t) {
  return thunkyConditionalPredicate(t->conditional_thunk) != THUNKY_PREDICATE_NONE;
}

static bool importWhile(Importer *im, Thunk *t) {
  Xla__Gpu__WhileThunkProto *w = t->while_thunk;
  MlirValue condition;
  if (!thunkyImportSliceValue(im, w->condition_result_buffer_index, &condition))
    return false;
  MlirOperation op = thunkyImportEmit(im, "thunky.while", 1, &condition, 0, NULL, 0, NULL, 2);
  Xla__Gpu__ThunkSequenceProto *cond = w->condition_thunk_sequence;
  Xla__Gpu__ThunkSequenceProto *body = w->body_thunk_sequence;
  if (!thunkyImportRegion(im, op, 0, cond ? cond->n_thunks : 0, cond ? cond->thunks : NULL) ||
      !thunkyImportRegion(im, op, 1, body ? body->n_thunks : 0, body ? body->thunks : NULL))
    return false;
  thunkyImportConsumeSlice(&w->condition_result_buffer_index);
  thunkyImportConsumeSequence(&w->condition_thunk_sequence);
  thunkyImportConsumeSequence(&w->body_thunk_sequence);
  return thunkyImportAttachResidual(im, op, t, &w->base, "while_thunk");
}

static bool whileIsFirstClass(const Thunk *t) {
  return thunkyWhilePredicate(t->while_thunk) != THUNKY_PREDICATE_NONE;
}

static bool importAsyncStart(Importer *im, Thunk *t) {
  Xla__Gpu__AsyncStartThunkProto *a = t->async_start_thunk;
  uint32_t slot;
  if (!thunkyExecutableAsyncSlot(im->model, a->async_execution_id, &slot))
    return thunkyImportError(im, "%s",
                             "async start has no slot"); /* the model gave every start one */
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
      thunkyImportEmit(im, "thunky.async_start", 0, NULL, 1, &tokenType, 2, attrs, 1);
  im->tokens[slot] = mlirOperationGetResult(op, 0);
  Xla__Gpu__ThunkSequenceProto *body = a->thunks;
  if (!thunkyImportRegion(im, op, 0, body ? body->n_thunks : 0, body ? body->thunks : NULL))
    return false;
  thunkyImportConsumeSequence(&a->thunks);
  /* The stream stays in the residual only through the op; the execution id
   * stays in the residual so that export gives back the same number. */
  a->execution_stream_id_case =
      XLA__GPU__ASYNC_START_THUNK_PROTO__EXECUTION_STREAM_ID__NOT_SET;
  return thunkyImportAttachResidual(im, op, t, &a->base, "async_start_thunk");
}

static bool importAsyncDone(Importer *im, Thunk *t) {
  uint64_t id = t->async_done_thunk->async_execution_id;
  uint32_t slot;
  /* The model refused a done before its start. */
  if (!thunkyExecutableAsyncSlot(im->model, id, &slot) || mlirValueIsNull(im->tokens[slot]))
    return thunkyImportError(im, "async done for execution id %" PRIu64 " has no start", id);
  if (!thunkyImportReachToken(im, im->tokens[slot], id))
    return false;
  MlirOperation op =
      thunkyImportEmit(im, "thunky.async_done", 1, &im->tokens[slot], 0, NULL, 0, NULL, 0);
  /* The id is the token's: export takes it from the async_start. */
  t->async_done_thunk->has_async_execution_id = 0;
  t->async_done_thunk->async_execution_id = 0;
  return thunkyImportAttachResidual(im, op, t, &t->async_done_thunk->base, "async_done_thunk");
}

/*--- dispatch ------------------------------------------------------------*/

/* Names the thunk `t` in im->thunk and returns the location for its ops:
 * the input's, fused with the thunk's #thunky.info. Not a NameLoc of
 * im->thunk: a string holding a '.' is filed by MLIR as naming a dialect
 * that may load later, a map entry per thunk, a seventh of the import of
 * 80,000 parameters. */
static MlirLocation thunkLocation(Importer *im, const Thunk *t) {
  const Xla__Gpu__ThunkInfoProto *info = t->thunk_info;
  const char *annotation = info && info->profile_annotation ? info->profile_annotation : "";
  int64_t id = info ? info->thunk_id : 0;
  snprintf(im->thunk, sizeof im->thunk, "thunk %" PRId64 "%s%s", id, *annotation ? " " : "",
           annotation);
  MlirAttribute name =
      thunkyThunkInfoAttrGet(im->ctx, id, str(annotation), info ? info->concurrent_region_id : 0);
  return mlirLocationFusedGet(im->ctx, 1, &im->fileLoc, name);
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
             : thunkyImportOpaque(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_MEMSET32BIT_VALUE_THUNK:
    ok = t->memset32bit_value_thunk->dest_buffer &&
                 t->memset32bit_value_thunk->dest_buffer->size % 4 == 0
             ? importMemset(im, t)
             : thunkyImportOpaque(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_DEVICE_TO_DEVICE_COPY_THUNK:
    ok = copyIsFirstClass(t) ? importCopy(im, t) : thunkyImportOpaque(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_ALL_REDUCE_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_ALL_GATHER_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_REDUCE_SCATTER_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_ALL_TO_ALL_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_COLLECTIVE_PERMUTE_THUNK:
    ok = collectiveIsFirstClass(im, t) ? importCollective(im, t)
                                       : thunkyImportOpaque(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_CALL_THUNK:
    ok = customCallIsFirstClass(im, t) ? importCustomCall(im, t) : thunkyImportOpaque(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_KERNEL_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_KERNEL_THUNK:
    ok = thunkyImportKernelFits(im->model, t) ? thunkyImportKernel(im, t) : thunkyImportOpaque(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_GEMM_THUNK:
    ok = thunkyImportMatmulFits(t) ? thunkyImportGemm(im, t) : thunkyImportOpaque(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_CUBLAS_LT_MATMUL_THUNK:
    ok = thunkyImportMatmulFits(t) ? thunkyImportCublasLtMatmul(im, t)
                                   : thunkyImportOpaque(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_REPLICA_ID_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_PARTITION_ID_THUNK:
    ok = thunkyImportDeviceIdFits(t) ? thunkyImportDeviceId(im, t) : thunkyImportOpaque(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_SEQUENTIAL_THUNK:
    ok = importSequential(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_COLLECTIVE_GROUP_THUNK:
    ok = importCollectiveGroup(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_CONDITIONAL_THUNK:
    ok = conditionalIsFirstClass(t) ? importConditional(im, t) : thunkyImportOpaque(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_WHILE_THUNK:
    ok = whileIsFirstClass(t) ? importWhile(im, t) : thunkyImportOpaque(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_ASYNC_START_THUNK:
    ok = importAsyncStart(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL_ASYNC_DONE_THUNK:
    ok = importAsyncDone(im, t);
    break;
  case XLA__GPU__THUNK_PROTO__IMPL__NOT_SET:
    ok = thunkyImportError(im, "%s", "thunk has no kind (its impl oneof is not set)");
    break;
  default:
    ok = thunkyImportOpaque(im, t);
    break;
  }
  im->loc = saved;
  memcpy(im->thunk, savedName, sizeof savedName);
  return ok;
}

bool thunkyImportThunks(Importer *im, size_t n, Thunk **thunks) {
  for (size_t i = 0; i < n; ++i)
    if (!importThunk(im, thunks[i]))
      return false;
  return true;
}
