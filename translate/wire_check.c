/*===- wire_check.c - protobuf wire format validation -------------------===*/
#include "wire_check.h"

#include <inttypes.h>
#include <stdio.h>

typedef struct Reader {
  const unsigned char *base;
  char *error;
  size_t errorSize;
} Reader;

static bool fail(Reader *r, size_t at, const char *path, const char *what) {
  snprintf(r->error, r->errorSize, "at byte %zu%s%s: %s", at,
           *path ? " in " : "", path, what);
  return false;
}

/* Reads a varint at *pos (< end); false when truncated or over 10 bytes. */
static bool readVarint(const unsigned char *data, size_t *pos, size_t end,
                       uint64_t *value) {
  uint64_t v = 0;
  for (unsigned shift = 0; shift < 70 && *pos < end; shift += 7) {
    unsigned char byte = data[(*pos)++];
    v |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *value = v;
      return true;
    }
  }
  return false;
}

static bool checkMessage(Reader *r, const ProtobufCMessageDescriptor *desc,
                         size_t pos, size_t end, int depth, const char *path);

static bool checkField(Reader *r, const ProtobufCMessageDescriptor *desc,
                       size_t *pos, size_t end, int depth, const char *path) {
  size_t start = *pos;
  uint64_t key;
  if (!readVarint(r->base, pos, end, &key))
    return fail(r, start, path, "truncated field key");
  uint32_t number = (uint32_t)(key >> 3);
  unsigned wireType = (unsigned)(key & 7);
  if (number == 0 || key >> 3 > 0x1fffffff)
    return fail(r, start, path, "invalid field number");
  const ProtobufCFieldDescriptor *f =
      desc ? protobuf_c_message_descriptor_get_field(desc, number) : NULL;
  char where[256];
  snprintf(where, sizeof where, "%s%s%s", path, *path ? "." : "",
           f ? f->name : "(unknown field)");
  uint64_t length;
  switch (wireType) {
  case 0:
    if (!readVarint(r->base, pos, end, &length))
      return fail(r, start, where, "truncated varint");
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
    if (!readVarint(r->base, pos, end, &length))
      return fail(r, start, where, "truncated length");
    if (length > end - *pos)
      return fail(r, start, where, "length runs past the end of its message");
    if (f && f->type == PROTOBUF_C_TYPE_MESSAGE &&
        !checkMessage(r, f->descriptor, *pos, *pos + (size_t)length, depth + 1,
                      where))
      return false;
    *pos += (size_t)length;
    break;
  default:
    return fail(r, start, where, "unsupported wire type (groups are not used by XLA)");
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
                         size_t pos, size_t end, int depth, const char *path) {
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

bool thunkyCheckWire(const ProtobufCMessageDescriptor *desc,
                     const unsigned char *data, size_t size, char *error,
                     size_t errorSize) {
  Reader r = {data, error, errorSize};
  return checkMessage(&r, desc, 0, size, 0, "");
}
