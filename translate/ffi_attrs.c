/*===- ffi_attrs.c - XLA FFI attributes <-> backend_config --------------===*/
#include "ffi_attrs.h"

#include "thunky-c/dialect/Diagnostics.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

/*--- proto -> attribute --------------------------------------------------*/

static MlirAttribute intAttr(MlirContext ctx, unsigned width, bool isUnsigned,
                             int64_t v) {
  MlirType t = isUnsigned ? mlirIntegerTypeUnsignedGet(ctx, width)
                          : mlirIntegerTypeGet(ctx, width);
  return mlirIntegerAttrGet(t, v);
}

/* Whether an attribute's message carries fields the schema does not know:
 * the dictionary form would drop them. */
static bool unknown(const void *message) {
  return message && ((const ProtobufCMessage *)message)->n_unknown_fields != 0;
}

static bool fits(int64_t v, int bits, bool isUnsigned) {
  if (isUnsigned)
    return v >= 0 && (bits == 64 || v < (INT64_C(1) << bits));
  return bits == 64 || (v >= -(INT64_C(1) << (bits - 1)) && v < (INT64_C(1) << (bits - 1)));
}

/* A signaling NaN would come back quiet through the double a FloatAttr holds. */
static bool exactFloat(float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  return f == f || (bits & 0x00400000u);
}

static MlirAttribute scalarToAttr(MlirContext ctx, const Xla__Ffi__ScalarProto *s) {
  if (unknown(s))
    return mlirAttributeGetNull();
  switch (s->value_case) {
  case XLA__FFI__SCALAR_PROTO__VALUE_B: return mlirBoolAttrGet(ctx, s->b);
  case XLA__FFI__SCALAR_PROTO__VALUE_I8:
    return fits(s->i8, 8, false) ? intAttr(ctx, 8, false, s->i8) : mlirAttributeGetNull();
  case XLA__FFI__SCALAR_PROTO__VALUE_I16:
    return fits(s->i16, 16, false) ? intAttr(ctx, 16, false, s->i16) : mlirAttributeGetNull();
  case XLA__FFI__SCALAR_PROTO__VALUE_I32: return intAttr(ctx, 32, false, s->i32);
  case XLA__FFI__SCALAR_PROTO__VALUE_I64: return intAttr(ctx, 64, false, s->i64);
  case XLA__FFI__SCALAR_PROTO__VALUE_U8:
    return fits(s->u8, 8, true) ? intAttr(ctx, 8, true, s->u8) : mlirAttributeGetNull();
  case XLA__FFI__SCALAR_PROTO__VALUE_U16:
    return fits(s->u16, 16, true) ? intAttr(ctx, 16, true, s->u16) : mlirAttributeGetNull();
  case XLA__FFI__SCALAR_PROTO__VALUE_U32: return intAttr(ctx, 32, true, s->u32);
  case XLA__FFI__SCALAR_PROTO__VALUE_U64: return intAttr(ctx, 64, true, (int64_t)s->u64);
  case XLA__FFI__SCALAR_PROTO__VALUE_F32:
    return exactFloat(s->f32) ? mlirFloatAttrDoubleGet(ctx, mlirF32TypeGet(ctx), s->f32)
                              : mlirAttributeGetNull();
  case XLA__FFI__SCALAR_PROTO__VALUE_F64:
    return mlirFloatAttrDoubleGet(ctx, mlirF64TypeGet(ctx), s->f64);
  default: return mlirAttributeGetNull();
  }
}

