/*===- wire_check.c - protobuf wire format validation -------------------===*/
#include "thunky-c/format/Wire.h"

#include <inttypes.h>
#include <stdio.h>

bool thunkyNextWireField(const uint8_t *data, size_t size, size_t *pos, ThunkyWireField *f,
                         ThunkyError *error) {
  uint64_t tag, length;
  f->begin = *pos;
  if (!thunkyReadVarint(data, size, pos, &tag))
    return thunkyErrorf(error, "byte %zu: truncated or overlong field tag", f->begin);
  f->number = (uint32_t)(tag >> 3);
  f->wireType = tag & 7;
  if (tag >> 3 == 0 || tag >> 3 > 0x1fffffff)
    return thunkyErrorf(error, "byte %zu: field number %llu is out of range", f->begin,
                        (unsigned long long)(tag >> 3));
  switch (f->wireType) {
  case 0:
    f->payload = *pos;
    if (!thunkyReadVarint(data, size, pos, &length))
      return thunkyErrorf(error, "byte %zu: field %u: truncated or overlong varint", f->payload,
                          f->number);
    break;
  case 1:
  case 5: {
    size_t width = f->wireType == 1 ? 8 : 4;
    f->payload = *pos;
    if (size - *pos < width)
      return thunkyErrorf(error, "byte %zu: field %u: truncated fixed-width value", f->payload,
                          f->number);
    *pos += width;
    break;
  }
  case 2:
    if (!thunkyReadVarint(data, size, pos, &length))
      return thunkyErrorf(error, "byte %zu: field %u: truncated length", f->begin, f->number);
    f->payload = *pos;
    if (length > size - *pos)
      return thunkyErrorf(error,
                          "byte %zu: field %u: length %llu runs past the end (%zu bytes left)",
                          f->begin, f->number, (unsigned long long)length, size - *pos);
    *pos += (size_t)length;
    break;
  default:
    return thunkyErrorf(error, "byte %zu: field %u: unsupported wire type %u", f->begin, f->number,
                        f->wireType);
  }
  f->end = *pos;
  return true;
}

typedef struct Reader {
  const unsigned char *base;
  ThunkyError *error;
} Reader;

/* Where a field sits, as a chain up to the top message: formatted only when
 * something is wrong, since export checks every byte it writes. */
typedef struct Path {
  const struct Path *parent;
  const ProtobufCFieldDescriptor *field; /* NULL: an unknown field */
  uint32_t number;
} Path;

static size_t formatPath(const Path *p, char *out, size_t size) {
  if (!p)
    return 0;
  size_t n = formatPath(p->parent, out, size);
  int wrote = p->field ? snprintf(out + n, size - n, "%s%s", n ? "." : "", p->field->name)
                       : snprintf(out + n, size - n, "%s(unknown field %" PRIu32 ")",
                                  n ? "." : "", p->number);
  n += wrote > 0 ? (size_t)wrote : 0;
  return n < size ? n : size - 1;
}

static bool fail(Reader *r, size_t at, const Path *path, const char *what) {
  char where[256] = "";
  formatPath(path, where, sizeof where);
  return thunkyErrorf(r->error, "at byte %zu%s%s: %s", at, *where ? " in " : "", where, what);
}

/* Reads the varint `what` at *pos (< end); NULL on success, else what is
 * wrong with it. */
static const char *readVarint(const unsigned char *data, size_t *pos, size_t end,
                              uint64_t *value, const char *truncated) {
  uint64_t v = 0;
  for (unsigned shift = 0; shift < 70; shift += 7) {
    if (*pos >= end)
      return truncated;
    unsigned char byte = data[(*pos)++];
    v |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *value = v;
      return NULL;
    }
  }
  return "varint longer than 10 bytes";
}

static bool checkMessage(Reader *r, const ProtobufCMessageDescriptor *desc,
                         size_t pos, size_t end, int depth, const Path *path);

