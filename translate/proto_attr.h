/*===- proto_attr.h - protobuf-c messages as MLIR attributes ------------===*
 *
 * What the dialect does not model is kept on the module, the arguments and
 * the ops as attributes that read like the message: a DictionaryAttr with one
 * entry per field present, named as in the schema. The conversion is driven by
 * protobuf-c's descriptors, so it covers every message of the schema, keeps
 * presence exactly (proto2: a field absent in the input stays absent), and
 * carries fields the schema does not know as raw wire bytes under "_unknown".
 *
 * Field kinds: integers -> IntegerAttr (i32/i64, ui32/ui64 for unsigned),
 * bool -> BoolAttr, float/double -> f32/f64 FloatAttr, enum -> its value name
 * (an i32 when the schema does not know the value), string/bytes ->
 * StringAttr or, above THUNKY_INLINE_BYTES_MAX, a byte resource
 * (bytes_attr.h), message -> DictionaryAttr (or its serialized bytes, as a
 * string or resource, see thunkyProtoToAttr; an xla.ShapeProto the tensor
 * type of shape_type.h, where that gives it back), repeated -> a dense
 * array for signed integers, bools and floats, an ArrayAttr otherwise.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TRANSLATE_PROTO_ATTR_H
#define THUNKY_TRANSLATE_PROTO_ATTR_H

#include "bytes_attr.h"

#include "thunky-c/base/Arena.h"
#include "thunky-c/base/HashMap.h"

#include "mlir-c/IR.h"

#include <stdbool.h>

/* What thunkyProtoToAttr makes once per context and reuses: the field
 * names of each message type as identifiers. The same few types convert
 * many times (an allocation per argument), and a context lookup per field
 * costs more than the rest of a small message's conversion. Zero-initialize
 * it with its context; free with thunkyProtoCacheDestroy. Its size is
 * bounded by the schema, not by the input. */
/* The resource name for the value of `field` of `message` (a readable
 * one for what it holds: "module_binary", "hlo_module"); a field not listed
 * names its resources after itself. */
typedef struct ThunkyResourceName {
  const ProtobufCMessageDescriptor *message;
  const char *field, *name;
} ThunkyResourceName;

typedef struct ThunkyProtoCache {
  MlirContext ctx;
  ThunkyBytesPool *bytes;                   /* where long values go */
  const ThunkyResourceName *resourceNames; /* ends with a null message; may be NULL */
  ThunkyHashMap namesOf;  /* a message descriptor -> its first entry in names */
  MlirType *elementTypes; /* for shapes as tensor types: thunkyShapeToType's cache, or NULL */
  MlirIdentifier *names;  /* per type: its fields in order, then "_unknown" */
  size_t numNames, namesCapacity;
} ThunkyProtoCache;

void thunkyProtoCacheDestroy(ThunkyProtoCache *cache);

/* The attribute for `msg`, in cache->ctx; a null attribute when out of
 * memory. Message fields whose type is in the NULL-terminated list `opaque`
 * (may be NULL) are kept as serialized bytes: big debug payloads nobody
 * reads as text. */
MlirAttribute thunkyProtoToAttr(ThunkyProtoCache *cache, const ProtobufCMessage *msg,
                                const ProtobufCMessageDescriptor *const *opaque);

/* Builds a message of type `desc` from `attr` (a DictionaryAttr as above, or a
 * string or byte resource holding the serialized message) in `arena`; bytes
 * fields point into the attributes, which must outlive the message. On a mistake (an
 * unknown field name, a value of the wrong kind) reports an error at `loc`
 * naming the field path from `name` (the attribute's name), and returns NULL. */
ProtobufCMessage *thunkyAttrToProto(MlirAttribute attr,
                                    const ProtobufCMessageDescriptor *desc,
                                    ThunkyArena *arena, MlirLocation loc,
                                    const char *name);

/* Whether field `f` of `msg` is present (a repeated field: non-empty). */
bool thunkyProtoHasField(const ProtobufCMessage *msg,
                         const ProtobufCFieldDescriptor *f);

/* Makes field `name` of `msg` absent (its memory stays in the arena). */
void thunkyProtoClearField(ProtobufCMessage *msg, const char *name);

/* Whether `msg` has no field set and no unknown fields. */
bool thunkyProtoIsEmpty(const ProtobufCMessage *msg);

#endif /* THUNKY_TRANSLATE_PROTO_ATTR_H */