static MlirAttribute arrayToAttr(MlirContext ctx, const Xla__Ffi__ArrayProto *a) {
  if (unknown(a) || unknown(a->i8) || unknown(a->i16) || unknown(a->i32) || unknown(a->i64) ||
      unknown(a->f32) || unknown(a->f64))
    return mlirAttributeGetNull();
  switch (a->value_case) {
  case XLA__FFI__ARRAY_PROTO__VALUE_I8:
  case XLA__FFI__ARRAY_PROTO__VALUE_I16: {
    bool narrow = a->value_case == XLA__FFI__ARRAY_PROTO__VALUE_I8;
    size_t n = narrow ? a->i8->n_values : a->i16->n_values;
    const int32_t *v = narrow ? a->i8->values : a->i16->values;
    for (size_t i = 0; i < n; ++i)
      if (!fits(v[i], narrow ? 8 : 16, false))
        return mlirAttributeGetNull();
    void *packed = malloc(n ? n * 2 : 1);
    if (!packed)
      return mlirAttributeGetNull();
    for (size_t i = 0; i < n; ++i)
      if (narrow)
        ((int8_t *)packed)[i] = (int8_t)v[i];
      else
        ((int16_t *)packed)[i] = (int16_t)v[i];
    MlirAttribute r = narrow ? mlirDenseI8ArrayGet(ctx, (intptr_t)n, packed)
                             : mlirDenseI16ArrayGet(ctx, (intptr_t)n, packed);
    free(packed);
    return r;
  }
  case XLA__FFI__ARRAY_PROTO__VALUE_I32:
    return mlirDenseI32ArrayGet(ctx, (intptr_t)a->i32->n_values, a->i32->values);
  case XLA__FFI__ARRAY_PROTO__VALUE_I64:
    return mlirDenseI64ArrayGet(ctx, (intptr_t)a->i64->n_values, a->i64->values);
  case XLA__FFI__ARRAY_PROTO__VALUE_F32:
    return mlirDenseF32ArrayGet(ctx, (intptr_t)a->f32->n_values, a->f32->values);
  case XLA__FFI__ARRAY_PROTO__VALUE_F64:
    return mlirDenseF64ArrayGet(ctx, (intptr_t)a->f64->n_values, a->f64->values);
  default:
    return mlirAttributeGetNull(); /* unsigned arrays have no dense form */
  }
}

