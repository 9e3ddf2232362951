/*===- proto_attr.c - protobuf-c messages <-> MLIR attributes -----------===*/
#include "proto_attr.h"
#include "shape_type.h"

#include "thunky-c/format/Wire.h"

#include "thunky-c/base/Arena.h"
#include "thunky-c/dialect/Diagnostics.h"
#include "thunky-c/dialect/Dialect.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNKNOWN_KEY "_unknown"

static MlirStringRef ref(const char *s) { return mlirStringRefCreateFromCString(s); }

static const void *field(const ProtobufCMessage *msg, unsigned offset) {
  return (const char *)msg + offset;
}

static void *member(ProtobufCMessage *msg, unsigned offset) {
  return (char *)msg + offset;
}

static bool isOneofMember(const ProtobufCFieldDescriptor *f) {
  return (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) != 0;
}

/* Scalars whose presence protobuf-c keeps in a has_ flag (proto2 optional);
 * strings and messages use a NULL pointer instead. */
static bool hasFlag(const ProtobufCFieldDescriptor *f) {
  return f->type != PROTOBUF_C_TYPE_STRING && f->type != PROTOBUF_C_TYPE_MESSAGE;
}

bool thunkyProtoHasField(const ProtobufCMessage *msg,
                         const ProtobufCFieldDescriptor *f) {
  if (f->label == PROTOBUF_C_LABEL_REPEATED)
    return *(const size_t *)field(msg, f->quantifier_offset) != 0;
  if (isOneofMember(f) &&
      *(const uint32_t *)field(msg, f->quantifier_offset) != f->id)
    return false;
  if (!hasFlag(f))
    return *(void *const *)field(msg, f->offset) != NULL;
  if (isOneofMember(f) || f->label == PROTOBUF_C_LABEL_REQUIRED)
    return true;
  return *(const protobuf_c_boolean *)field(msg, f->quantifier_offset) != 0;
}

static void clearField(ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f) {
  if (f->label == PROTOBUF_C_LABEL_REPEATED) {
    *(size_t *)member(msg, f->quantifier_offset) = 0;
    *(void **)member(msg, f->offset) = NULL;
    return;
  }
  if (isOneofMember(f)) {
    if (*(uint32_t *)member(msg, f->quantifier_offset) == f->id)
      *(uint32_t *)member(msg, f->quantifier_offset) = 0;
  } else if (hasFlag(f)) {
    *(protobuf_c_boolean *)member(msg, f->quantifier_offset) = 0;
  }
  if (!hasFlag(f))
    *(void **)member(msg, f->offset) = NULL;
}

void thunkyProtoClearField(ProtobufCMessage *msg, const char *name) {
  const ProtobufCFieldDescriptor *f =
      protobuf_c_message_descriptor_get_field_by_name(msg->descriptor, name);
  if (f)
    clearField(msg, f);
}

bool thunkyProtoIsEmpty(const ProtobufCMessage *msg) {
  if (msg->n_unknown_fields)
    return false;
  for (unsigned i = 0; i < msg->descriptor->n_fields; ++i)
    if (thunkyProtoHasField(msg, &msg->descriptor->fields[i]))
      return false;
  return true;
}

/*--- message -> attribute ------------------------------------------------*/

static size_t elementSize(const ProtobufCFieldDescriptor *f) {
  switch (f->type) {
  case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32:
  case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_UINT32:
  case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_FLOAT:
  case PROTOBUF_C_TYPE_ENUM:
    return 4;
  case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64:
  case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_UINT64:
  case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE:
    return 8;
  case PROTOBUF_C_TYPE_BOOL:
    return sizeof(protobuf_c_boolean);
  case PROTOBUF_C_TYPE_BYTES:
    return sizeof(ProtobufCBinaryData);
  default:
    return sizeof(void *);
  }
}

/* Where the identifiers of `desc`'s field names start in cache->names (its
 * fields in order, then "_unknown"), made on first use; false when out of
 * memory. A position, not a pointer: converting a sub-message may grow it. */
