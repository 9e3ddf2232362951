/*===- shape_type.c - XLA's array shapes as tensor types, both ways -----===*
 *
 * XLA's own form of an array shape is what Shape::ToProto writes
 * (xla/shape.cc, xla/layout.cc in openxla/xla): a layout of minor_to_major
 * and tail_padding_alignment_in_elements = 1, and one is_dynamic_dimension
 * entry per dimension. The bare tensor type stands for that form, so the
 * common case prints as tensor<64x128xf32>; the encoding names what
 * differs.
 *
 *===--------------------------------------------------------------------===*/
#include "shape_type.h"

#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/base/ElementTypes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <string.h>

/* A permutation of at most 64 dimensions fits a bit mask. */
#define MAX_RANK 64

/* A layout of minor_to_major (a permutation) and the tail padding of 1,
 * nothing else. */
static bool layoutFits(const Xla__LayoutProto *l, size_t rank) {
  if (!l || l->base.n_unknown_fields || l->n_minor_to_major != rank || rank > MAX_RANK ||
      l->n_tiles || l->has_element_size_in_bits || l->has_memory_space ||
      l->n_dim_level_types || l->physical_shape || l->has_index_primitive_type ||
      l->has_pointer_primitive_type || l->n_dim_unique || l->n_dim_ordered ||
      l->has_dynamic_shape_metadata_prefix_bytes || l->n_split_configs ||
      !l->has_tail_padding_alignment_in_elements || l->tail_padding_alignment_in_elements != 1)
    return false;
  uint64_t seen = 0;
  for (size_t d = 0; d < rank; ++d) {
    int64_t m = l->minor_to_major[d];
    if (m < 0 || (size_t)m >= rank || (seen >> m & 1))
      return false;
    seen |= UINT64_C(1) << m;
  }
  return true;
}

static MlirNamedAttribute entry(MlirContext ctx, const char *name, MlirAttribute value) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, mlirStringRefCreateFromCString(name)),
                               value);
}

static MlirType elementType(MlirContext ctx, MlirType *elements, int32_t type) {
  if (type <= 0 || type >= THUNKY_TYPE_COUNT)
    return (MlirType){NULL};
  if (!elements)
    return thunkyElementTypeToMlir(ctx, type);
  if (mlirTypeIsNull(elements[type]))
    elements[type] = thunkyElementTypeToMlir(ctx, type);
  return elements[type];
}

MlirType thunkyShapeToType(MlirContext ctx, MlirType *elements, const Xla__ShapeProto *s,
                           bool untypedSlice) {
  MlirType none = {NULL};
  size_t rank = s ? s->n_dimensions : 0;
  if (!s || s->base.n_unknown_fields || !s->has_element_type || s->n_tuple_shapes ||
      !layoutFits(s->layout, rank) ||
      (s->n_is_dynamic_dimension != 0 && s->n_is_dynamic_dimension != rank))
    return none;
  MlirType element = elementType(ctx, elements, s->element_type);
  /* i1 is PRED, never S1: a type that reads back as another stays out. */
  if (mlirTypeIsNull(element) || thunkyElementTypeFromMlir(element) != (int32_t)s->element_type)
    return none;
  bool descending = true, allStatic = s->n_is_dynamic_dimension == rank;
  for (size_t d = 0; d < rank; ++d) {
    if (s->dimensions[d] < 0)
      return none;
    descending &= s->layout->minor_to_major[d] == (int64_t)(rank - 1 - d);
    allStatic &= !(s->n_is_dynamic_dimension && s->is_dynamic_dimension[d]);
  }
  MlirNamedAttribute differs[3];
  intptr_t nd = 0;
  if (!descending)
    differs[nd++] = entry(ctx, "minor_to_major",
                          mlirDenseI64ArrayGet(ctx, (intptr_t)rank, s->layout->minor_to_major));
  if (!allStatic) {
    int flags[MAX_RANK];
    for (size_t d = 0; d < s->n_is_dynamic_dimension; ++d)
      flags[d] = s->is_dynamic_dimension[d] != 0;
    differs[nd++] = entry(ctx, "is_dynamic_dimension",
                          mlirDenseBoolArrayGet(ctx, (intptr_t)s->n_is_dynamic_dimension, flags));
  }
  if (untypedSlice)
    differs[nd++] = entry(ctx, "untyped_slice", mlirUnitAttrGet(ctx));
  MlirAttribute encoding = nd ? mlirDictionaryAttrGet(ctx, nd, differs) : mlirAttributeGetNull();
  return mlirRankedTensorTypeGet((intptr_t)rank, s->dimensions, element, encoding);
}

