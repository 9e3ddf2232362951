/*===- import_builder.c - building ops while importing -----------------===*/
#include "import.h"

#include "thunky-c/dialect/Diagnostics.h"
#include "thunky-c/dialect/Dialect.h"
#include "proto_attr.h"
#include "mlir-c/BuiltinTypes.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Reports at the current thunk, naming it: a location's metadata does not
 * show in a diagnostic, only its file position. */
bool thunkyImportError(Importer *im, const char *fmt, ...) {
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

/* MLIR's type for an xla.PrimitiveType, null when there is none. */
MlirType thunkyImportElementType(Importer *im, int32_t type) {
  if (type <= 0 || type >= THUNKY_TYPE_COUNT)
    return (MlirType){NULL};
  if (mlirTypeIsNull(im->elementTypes[type]))
    im->elementTypes[type] = thunkyElementTypeToMlir(im->ctx, type);
  return im->elementTypes[type];
}

/* Discardable attributes carry their dialect's prefix; the others are the
 * op's own and go straight into its properties: given to the op state with
 * the rest, MLIR would unique a dictionary of all of them only to split it,
 * one attribute per op that is never used again. */
static bool isDiscardable(MlirNamedAttribute attr) {
  MlirStringRef name = mlirIdentifierStr(attr.name);
  return memchr(name.data, '.', name.length) != NULL;
}

/* Appends a new op to the current block. */
MlirOperation thunkyImportEmit(Importer *im, const char *name, intptr_t nOperands,
                               const MlirValue *operands, intptr_t nResults,
                               const MlirType *results, intptr_t nAttrs,
                               const MlirNamedAttribute *attrs, intptr_t nRegions) {
  MlirOperationState state = mlirOperationStateGet(str(name), im->loc);
  mlirOperationStateAddOperands(&state, nOperands, operands);
  mlirOperationStateAddResults(&state, nResults, results);
  for (intptr_t i = 0; i < nAttrs; ++i)
    if (isDiscardable(attrs[i]))
      mlirOperationStateAddAttributes(&state, 1, &attrs[i]);
  MlirRegion regions[64];
  for (intptr_t i = 0; i < nRegions; ++i) {
    regions[i] = mlirRegionCreate();
    mlirRegionAppendOwnedBlock(regions[i], mlirBlockCreate(0, NULL, NULL));
  }
  mlirOperationStateAddOwnedRegions(&state, nRegions, regions);
  MlirOperation op = mlirOperationCreate(&state);
  for (intptr_t i = 0; i < nAttrs; ++i) {
    MlirStringRef attrName = mlirIdentifierStr(attrs[i].name);
    if (isDiscardable(attrs[i]))
      continue;
    if (mlirOperationHasInherentAttributeByName(op, attrName))
      mlirOperationSetInherentAttributeByName(op, attrName, attrs[i].attribute);
    else
      mlirOperationSetDiscardableAttributeByName(op, attrName, attrs[i].attribute);
  }
  mlirBlockAppendOwnedOperation(im->block, op);
  return op;
}

void thunkyImportEmitYield(Importer *im) {
  thunkyImportEmit(im, "thunky.yield", 0, NULL, 0, NULL, 0, NULL, 0);
}

/*--- slices --------------------------------------------------------------*/

/* Whether `s` names bytes of an allocation that has a value (the model
 * checked every slice against its allocation); reports what is wrong. */
bool thunkyImportCheckSlice(Importer *im, const ThunkySlice *s) {
  char what[160];
  if (!s)
    return thunkyImportError(im, "%s", "thunk has no buffer slice where one is required");
  if (mlirValueIsNull(im->allocationValue[s->buffer_allocation_index])) {
    snprintf(what, sizeof what, "%" PRId64, s->buffer_allocation_index);
    return thunkyImportError(im, "slice refers to allocation %s, which holds no buffer", what);
  }
  return true;
}

/* The value for a slice: its allocation, or a thunky.slice_buffer of it. */
bool thunkyImportSliceValue(Importer *im, const ThunkySlice *s, MlirValue *out) {
  if (!thunkyImportCheckSlice(im, s))
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
      thunkyImportEmit(im, "thunky.slice_buffer", 1, &base, 1, &type, 1, &offset, 0), 0);
  return true;
}