static bool fieldNames(ThunkyProtoCache *cache, const ProtobufCMessageDescriptor *desc,
                       uint32_t *first) {
  if (thunkyHashMapGet(&cache->namesOf, (uint64_t)(uintptr_t)desc, first))
    return true;
  if (!thunkyArrayGrow((void **)&cache->names, &cache->namesCapacity,
                       cache->numNames + desc->n_fields, sizeof *cache->names))
    return false;
  *first = (uint32_t)cache->numNames;
  for (unsigned i = 0; i < desc->n_fields; ++i)
    cache->names[cache->numNames++] = mlirIdentifierGet(cache->ctx, ref(desc->fields[i].name));
  cache->names[cache->numNames++] = mlirIdentifierGet(cache->ctx, ref(UNKNOWN_KEY));
  if (thunkyHashMapPut(&cache->namesOf, (uint64_t)(uintptr_t)desc, *first))
    return true;
  cache->numNames = *first;
  return false;
}

void thunkyProtoCacheDestroy(ThunkyProtoCache *cache) {
  thunkyHashMapDestroy(&cache->namesOf);
  free(cache->names);
  *cache = (ThunkyProtoCache){
      .ctx = cache->ctx, .bytes = cache->bytes, .resourceNames = cache->resourceNames,
      .elementTypes = cache->elementTypes};
}

static const char *resourceName(const ThunkyProtoCache *cache,
                                const ProtobufCMessageDescriptor *message, const char *field) {
  for (const ThunkyResourceName *r = cache->resourceNames; r && r->message; ++r)
    if (r->message == message && strcmp(r->field, field) == 0)
      return r->name;
  return field;
}

/* `msg` serialized, as a string or resource named `name`. */
static MlirAttribute serializedAttr(ThunkyProtoCache *cache, const char *name,
                                    const ProtobufCMessage *msg) {
  size_t size = protobuf_c_message_get_packed_size(msg);
  uint8_t *bytes = malloc(size ? size : 1);
  if (!bytes)
    return mlirAttributeGetNull();
  protobuf_c_message_pack(msg, bytes);
  return thunkyBytesAttrTake(cache->bytes, name, bytes, size);
}

static MlirAttribute scalarToAttr(ThunkyProtoCache *cache,
                                  const ProtobufCMessageDescriptor *owner,
                                  const ProtobufCFieldDescriptor *f,
                                  const void *value,
                                  const ProtobufCMessageDescriptor *const *opaque) {
  MlirContext ctx = cache->ctx;
  switch (f->type) {
  case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32:
  case PROTOBUF_C_TYPE_SFIXED32:
    return mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 32), *(const int32_t *)value);
  case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32:
    return mlirIntegerAttrGet(mlirIntegerTypeUnsignedGet(ctx, 32),
                              *(const uint32_t *)value);
  case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64:
  case PROTOBUF_C_TYPE_SFIXED64:
    return mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), *(const int64_t *)value);
  case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64:
    return mlirIntegerAttrGet(mlirIntegerTypeUnsignedGet(ctx, 64),
                              (int64_t) * (const uint64_t *)value);
  case PROTOBUF_C_TYPE_FLOAT:
    return mlirFloatAttrDoubleGet(ctx, mlirF32TypeGet(ctx), *(const float *)value);
  case PROTOBUF_C_TYPE_DOUBLE:
    return mlirFloatAttrDoubleGet(ctx, mlirF64TypeGet(ctx), *(const double *)value);
  case PROTOBUF_C_TYPE_BOOL:
    return mlirBoolAttrGet(ctx, *(const protobuf_c_boolean *)value != 0);
  case PROTOBUF_C_TYPE_ENUM: {
    int v = *(const int *)value;
    const ProtobufCEnumValue *e =
        protobuf_c_enum_descriptor_get_value(f->descriptor, v);
    return e ? mlirStringAttrGet(ctx, ref(e->name))
             : mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 32), v);
  }
  case PROTOBUF_C_TYPE_STRING: {
    const char *s = *(char *const *)value;
    return thunkyBytesAttr(cache->bytes, resourceName(cache, owner, f->name), s, strlen(s));
  }
  case PROTOBUF_C_TYPE_BYTES: {
    const ProtobufCBinaryData *b = value;
    return thunkyBytesAttr(cache->bytes, resourceName(cache, owner, f->name), b->data, b->len);
  }
  case PROTOBUF_C_TYPE_MESSAGE: {
    const ProtobufCMessage *sub = *(ProtobufCMessage *const *)value;
    for (const ProtobufCMessageDescriptor *const *o = opaque; o && *o; ++o)
      if (sub->descriptor == *o)
        return serializedAttr(cache, resourceName(cache, owner, f->name), sub);
    if (sub->descriptor == &xla__shape_proto__descriptor) {
      MlirType type =
          thunkyShapeToType(ctx, cache->elementTypes, (const Xla__ShapeProto *)sub, false);
      if (!mlirTypeIsNull(type))
        return mlirTypeAttrGet(type);
    }
    return thunkyProtoToAttr(cache, sub, opaque);
  }
  }
  return mlirAttributeGetNull();
}

