/*===- thunky-c/format/Wire.h - protobuf's wire format, read and checked -----===*
 *
 * The container layers (IFRT envelope, split-proto, riegeli) are all built
 * from the same few primitives; readers check every length against what is
 * left before they trust it.
 *
 * protobuf-c unpacks nested messages recursively and says only "failed" on
 * bad input. This check runs first, without recursion deeper than the limit:
 * it walks the wire format guided by the schema and reports what is wrong and
 * at which byte, and refuses nesting deeper than THUNKY_MAX_NESTING (the limit
 * XLA's own protobuf readers use).
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_WIRE_H
#define THUNKY_C_WIRE_H

#include "thunky-c/Export.h"

#include "thunky-c/base/Bytes.h"
#include "thunky-c/base/Error.h"
#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One top-level field of a serialized protobuf message. */
typedef struct {
  uint32_t number;
  uint8_t wireType;
  size_t begin;   /* the tag's first byte */
  size_t payload; /* the value's first byte (after the length, for LEN) */
  size_t end;     /* one past the value */
} ThunkyWireField;

/* Reads the field at *pos of data[0, size) and advances *pos to its end;
 * false (with the byte offset in `error`) when it is malformed. Groups are
 * refused: no message in the schema has them. */
THUNKY_EXPORT bool thunkyNextWireField(const uint8_t *data, size_t size, size_t *pos,
                                       ThunkyWireField *field, ThunkyError *error);

#define THUNKY_MAX_NESTING 100

/* Checks that data[0, size) is a well-formed `desc`; false, with the byte
 * offset and the field's path, when it is not. `error` may be NULL. */
THUNKY_EXPORT bool thunkyValidateWire(const ProtobufCMessageDescriptor *desc,
                                   const unsigned char *data, size_t size, ThunkyError *error);

/* Whether protobuf-c's packing of `msg` passes thunkyValidateWire, told from
 * the message alone: nothing nested deeper than THUNKY_MAX_NESTING, and
 * every unknown field one well-formed value. Lets a writer stream the
 * packed bytes out instead of packing them whole to check them first. */
THUNKY_EXPORT bool thunkyMessagePacksWell(const ProtobufCMessage *msg);

/* The name of thunky 0.2 ("check" now means showing that a change kept
 * a program's meaning: docs/runtime.md#names), for one more release. */
#define thunkyCheckWire thunkyValidateWire

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_WIRE_H */
