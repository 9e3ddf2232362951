/*===- shape_type.h - XLA's array shapes as tensor types, both ways -----===*
 *
 * The one mapping between an xla.ShapeProto of an array and a tensor type,
 * used wherever import writes a shape as a type (a launch's
 * thunky.arg_shapes, an argument's #thunky.allocation, any ShapeProto field
 * of a residual) and export reads one back. It is lossless: a shape it
 * cannot give back exactly has no type, and stays a dictionary.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TRANSLATE_SHAPE_TYPE_H
#define THUNKY_TRANSLATE_SHAPE_TYPE_H

#include "thunky-c/base/Arena.h"
#include "thunky-c/format/Executable.h"

#include "mlir-c/IR.h"

#include <stdbool.h>

/* The tensor type of array shape `s`, or null when thunkyShapeFromType
 * would not give `s` back. The bare type is XLA's own form (Shape::ToProto:
 * the default descending layout with tail padding 1, one
 * is_dynamic_dimension per dimension); its encoding, a dictionary, holds
 * only what differs: minor_to_major, is_dynamic_dimension (possibly empty),
 * and, with `untypedSlice`, the unit untyped_slice (a launch arg whose
 * slice has no element type). `elements` caches MLIR's element types
 * (THUNKY_TYPE_COUNT entries, zero-initialized) and may be NULL. */
MlirType thunkyShapeToType(MlirContext ctx, MlirType *elements, const Xla__ShapeProto *s,
                           bool untypedSlice);

/* The ShapeProto of a tensor type of thunkyShapeToType's form, in `arena`;
 * NULL when `type` is not of that form (or out of memory). untyped_slice
 * is accepted only with `untypedSlice`, which says whether it was there. */
Xla__ShapeProto *thunkyShapeFromType(ThunkyArena *arena, MlirType type, bool *untypedSlice);

/* What thunkyShapeFromType accepts, for error messages. */
#define THUNKY_SHAPE_TYPE_FORM                                                              \
  "a static tensor type with an encoding of at most {minor_to_major = array<i64: ...>, "   \
  "is_dynamic_dimension = array<i1: ...>} (minor_to_major a permutation of the "          \
  "dimensions, one flag per dimension or none)"

#endif /* THUNKY_TRANSLATE_SHAPE_TYPE_H */