static MlirAttribute repeatedToAttr(ThunkyProtoCache *cache,
                                    const ProtobufCMessageDescriptor *owner,
                                    const ProtobufCFieldDescriptor *f,
                                    const void *array, size_t n,
                                    const ProtobufCMessageDescriptor *const *opaque) {
  MlirContext ctx = cache->ctx;
  switch (f->type) {
  case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32:
  case PROTOBUF_C_TYPE_SFIXED32:
    return mlirDenseI32ArrayGet(ctx, (intptr_t)n, array);
  case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64:
  case PROTOBUF_C_TYPE_SFIXED64:
    return mlirDenseI64ArrayGet(ctx, (intptr_t)n, array);
  case PROTOBUF_C_TYPE_FLOAT:
    return mlirDenseF32ArrayGet(ctx, (intptr_t)n, array);
  case PROTOBUF_C_TYPE_DOUBLE:
    return mlirDenseF64ArrayGet(ctx, (intptr_t)n, array);
  case PROTOBUF_C_TYPE_BOOL: {
    int *flags = malloc(n ? n * sizeof *flags : 1);
    if (!flags)
      return mlirAttributeGetNull();
    for (size_t i = 0; i < n; ++i)
      flags[i] = ((const protobuf_c_boolean *)array)[i] != 0;
    MlirAttribute a = mlirDenseBoolArrayGet(ctx, (intptr_t)n, flags);
    free(flags);
    return a;
  }
  default:
    break;
  }
  MlirAttribute *elements = malloc(n ? n * sizeof *elements : 1);
  if (!elements)
    return mlirAttributeGetNull();
  size_t size = elementSize(f);
  MlirAttribute result = mlirAttributeGetNull();
  size_t i = 0;
  for (; i < n; ++i) {
    elements[i] = scalarToAttr(cache, owner, f, (const char *)array + i * size, opaque);
    if (mlirAttributeIsNull(elements[i]))
      break;
  }
  if (i == n)
    result = mlirArrayAttrGet(ctx, (intptr_t)n, elements);
  free(elements);
  return result;
}

/* The unknown fields of `msg`, re-encoded, by packing a message of the same
 * type that holds nothing else. */
static MlirAttribute unknownFieldsAttr(ThunkyProtoCache *cache, const ProtobufCMessage *msg) {
  ProtobufCMessage *shell = calloc(1, msg->descriptor->sizeof_message);
  if (!shell)
    return mlirAttributeGetNull();
  protobuf_c_message_init(msg->descriptor, shell);
  shell->n_unknown_fields = msg->n_unknown_fields;
  shell->unknown_fields = msg->unknown_fields;
  MlirAttribute a = serializedAttr(cache, UNKNOWN_KEY, shell);
  free(shell);
  return a;
}