static int byKey(const void *x, const void *y) {
  return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* A key twice, which the wire allows, has no dictionary form. */
static bool duplicateKey(const Xla__Ffi__AttributesMapProto *map) {
  size_t n = map ? map->n_attrs : 0;
  const char **keys = malloc((n + 1) * sizeof *keys);
  if (!keys)
    return true;
  for (size_t i = 0; i < n; ++i)
    keys[i] = map->attrs[i]->key;
  qsort(keys, n, sizeof *keys, byKey);
  bool twice = false;
  for (size_t i = 1; i < n && !twice; ++i)
    twice = strcmp(keys[i - 1], keys[i]) == 0;
  free(keys);
  return twice;
}

MlirAttribute thunkyFfiAttrsToAttr(MlirContext ctx,
                                   const Xla__Ffi__AttributesMapProto *map) {
  size_t n = map ? map->n_attrs : 0;
  if (unknown(map))
    return mlirAttributeGetNull();
  MlirNamedAttribute *entries = malloc((n + 1) * sizeof *entries);
  if (!entries)
    return mlirAttributeGetNull();
  MlirAttribute result = mlirAttributeGetNull();
  size_t i = 0;
  for (; i < n; ++i) {
    const Xla__Ffi__AttributeProto *v = map->attrs[i]->value;
    const char *key = map->attrs[i]->key;
    MlirAttribute a = mlirAttributeGetNull();
    if (!v || !key || unknown(map->attrs[i]) || unknown(v))
      break;
    switch (v->value_case) {
    case XLA__FFI__ATTRIBUTE_PROTO__VALUE_SCALAR: a = scalarToAttr(ctx, v->scalar); break;
    case XLA__FFI__ATTRIBUTE_PROTO__VALUE_ARRAY: a = arrayToAttr(ctx, v->array); break;
    case XLA__FFI__ATTRIBUTE_PROTO__VALUE_STR:
      a = mlirStringAttrGet(ctx, mlirStringRefCreate((const char *)v->str.data, v->str.len));
      break;
    case XLA__FFI__ATTRIBUTE_PROTO__VALUE_DICT: a = thunkyFfiAttrsToAttr(ctx, v->dict); break;
    default: break;
    }
    if (mlirAttributeIsNull(a))
      break;
    entries[i] = mlirNamedAttributeGet(
        mlirIdentifierGet(ctx, mlirStringRefCreateFromCString(key)), a);
  }
  if (i == n && !duplicateKey(map))
    result = mlirDictionaryAttrGet(ctx, (intptr_t)n, entries);
  free(entries);
  return result;
}

/*--- attribute -> proto --------------------------------------------------*/

typedef struct Builder {
  ThunkyArena *arena;
  MlirLocation loc;
} Builder;

static void *newMessage(Builder *b, const ProtobufCMessageDescriptor *desc) {
  void *m = thunkyArenaAlloc(b->arena, desc->sizeof_message);
  if (m)
    protobuf_c_message_init(desc, m);
  return m;
}

static Xla__Ffi__ScalarProto *scalarFromAttr(Builder *b, MlirAttribute a) {
  Xla__Ffi__ScalarProto *s = newMessage(b, &xla__ffi__scalar_proto__descriptor);
  if (!s)
    return NULL;
  if (mlirAttributeIsABool(a)) {
    s->value_case = XLA__FFI__SCALAR_PROTO__VALUE_B, s->b = mlirBoolAttrGetValue(a);
    return s;
  }
  if (mlirAttributeIsAFloat(a)) {
    MlirType t = mlirAttributeGetType(a);
    double v = mlirFloatAttrGetValueDouble(a);
    if (mlirTypeIsAF32(t))
      s->value_case = XLA__FFI__SCALAR_PROTO__VALUE_F32, s->f32 = (float)v;
    else if (mlirTypeIsAF64(t))
      s->value_case = XLA__FFI__SCALAR_PROTO__VALUE_F64, s->f64 = v;
    else
      return NULL;
    return s;
  }
  if (!mlirAttributeIsAInteger(a))
    return NULL;
  MlirType t = mlirAttributeGetType(a);
  unsigned width = mlirIntegerTypeGetWidth(t);
  if (mlirIntegerTypeIsUnsigned(t)) {
    uint64_t v = mlirIntegerAttrGetValueUInt(a);
    switch (width) {
    case 8: s->value_case = XLA__FFI__SCALAR_PROTO__VALUE_U8, s->u8 = (uint32_t)v; return s;
    case 16: s->value_case = XLA__FFI__SCALAR_PROTO__VALUE_U16, s->u16 = (uint32_t)v; return s;
    case 32: s->value_case = XLA__FFI__SCALAR_PROTO__VALUE_U32, s->u32 = (uint32_t)v; return s;
    case 64: s->value_case = XLA__FFI__SCALAR_PROTO__VALUE_U64, s->u64 = v; return s;
    default: return NULL;
    }
  }
  int64_t v = mlirIntegerAttrGetValueInt(a);
  switch (width) {
  case 8: s->value_case = XLA__FFI__SCALAR_PROTO__VALUE_I8, s->i8 = (int32_t)v; return s;
  case 16: s->value_case = XLA__FFI__SCALAR_PROTO__VALUE_I16, s->i16 = (int32_t)v; return s;
  case 32: s->value_case = XLA__FFI__SCALAR_PROTO__VALUE_I32, s->i32 = (int32_t)v; return s;
  case 64: s->value_case = XLA__FFI__SCALAR_PROTO__VALUE_I64, s->i64 = v; return s;
  default: return NULL;
  }
}

/* One ArrayProto arm: a message whose only field is `repeated values`. */
static ProtobufCMessage *valuesMessage(Builder *b, const ProtobufCMessageDescriptor *desc,
                                       size_t n, size_t width, const void *data) {
  ProtobufCMessage *m = newMessage(b, desc);
  void *copy = thunkyArenaCopy(b->arena, data, n * width);
  if (!m || !copy)
    return NULL;
  const ProtobufCFieldDescriptor *f = &desc->fields[0];
  *(size_t *)((char *)m + f->quantifier_offset) = n;
  *(void **)((char *)m + f->offset) = copy;
  return m;
}

static Xla__Ffi__ArrayProto *arrayFromAttr(Builder *b, MlirAttribute a) {
  Xla__Ffi__ArrayProto *r = newMessage(b, &xla__ffi__array_proto__descriptor);
  if (!r)
    return NULL;
  size_t n = mlirAttributeIsADenseI8Array(a) || mlirAttributeIsADenseI16Array(a) ||
                     mlirAttributeIsADenseI32Array(a) || mlirAttributeIsADenseI64Array(a) ||
                     mlirAttributeIsADenseF32Array(a) || mlirAttributeIsADenseF64Array(a)
                 ? (size_t)mlirDenseArrayGetNumElements(a)
                 : 0;
  if (mlirAttributeIsADenseI8Array(a) || mlirAttributeIsADenseI16Array(a)) {
    bool narrow = mlirAttributeIsADenseI8Array(a);
    int32_t *widened = malloc((n + 1) * sizeof *widened);
    if (!widened)
      return NULL;
    for (size_t i = 0; i < n; ++i)
      widened[i] = narrow ? mlirDenseI8ArrayGetElement(a, (intptr_t)i)
                          : mlirDenseI16ArrayGetElement(a, (intptr_t)i);
    ProtobufCMessage *m = valuesMessage(
        b, narrow ? &xla__ffi__array_proto__int8_array_proto__descriptor
                  : &xla__ffi__array_proto__int16_array_proto__descriptor,
        n, sizeof *widened, widened);
    free(widened);
    r->value_case = narrow ? XLA__FFI__ARRAY_PROTO__VALUE_I8 : XLA__FFI__ARRAY_PROTO__VALUE_I16;
    r->i8 = (void *)m;
    return m ? r : NULL;
  }
#define ARM(IsA, Get, T, CASE, field, desc)                                    \
  if (IsA(a)) {                                                                \
    T *values = malloc((n + 1) * sizeof *values);                              \
    if (!values)                                                               \
      return NULL;                                                             \
    for (size_t i = 0; i < n; ++i)                                             \
      values[i] = Get(a, (intptr_t)i);                                         \
    r->field = (void *)valuesMessage(b, &desc, n, sizeof *values, values);     \
    free(values);                                                              \
    r->value_case = CASE;                                                      \
    return r->field ? r : NULL;                                                \
  }
  ARM(mlirAttributeIsADenseI32Array, mlirDenseI32ArrayGetElement, int32_t,
      XLA__FFI__ARRAY_PROTO__VALUE_I32, i32, xla__ffi__array_proto__int32_array_proto__descriptor)
  ARM(mlirAttributeIsADenseI64Array, mlirDenseI64ArrayGetElement, int64_t,
      XLA__FFI__ARRAY_PROTO__VALUE_I64, i64, xla__ffi__array_proto__int64_array_proto__descriptor)
  ARM(mlirAttributeIsADenseF32Array, mlirDenseF32ArrayGetElement, float,
      XLA__FFI__ARRAY_PROTO__VALUE_F32, f32, xla__ffi__array_proto__float_array_proto__descriptor)
  ARM(mlirAttributeIsADenseF64Array, mlirDenseF64ArrayGetElement, double,
      XLA__FFI__ARRAY_PROTO__VALUE_F64, f64, xla__ffi__array_proto__double_array_proto__descriptor)
#undef ARM
  return NULL;
}

static Xla__Ffi__AttributesMapProto *mapFromAttr(Builder *b, MlirAttribute dict) {
  if (!mlirAttributeIsADictionary(dict)) {
    thunkyEmitError(b->loc, "backend_config must be a dictionary");
    return NULL;
  }
  size_t n = (size_t)mlirDictionaryAttrGetNumElements(dict);
  Xla__Ffi__AttributesMapProto *map = newMessage(b, &xla__ffi__attributes_map_proto__descriptor);
  if (!map || !(map->attrs = thunkyArenaAlloc(b->arena, (n + 1) * sizeof *map->attrs)))
    return NULL;
  map->n_attrs = n;
  for (size_t i = 0; i < n; ++i) {
    MlirNamedAttribute e = mlirDictionaryAttrGetElement(dict, (intptr_t)i);
    MlirStringRef key = mlirIdentifierStr(e.name);
    Xla__Ffi__AttributesMapProto__AttrsEntry *entry =
        newMessage(b, &xla__ffi__attributes_map_proto__attrs_entry__descriptor);
    Xla__Ffi__AttributeProto *v = newMessage(b, &xla__ffi__attribute_proto__descriptor);
    char *name = thunkyArenaString(b->arena, key.data, key.length);
    if (!entry || !v || !name)
      return NULL;
    entry->key = name, entry->value = v;
    map->attrs[i] = entry;
    MlirAttribute a = e.attribute;
    if (mlirAttributeIsAString(a)) {
      MlirStringRef s = mlirStringAttrGetValue(a);
      v->value_case = XLA__FFI__ATTRIBUTE_PROTO__VALUE_STR;
      v->str = (ProtobufCBinaryData){s.length, thunkyArenaCopy(b->arena, s.data, s.length)};
      continue;
    }
    if (mlirAttributeIsADictionary(a)) {
      v->value_case = XLA__FFI__ATTRIBUTE_PROTO__VALUE_DICT;
      if (!(v->dict = mapFromAttr(b, a)))
        return NULL;
      continue;
    }
    if ((v->scalar = scalarFromAttr(b, a))) {
      v->value_case = XLA__FFI__ATTRIBUTE_PROTO__VALUE_SCALAR;
      continue;
    }
    if ((v->array = arrayFromAttr(b, a))) {
      v->value_case = XLA__FFI__ATTRIBUTE_PROTO__VALUE_ARRAY;
      continue;
    }
    thunkyEmitError(b->loc,
                    "backend_config entry '%s' has no XLA FFI form (expected a "
                    "bool, integer, f32/f64, string, i8..i64/f32/f64 dense array "
                    "or dictionary)",
                    name);
    return NULL;
  }
  return map;
}

Xla__Ffi__AttributesMapProto *thunkyFfiAttrsFromAttr(MlirAttribute dict,
                                                     ThunkyArena *arena,
                                                     MlirLocation loc) {
  Builder b = {arena, loc};
  return mapFromAttr(&b, dict);
}
