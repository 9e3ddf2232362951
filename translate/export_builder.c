/*===- export_builder.c - building messages while exporting -----------===*/
#include "export.h"

#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/base/ElementTypes.h"
#include "thunky-c/dialect/Ops.h"
#include "proto_attr.h"
#include "mlir-c/BuiltinTypes.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void *thunkyExportNewMessage(Exporter *ex, const ProtobufCMessageDescriptor *desc) {
  void *m = thunkyArenaAlloc(ex->arena, desc->sizeof_message);
  if (m)
    protobuf_c_message_init(desc, m);
  return m;
}

bool thunkyExportAppend(Exporter *ex, List *list, void *item) {
  if (list->count == list->capacity) {
    size_t capacity = list->capacity ? 2 * list->capacity : 8;
    void **grown = thunkyArenaAlloc(ex->arena, capacity * sizeof *grown);
    if (!grown)
      return false;
    if (list->count)
      memcpy(grown, list->items, list->count * sizeof *grown);
    list->items = grown;
    list->capacity = capacity;
  }
  list->items[list->count++] = item;
  return true;
}

/*--- places --------------------------------------------------------------*/

bool thunkyExportPlaceOf(Exporter *ex, MlirOperation user, MlirValue v, Place *out) {
  int64_t size = thunkyValueGetBufferSize(v);
  if (mlirValueIsABlockArgument(v)) {
    if (!mlirBlockEqual(mlirBlockArgumentGetOwner(v), ex->entry))
      return opError(user, "uses a buffer that is not an argument of @main");
    *out = (Place){ex->argAllocation[mlirBlockArgumentGetArgNumber(v)], 0, size};
    return true;
  }
  MlirOperation def = mlirOpResultGetOwner(v);
  switch (thunkyOpGetKind(def)) {
  case THUNKY_OP_SLICE_BUFFER:
    if (!thunkyExportPlaceOf(ex, def, mlirOperationGetOperand(def, 0), out))
      return false;
    out->offset += thunkySliceBufferGetOffset(def);
    out->size = size;
    return true;
  case THUNKY_OP_CONSTANT: {
    uint32_t i;
    if (thunkyHashMapGet(&ex->constantOf, (uint64_t)(uintptr_t)def.ptr, &i)) {
      *out = (Place){ex->constants[i].number, 0, size};
      return true;
    }
    break;
  }
  default:
    break;
  }
  return opError(user, "uses a buffer that is neither an argument, a constant "
                       "nor a slice of one");
}

/* Writes where `v` lives into *slot, keeping the slice's other fields. */
bool thunkyExportSetSlice(Exporter *ex, MlirOperation op, MlirValue v, ThunkySlice **slot) {
  Place p;
  if (!thunkyExportPlaceOf(ex, op, v, &p))
    return false;
  if (!*slot && !(*slot = thunkyExportNewMessage(
                      ex, &xla__buffer_assignment__buffer_allocation_slice_proto__descriptor)))
    return opError(op, "out of memory");
  ThunkySlice *s = *slot;
  /* proto3 writes no zeros, and export must match what XLA wrote. */
  s->offset = p.offset, s->has_offset = p.offset != 0;
  s->size = p.size, s->has_size = p.size != 0;
  s->buffer_allocation_index = p.allocation;
  s->has_buffer_allocation_index = p.allocation != 0;
  return true;
}

bool thunkyExportSetShapedSlice(Exporter *ex, MlirOperation op, MlirValue v,
                                Xla__ShapedSliceProto **slot) {
  if (!*slot && !(*slot = thunkyExportNewMessage(ex, &xla__shaped_slice_proto__descriptor)))
    return opError(op, "out of memory");
  return thunkyExportSetSlice(ex, op, v, &(*slot)->slice);
}

/* The thunks of region `index` of `op` as a repeated field. */
bool thunkyExportRegion(Exporter *ex, MlirOperation op, intptr_t index,
                        size_t *n, Thunk ***thunks) {
  List list = {0};
  if (!thunkyExportBlock(ex, mlirRegionGetFirstBlock(mlirOperationGetRegion(op, index)),
                   &list))
    return false;
  *n = list.count;
  *thunks = (Thunk **)list.items;
  return true;
}

/* The sequence for a region; created only when absent and needed. */
bool thunkyExportSequence(Exporter *ex, MlirOperation op, intptr_t index,
                          Xla__Gpu__ThunkSequenceProto **slot) {
  size_t n;
  Thunk **thunks;
  if (!thunkyExportRegion(ex, op, index, &n, &thunks))
    return false;
  if (!*slot && n == 0)
    return true;
  if (!*slot && !(*slot = thunkyExportNewMessage(ex, &xla__gpu__thunk_sequence_proto__descriptor)))
    return opError(op, "out of memory");
  (*slot)->n_thunks = n;
  (*slot)->thunks = thunks;
  return true;
}