MlirAttribute thunkyProtoToAttr(ThunkyProtoCache *cache, const ProtobufCMessage *msg,
                                const ProtobufCMessageDescriptor *const *opaque) {
  const ProtobufCMessageDescriptor *desc = msg->descriptor;
  uint32_t first;
  if (!fieldNames(cache, desc, &first))
    return mlirAttributeGetNull();
  MlirNamedAttribute *entries =
      malloc((desc->n_fields + 1) * sizeof *entries);
  if (!entries)
    return mlirAttributeGetNull();
  intptr_t n = 0;
  bool failed = false;
  for (unsigned i = 0; i < desc->n_fields && !failed; ++i) {
    const ProtobufCFieldDescriptor *f = &desc->fields[i];
    if (!thunkyProtoHasField(msg, f))
      continue;
    MlirAttribute value =
        f->label == PROTOBUF_C_LABEL_REPEATED
            ? repeatedToAttr(cache, desc, f, *(void *const *)field(msg, f->offset),
                             *(const size_t *)field(msg, f->quantifier_offset),
                             opaque)
            : scalarToAttr(cache, desc, f, field(msg, f->offset), opaque);
    failed = mlirAttributeIsNull(value);
    entries[n++] = mlirNamedAttributeGet(cache->names[first + i], value);
  }
  if (!failed && msg->n_unknown_fields) {
    MlirAttribute unknown = unknownFieldsAttr(cache, msg);
    failed = mlirAttributeIsNull(unknown);
    entries[n++] = mlirNamedAttributeGet(cache->names[first + desc->n_fields], unknown);
  }
  MlirAttribute result =
      failed ? mlirAttributeGetNull() : mlirDictionaryAttrGet(cache->ctx, n, entries);
  free(entries);
  return result;
}

/*--- attribute -> message ------------------------------------------------*/

typedef struct Builder {
  ThunkyArena *arena;
  MlirLocation loc;
  /* Field path for messages, e.g. "thunk.memzero_thunk.dest_buffer". */
  char path[512];
} Builder;

static bool fail(Builder *b, const char *fmt, const char *name) {
  thunkyEmitError(b->loc, "%s%s%s: %s", b->path, *b->path ? "." : "", name, fmt);
  return false;
}

static bool readInteger(Builder *b, const char *name, MlirAttribute a,
                        int64_t *out) {
  if (!mlirAttributeIsAInteger(a))
    return fail(b, "expected an integer", name);
  MlirType t = mlirAttributeGetType(a);
  *out = mlirIntegerTypeIsUnsigned(t) ? (int64_t)mlirIntegerAttrGetValueUInt(a)
                                      : mlirIntegerAttrGetValueInt(a);
  return true;
}

static ProtobufCMessage *buildMessage(Builder *b, MlirAttribute attr,
                                      const ProtobufCMessageDescriptor *desc,
                                      const char *name);

/* The bytes of a string or byte resource. */
static bool readBytes(Builder *b, const char *name, MlirAttribute a, MlirStringRef *out) {
  if (thunkyAttributeGetBytes(a, out))
    return true;
  return fail(b,
              mlirAttributeIsADenseResourceElements(a)
                  ? "names a resource that holds no bytes (dense_resource<NAME> : tensor<Nxi8> "
                    "with its data in the dialect_resources trailer)"
                  : "expected a string",
              name);
}

