/*===- ffi_attrs.h - XLA FFI attributes as a backend_config dictionary --===*
 *
 * Upstream's mapping: scalars to BoolAttr, IntegerAttr of their width (u8..u64
 * unsigned) and f32/f64 FloatAttr; strings to StringAttr; i8..i64, f32 and f64
 * arrays to dense arrays; dictionaries nested. Unlike upstream, nothing is
 * dropped: a custom call whose attributes have no such form stays a
 * call_thunk_proto.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TRANSLATE_FFI_ATTRS_H
#define THUNKY_TRANSLATE_FFI_ATTRS_H

#include "thunky-c/base/Arena.h"

#include "xla/ffi/attribute_map.pb-c.h"

#include "mlir-c/IR.h"

/* The dictionary for `map` (NULL: empty); a null attribute when some value
 * has no exact form above: unknown fields, an i8/i16/u8/u16 out of its
 * range, a signaling NaN, a key twice. */
MlirAttribute thunkyFfiAttrsToAttr(MlirContext ctx,
                                   const Xla__Ffi__AttributesMapProto *map);

/* The map for `dict`; NULL after reporting at `loc` the first entry that has
 * no FFI form. */
Xla__Ffi__AttributesMapProto *thunkyFfiAttrsFromAttr(MlirAttribute dict,
                                                     ThunkyArena *arena,
                                                     MlirLocation loc);

#endif /* THUNKY_TRANSLATE_FFI_ATTRS_H */
