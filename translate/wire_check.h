/*===- wire_check.h - refuse malformed protobuf bytes up front ----------===*
 *
 * protobuf-c unpacks nested messages recursively and says only "failed" on
 * bad input. This check runs first, without recursion deeper than the limit:
 * it walks the wire format guided by the schema and reports what is wrong and
 * at which byte, and refuses nesting deeper than THUNKY_MAX_NESTING (the limit
 * XLA's own protobuf readers use).
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TRANSLATE_WIRE_CHECK_H
#define THUNKY_TRANSLATE_WIRE_CHECK_H

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>

#define THUNKY_MAX_NESTING 100

/* Checks that data[0, size) is a well-formed `desc`. On failure writes a
 * message naming the byte offset and field into error[0, errorSize). */
bool thunkyCheckWire(const ProtobufCMessageDescriptor *desc,
                     const unsigned char *data, size_t size, char *error,
                     size_t errorSize);

#endif /* THUNKY_TRANSLATE_WIRE_CHECK_H */