/* Writes one value of field `f` from `a` to `out`. */
static bool storeScalar(Builder *b, const ProtobufCFieldDescriptor *f,
                        MlirAttribute a, void *out) {
  int64_t i;
  switch (f->type) {
  case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32:
  case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_UINT32:
  case PROTOBUF_C_TYPE_FIXED32:
    if (!readInteger(b, f->name, a, &i))
      return false;
    *(int32_t *)out = (int32_t)i;
    return true;
  case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64:
  case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_UINT64:
  case PROTOBUF_C_TYPE_FIXED64:
    if (!readInteger(b, f->name, a, &i))
      return false;
    *(int64_t *)out = i;
    return true;
  case PROTOBUF_C_TYPE_FLOAT: case PROTOBUF_C_TYPE_DOUBLE: {
    double d;
    if (mlirAttributeIsAFloat(a))
      d = mlirFloatAttrGetValueDouble(a);
    else if (readInteger(b, f->name, a, &i))
      d = (double)i;
    else
      return false;
    if (f->type == PROTOBUF_C_TYPE_FLOAT)
      *(float *)out = (float)d;
    else
      *(double *)out = d;
    return true;
  }
  case PROTOBUF_C_TYPE_BOOL:
    if (!mlirAttributeIsABool(a))
      return fail(b, "expected true or false", f->name);
    *(protobuf_c_boolean *)out = mlirBoolAttrGetValue(a);
    return true;
  case PROTOBUF_C_TYPE_ENUM:
    if (mlirAttributeIsAString(a)) {
      MlirStringRef s = mlirStringAttrGetValue(a);
      const ProtobufCEnumDescriptor *ed = f->descriptor;
      for (unsigned k = 0; k < ed->n_values; ++k)
        if (strlen(ed->values[k].name) == s.length &&
            memcmp(ed->values[k].name, s.data, s.length) == 0) {
          *(int *)out = ed->values[k].value;
          return true;
        }
      return fail(b, "not a value of this enum", f->name);
    }
    if (!readInteger(b, f->name, a, &i))
      return false;
    *(int *)out = (int)i;
    return true;
  case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_BYTES: {
    MlirStringRef s;
    if (!readBytes(b, f->name, a, &s))
      return false;
    if (f->type == PROTOBUF_C_TYPE_BYTES) {
      /* The attribute outlives the message: no copy. */
      *(ProtobufCBinaryData *)out =
          (ProtobufCBinaryData){s.length, (uint8_t *)(uintptr_t)s.data};
      return true;
    }
    /* A string field must end in a NUL, which neither form keeps. */
    char *copy = thunkyArenaString(b->arena, s.data, s.length);
    if (!copy)
      return fail(b, "out of memory", f->name);
    *(char **)out = copy;
    return true;
  }
  case PROTOBUF_C_TYPE_MESSAGE: {
    ProtobufCMessage *sub = buildMessage(b, a, f->descriptor, f->name);
    *(ProtobufCMessage **)out = sub;
    return sub != NULL;
  }
  }
  return fail(b, "unsupported field type", f->name);
}

/* The elements of a repeated field's attribute, whatever array kind. */
static intptr_t arrayLength(MlirAttribute a) {
  if (mlirAttributeIsAArray(a))
    return mlirArrayAttrGetNumElements(a);
  if (mlirAttributeIsADenseI32Array(a) || mlirAttributeIsADenseI64Array(a) ||
      mlirAttributeIsADenseF32Array(a) || mlirAttributeIsADenseF64Array(a) ||
      mlirAttributeIsADenseBoolArray(a))
    return mlirDenseArrayGetNumElements(a);
  return -1;
}

static MlirAttribute arrayElement(MlirContext ctx, MlirAttribute a, intptr_t i) {
  if (mlirAttributeIsAArray(a))
    return mlirArrayAttrGetElement(a, i);
  if (mlirAttributeIsADenseI32Array(a))
    return mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 32), mlirDenseI32ArrayGetElement(a, i));
  if (mlirAttributeIsADenseI64Array(a))
    return mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), mlirDenseI64ArrayGetElement(a, i));
  if (mlirAttributeIsADenseF32Array(a))
    return mlirFloatAttrDoubleGet(ctx, mlirF32TypeGet(ctx), mlirDenseF32ArrayGetElement(a, i));
  if (mlirAttributeIsADenseF64Array(a))
    return mlirFloatAttrDoubleGet(ctx, mlirF64TypeGet(ctx), mlirDenseF64ArrayGetElement(a, i));
  return mlirBoolAttrGet(ctx, mlirDenseBoolArrayGetElement(a, i));
}

static bool storeField(Builder *b, ProtobufCMessage *msg,
                       const ProtobufCFieldDescriptor *f, MlirAttribute a) {
  if (f->label == PROTOBUF_C_LABEL_REPEATED) {
    intptr_t n = arrayLength(a);
    if (n < 0)
      return fail(b, "expected an array", f->name);
    size_t size = elementSize(f);
    char *array = thunkyArenaAlloc(b->arena, (size_t)n * size + 1);
    if (!array)
      return fail(b, "out of memory", f->name);
    MlirContext ctx = mlirAttributeGetContext(a);
    for (intptr_t i = 0; i < n; ++i)
      if (!storeScalar(b, f, arrayElement(ctx, a, i), array + (size_t)i * size))
        return false;
    *(size_t *)member(msg, f->quantifier_offset) = (size_t)n;
    *(void **)member(msg, f->offset) = array;
    return true;
  }
  if (!storeScalar(b, f, a, member(msg, f->offset)))
    return false;
  if (isOneofMember(f))
    *(uint32_t *)member(msg, f->quantifier_offset) = f->id;
  else if (hasFlag(f) && f->label == PROTOBUF_C_LABEL_OPTIONAL)
    *(protobuf_c_boolean *)member(msg, f->quantifier_offset) = 1;
  return true;
}