/* Takes the allocation, offset and size out of *slot (they become an SSA
 * value); drops the slice if nothing else (its element_type) is left. */
void thunkyImportConsumeSlice(ThunkySlice **slot) {
  ThunkySlice *s = *slot;
  s->has_offset = s->has_size = s->has_buffer_allocation_index = 0;
  if (thunkyProtoIsEmpty(&s->base))
    *slot = NULL;
}

/* The same for a ShapedSliceProto, which goes too when only the slice was
 * in it: export writes the container back whenever it writes the slice. */
void thunkyImportConsumeShapedSlice(Xla__ShapedSliceProto **slot) {
  thunkyImportConsumeSlice(&(*slot)->slice);
  if (thunkyProtoIsEmpty(&(*slot)->base))
    *slot = NULL;
}

/* Drops a thunk sequence that only held the region's thunks; export makes it
 * again for a region with thunks, and an empty region keeps its empty one. */
void thunkyImportConsumeSequence(Xla__Gpu__ThunkSequenceProto **slot) {
  if (!*slot)
    return;
  bool hadThunks = (*slot)->n_thunks != 0;
  thunkyProtoClearField(&(*slot)->base, "thunks");
  if (hadThunks && thunkyProtoIsEmpty(&(*slot)->base))
    *slot = NULL;
}

/* Imports `thunks` into region `index` of `op`, ending it with a yield. */
bool thunkyImportRegion(Importer *im, MlirOperation op, intptr_t index,
                        size_t n, Thunk **thunks) {
  MlirBlock saved = im->block;
  im->block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, index));
  bool ok = thunkyImportThunks(im, n, thunks);
  thunkyImportEmitYield(im);
  im->block = saved;
  return ok;
}

/* A field proto3 writes exactly when it is not zero. */
static bool canonical(protobuf_c_boolean has, int64_t v) { return has == (v != 0); }

MlirAttribute thunkyImportTakeThunkInfo(Importer *im, Thunk *t) {
  const Xla__Gpu__ThunkInfoProto *i = t->thunk_info;
  /* Anything a #thunky.info cannot give back stays in the residual. */
  if (!i || i->base.n_unknown_fields || !canonical(i->has_thunk_id, i->thunk_id) ||
      !canonical(i->has_concurrent_region_id, i->concurrent_region_id) ||
      (i->profile_annotation && !*i->profile_annotation))
    return mlirAttributeGetNull();
  const char *annotation = i->profile_annotation ? i->profile_annotation : "";
  t->thunk_info = NULL;
  return thunkyThunkInfoAttrGet(im->ctx, i->thunk_id, str(annotation), i->concurrent_region_id);
}

/* Attaches what is left of `t` after the op took its fields. */
bool thunkyImportAttachResidual(Importer *im, MlirOperation op, Thunk *t,
                                ProtobufCMessage *impl, const char *implName) {
  MlirAttribute info = thunkyImportTakeThunkInfo(im, t);
  if (impl && thunkyProtoIsEmpty(impl))
    thunkyProtoClearField(&t->base, implName);
  /* The residual first: each setting uniques the op's whole dictionary, and
   * {thunky.thunk = R} is the same for every thunk of one kind and shape,
   * where a dictionary holding the thunk's own info is new every time. */
  if (!thunkyProtoIsEmpty(&t->base)) {
    MlirAttribute kept = thunkyProtoToAttr(&im->protoCache, &t->base, NULL);
    if (mlirAttributeIsNull(kept))
      return thunkyImportError(im, "%s", "out of memory");
    mlirOperationSetDiscardableAttributeByName(op, str(THUNKY_ATTR_THUNK), kept);
  }
  if (!mlirAttributeIsNull(info))
    mlirOperationSetDiscardableAttributeByName(op, str(THUNKY_ATTR_INFO), info);
  return true;
}

/* The tensor type of an array shape; null for tuples and unknown types. */
MlirType thunkyImportTensorType(Importer *im, const Xla__ShapeProto *shape) {
  MlirType element = thunkyImportElementType(im, shape->element_type);
  if (mlirTypeIsNull(element))
    return element;
  return mlirRankedTensorTypeGet((intptr_t)shape->n_dimensions, shape->dimensions,
                                 element, mlirAttributeGetNull());
}