static bool checkField(Reader *r, const ProtobufCMessageDescriptor *desc,
                       size_t *pos, size_t end, int depth, const Path *path) {
  size_t start = *pos;
  uint64_t key;
  const char *bad = readVarint(r->base, pos, end, &key, "truncated field key");
  if (bad)
    return fail(r, start, path, bad);
  uint32_t number = (uint32_t)(key >> 3);
  unsigned wireType = (unsigned)(key & 7);
  if (number == 0 || key >> 3 > 0x1fffffff)
    return fail(r, start, path, "invalid field number");
  const ProtobufCFieldDescriptor *f =
      desc ? protobuf_c_message_descriptor_get_field(desc, number) : NULL;
  const Path here = {path, f, number}, *where = &here;
  uint64_t length;
  switch (wireType) {
  case 0:
    if ((bad = readVarint(r->base, pos, end, &length, "truncated varint")))
      return fail(r, start, where, bad);
    break;
  case 1:
  case 5: {
    size_t width = wireType == 1 ? 8 : 4;
    if (end - *pos < width)
      return fail(r, start, where, "truncated fixed-width value");
    *pos += width;
    break;
  }
  case 2:
    if ((bad = readVarint(r->base, pos, end, &length, "truncated length")))
      return fail(r, start, where, bad);
    if (length > end - *pos)
      return fail(r, start, where, "length runs past the end of its message");
    if (f && f->type == PROTOBUF_C_TYPE_MESSAGE &&
        !checkMessage(r, f->descriptor, *pos, *pos + (size_t)length, depth + 1,
                      where))
      return false;
    *pos += (size_t)length;
    break;
  case 3:
  case 4:
    return fail(r, start, where, "unsupported wire type (a group; XLA's protos use none)");
  default:
    return fail(r, start, where, "unsupported wire type (not one protobuf defines)");
  }
  /* A known field must use its type's wire type (repeated scalars may also
   * be packed, which is length-delimited). */
  if (f) {
    unsigned expected;
    switch (f->type) {
    case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
      expected = 1; break;
    case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
      expected = 5; break;
    case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE:
      expected = 2; break;
    default:
      expected = 0; break;
    }
    bool packed = wireType == 2 && f->label == PROTOBUF_C_LABEL_REPEATED;
    if (wireType != expected && !packed)
      return fail(r, start, where, "wrong wire type for this field");
  }
  return true;
}

static bool checkMessage(Reader *r, const ProtobufCMessageDescriptor *desc,
                         size_t pos, size_t end, int depth, const Path *path) {
  if (depth > THUNKY_MAX_NESTING) {
    char what[64];
    snprintf(what, sizeof what, "messages nested deeper than %d levels",
             THUNKY_MAX_NESTING);
    return fail(r, pos, path, what);
  }
  while (pos < end)
    if (!checkField(r, desc, &pos, end, depth, path))
      return false;
  return true;
}

bool thunkyValidateWire(const ProtobufCMessageDescriptor *desc, const unsigned char *data,
                     size_t size, ThunkyError *error) {
  Reader r = {data, error};
  return checkMessage(&r, desc, 0, size, 0, NULL);
}

/* Whether an unknown field's stored bytes (all that follows its tag) are
 * exactly one value of its wire type. */
static bool unknownFits(const ProtobufCMessageUnknownField *u) {
  size_t pos = 0;
  uint64_t length;
  if (u->tag == 0 || u->tag > 0x1fffffff)
    return false;
  switch ((unsigned)u->wire_type) { /* not only the enum's values */
  case PROTOBUF_C_WIRE_TYPE_VARINT:
    return thunkyReadVarint(u->data, u->len, &pos, &length) && pos == u->len;
  case PROTOBUF_C_WIRE_TYPE_64BIT:
    return u->len == 8;
  case PROTOBUF_C_WIRE_TYPE_32BIT:
    return u->len == 4;
  case PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED:
    return thunkyReadVarint(u->data, u->len, &pos, &length) && length == u->len - pos;
  default:
    return false;
  }
}

static bool fits(const ProtobufCMessage *msg, int depth) {
  if (depth > THUNKY_MAX_NESTING)
    return false;
  const ProtobufCMessageDescriptor *desc = msg->descriptor;
  for (unsigned i = 0; i < desc->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &desc->fields[i];
    if (f->type != PROTOBUF_C_TYPE_MESSAGE)
      continue;
    const char *base = (const char *)msg;
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF &&
        *(const uint32_t *)(base + f->quantifier_offset) != f->id)
      continue;
    size_t n = f->label == PROTOBUF_C_LABEL_REPEATED
                   ? *(const size_t *)(base + f->quantifier_offset)
                   : 1;
    const ProtobufCMessage *const *values =
        f->label == PROTOBUF_C_LABEL_REPEATED
            ? *(const ProtobufCMessage *const *const *)(base + f->offset)
            : (const ProtobufCMessage *const *)(base + f->offset);
    for (size_t j = 0; j < n; j++)
      if (values[j] && !fits(values[j], depth + 1))
        return false;
  }
  for (unsigned i = 0; i < msg->n_unknown_fields; i++)
    if (!unknownFits(&msg->unknown_fields[i]))
      return false;
  return true;
}

bool thunkyMessagePacksWell(const ProtobufCMessage *msg) { return fits(msg, 0); }