static ProtobufCMessage *unpackInto(Builder *b, MlirAttribute bytes,
                                    const ProtobufCMessageDescriptor *desc,
                                    const char *name) {
  MlirStringRef s;
  if (!readBytes(b, name, bytes, &s))
    return NULL;
  ThunkyError why;
  if (!thunkyValidateWire(desc, (const unsigned char *)s.data, s.length, &why)) {
    char what[640];
    snprintf(what, sizeof what, "does not hold a serialized message of this type: %s",
             why.message);
    fail(b, what, name);
    return NULL;
  }
  ProtobufCMessage *m = protobuf_c_message_unpack(
      desc, thunkyArenaAllocator(b->arena), s.length, (const uint8_t *)s.data);
  if (!m)
    fail(b, "does not hold a serialized message of this type", name);
  return m;
}

static ProtobufCMessage *buildMessage(Builder *b, MlirAttribute attr,
                                      const ProtobufCMessageDescriptor *desc,
                                      const char *name) {
  if (mlirAttributeIsAString(attr) || mlirAttributeIsADenseResourceElements(attr))
    return unpackInto(b, attr, desc, name);
  if (desc == &xla__shape_proto__descriptor && mlirAttributeIsAType(attr)) {
    Xla__ShapeProto *s = thunkyShapeFromType(b->arena, mlirTypeAttrGetValue(attr), NULL);
    if (!s)
      fail(b, "expected a dictionary or " THUNKY_SHAPE_TYPE_FORM, name);
    return s ? &s->base : NULL;
  }
  if (!mlirAttributeIsADictionary(attr)) {
    fail(b, "expected a dictionary", name);
    return NULL;
  }
  ProtobufCMessage *msg = thunkyArenaAlloc(b->arena, desc->sizeof_message);
  if (!msg) {
    fail(b, "out of memory", name);
    return NULL;
  }
  protobuf_c_message_init(desc, msg);
  size_t pathLength = strlen(b->path);
  if (*name)
    snprintf(b->path + pathLength, sizeof b->path - pathLength, "%s%s",
             pathLength ? "." : "", name);
  bool ok = true;
  intptr_t n = mlirDictionaryAttrGetNumElements(attr);
  for (intptr_t i = 0; i < n && ok; ++i) {
    MlirNamedAttribute entry = mlirDictionaryAttrGetElement(attr, i);
    MlirStringRef key = mlirIdentifierStr(entry.name);
    char field[128];
    snprintf(field, sizeof field, "%.*s", (int)key.length, key.data);
    if (strcmp(field, UNKNOWN_KEY) == 0) {
      bool bytes = mlirAttributeIsAString(entry.attribute) ||
                   mlirAttributeIsADenseResourceElements(entry.attribute);
      ProtobufCMessage *u = bytes ? unpackInto(b, entry.attribute, desc, field) : NULL;
      if (!bytes)
        fail(b, "expected a string of wire bytes", field);
      ok = u != NULL;
      if (ok) {
        msg->n_unknown_fields = u->n_unknown_fields;
        msg->unknown_fields = u->unknown_fields;
      }
      continue;
    }
    const ProtobufCFieldDescriptor *f =
        protobuf_c_message_descriptor_get_field_by_name(desc, field);
    ok = f ? storeField(b, msg, f, entry.attribute)
           : fail(b, "no such field", field);
  }
  b->path[pathLength] = '\0';
  return ok ? msg : NULL;
}

ProtobufCMessage *thunkyAttrToProto(MlirAttribute attr,
                                    const ProtobufCMessageDescriptor *desc,
                                    ThunkyArena *arena, MlirLocation loc,
                                    const char *name) {
  Builder b = {arena, loc, ""};
  return buildMessage(&b, attr, desc, name);
}