/* The op's ThunkProto: what import kept aside, with the impl message of
 * `implField` present. */
Thunk *thunkyExportStartThunk(Exporter *ex, MlirOperation op, const char *implField,
                              ProtobufCMessage **impl) {
  MlirAttribute kept = discardable(op, THUNKY_ATTR_THUNK);
  Thunk *t = mlirAttributeIsNull(kept)
                 ? thunkyExportNewMessage(ex, &xla__gpu__thunk_proto__descriptor)
                 : (Thunk *)thunkyAttrToProto(kept, &xla__gpu__thunk_proto__descriptor,
                                              ex->arena, mlirOperationGetLocation(op),
                                              THUNKY_ATTR_THUNK);
  if (!t)
    return NULL;
  const ProtobufCFieldDescriptor *f =
      protobuf_c_message_descriptor_get_field_by_name(&xla__gpu__thunk_proto__descriptor,
                                                      implField);
  if (t->impl_case != XLA__GPU__THUNK_PROTO__IMPL__NOT_SET && t->impl_case != f->id) {
    opError(op, THUNKY_ATTR_THUNK " holds a different thunk kind than the op");
    return NULL;
  }
  ProtobufCMessage **slot = (ProtobufCMessage **)((char *)t + f->offset);
  if (!*slot && !(*slot = thunkyExportNewMessage(ex, f->descriptor))) {
    opError(op, "out of memory");
    return NULL;
  }
  t->impl_case = f->id;
  *impl = *slot;
  return t;
}

bool thunkyExportThunkInfo(Exporter *ex, MlirOperation op, MlirAttribute info, Thunk *t) {
  if (mlirAttributeIsNull(info))
    return true;
  if (!thunkyAttributeIsAThunkInfo(info))
    return opError(op, THUNKY_ATTR_INFO " must be a #thunky.info<id = N, \"annotation\">");
  Xla__Gpu__ThunkInfoProto *i =
      thunkyExportNewMessage(ex, &xla__gpu__thunk_info_proto__descriptor);
  MlirStringRef annotation = thunkyThunkInfoAttrGetAnnotation(info);
  if (!i || (annotation.length &&
             !(i->profile_annotation =
                   thunkyArenaString(ex->arena, annotation.data, annotation.length))))
    return opError(op, "out of memory");
  /* proto3: zeros are not on the wire. */
  i->thunk_id = thunkyThunkInfoAttrGetId(info), i->has_thunk_id = i->thunk_id != 0;
  i->concurrent_region_id = thunkyThunkInfoAttrGetConcurrentRegion(info);
  i->has_concurrent_region_id = i->concurrent_region_id != 0;
  t->thunk_info = i;
  return true;
}

/* A Dim3DProto from a 3-element dense array (the verifier checked it). */
StreamExecutor__Dim3DProto *thunkyExportDim3(Exporter *ex, MlirAttribute dims) {
  StreamExecutor__Dim3DProto *d =
      thunkyExportNewMessage(ex, &stream_executor__dim3_dproto__descriptor);
  if (!d)
    return NULL;
  d->x = mlirDenseI64ArrayGetElement(dims, 0), d->has_x = d->x != 0;
  d->y = mlirDenseI64ArrayGetElement(dims, 1), d->has_y = d->y != 0;
  d->z = mlirDenseI64ArrayGetElement(dims, 2), d->has_z = d->z != 0;
  return d;
}

bool thunkyExportShape(Exporter *ex, MlirOperation op, MlirType type, Xla__ShapeProto **slot) {
  bool tensor = mlirTypeIsARankedTensor(type);
  MlirType element = tensor ? mlirShapedTypeGetElementType(type) : type;
  int primitive = thunkyElementTypeFromMlir(element);
  if (!primitive)
    return opError(op, "a shape's element type has no XLA equivalent");
  if (!*slot && !(*slot = thunkyExportNewMessage(ex, &xla__shape_proto__descriptor)))
    return opError(op, "out of memory");
  Xla__ShapeProto *s = *slot;
  size_t rank = tensor ? (size_t)mlirShapedTypeGetRank(type) : 0;
  s->element_type = primitive, s->has_element_type = 1;
  s->n_dimensions = rank;
  s->dimensions = thunkyArenaAlloc(ex->arena, (rank + 1) * sizeof(int64_t));
  if (!s->dimensions)
    return opError(op, "out of memory");
  for (size_t d = 0; d < rank; ++d)
    s->dimensions[d] = mlirShapedTypeGetDimSize(type, (intptr_t)d);
  return true;
}