static bool isNamed(MlirNamedAttribute a, const char *name) {
  MlirStringRef s = mlirIdentifierStr(a.name);
  return s.length == strlen(name) && memcmp(s.data, name, s.length) == 0;
}

Xla__ShapeProto *thunkyShapeFromType(ThunkyArena *arena, MlirType type, bool *untypedSlice) {
  if (untypedSlice)
    *untypedSlice = false;
  if (mlirTypeIsNull(type) || !mlirTypeIsARankedTensor(type) ||
      !mlirShapedTypeHasStaticShape(type))
    return NULL;
  int32_t primitive = thunkyElementTypeFromMlir(mlirShapedTypeGetElementType(type));
  size_t rank = (size_t)mlirShapedTypeGetRank(type);
  if (!primitive || rank > MAX_RANK)
    return NULL;
  MlirAttribute encoding = mlirRankedTensorTypeGetEncoding(type);
  MlirAttribute order = mlirAttributeGetNull(), dynamic = mlirAttributeGetNull();
  if (!mlirAttributeIsNull(encoding)) {
    if (!mlirAttributeIsADictionary(encoding))
      return NULL;
    for (intptr_t i = 0; i < mlirDictionaryAttrGetNumElements(encoding); ++i) {
      MlirNamedAttribute e = mlirDictionaryAttrGetElement(encoding, i);
      if (isNamed(e, "minor_to_major") && mlirAttributeIsADenseI64Array(e.attribute) &&
          (size_t)mlirDenseArrayGetNumElements(e.attribute) == rank)
        order = e.attribute;
      else if (isNamed(e, "is_dynamic_dimension") && mlirAttributeIsADenseBoolArray(e.attribute))
        dynamic = e.attribute;
      else if (untypedSlice && isNamed(e, "untyped_slice") && mlirAttributeIsAUnit(e.attribute))
        *untypedSlice = true;
      else
        return NULL;
    }
  }
  size_t nd = mlirAttributeIsNull(dynamic) ? rank : (size_t)mlirDenseArrayGetNumElements(dynamic);
  if (nd != 0 && nd != rank)
    return NULL;
  Xla__ShapeProto *s = thunkyArenaAlloc(arena, sizeof *s);
  Xla__LayoutProto *l = thunkyArenaAlloc(arena, sizeof *l);
  int64_t *dims = thunkyArenaAlloc(arena, (rank + 1) * sizeof *dims);
  int64_t *minorToMajor = thunkyArenaAlloc(arena, (rank + 1) * sizeof *minorToMajor);
  protobuf_c_boolean *flags = thunkyArenaAlloc(arena, (nd + 1) * sizeof *flags);
  if (!s || !l || !dims || !minorToMajor || !flags)
    return NULL;
  xla__shape_proto__init(s);
  xla__layout_proto__init(l);
  uint64_t seen = 0;
  for (size_t d = 0; d < rank; ++d) {
    int64_t m = mlirAttributeIsNull(order) ? (int64_t)(rank - 1 - d)
                                           : mlirDenseI64ArrayGetElement(order, (intptr_t)d);
    if (m < 0 || (size_t)m >= rank || (seen >> m & 1))
      return NULL;
    seen |= UINT64_C(1) << m;
    minorToMajor[d] = m;
    dims[d] = mlirShapedTypeGetDimSize(type, (intptr_t)d);
  }
  for (size_t d = 0; d < nd; ++d)
    flags[d] = !mlirAttributeIsNull(dynamic) && mlirDenseBoolArrayGetElement(dynamic, (intptr_t)d);
  l->n_minor_to_major = rank, l->minor_to_major = minorToMajor;
  l->tail_padding_alignment_in_elements = 1, l->has_tail_padding_alignment_in_elements = 1;
  s->element_type = (Xla__PrimitiveType)primitive, s->has_element_type = 1;
  s->n_dimensions = rank, s->dimensions = dims;
  s->layout = l;
  s->n_is_dynamic_dimension = nd, s->is_dynamic_dimension = flags;
  return s;
}
