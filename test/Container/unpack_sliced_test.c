/* Unit tests of the sliced unpack (format/unpack_sliced.c): on wire bytes
 * crafted to hit each rule protobuf-c follows (the last value of a singular
 * field wins, a oneof keeps its last member, a singular message given twice
 * is merged, a length need not be written in its fewest bytes), it gives the
 * message protobuf-c's own unpack gives, with long bytes values left in the
 * input and long strings copied once. Each check prints one line; the program fails if any does.
 *
 * RUN: thunky-unpack-sliced-test
 */
#include "executable_internal.h"

#include "thunky-c/format/Wire.h"
#include "xla/service/gpu/gpu_executable.pb-c.h"
#include "xla/stream_executor/kernel_spec.pb-c.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"

#define LONG 3000 /* over the cut threshold */

static uint8_t input[4 * LONG];

typedef struct Wire {
  uint8_t bytes[16 * LONG];
  size_t size;
} Wire;

static void varint(Wire *w, uint64_t v) {
  while (v >= 0x80)
    w->bytes[w->size++] = (uint8_t)(v | 0x80), v >>= 7;
  w->bytes[w->size++] = (uint8_t)v;
}

/* A length-delimited field; `padded` writes its length in one byte more
 * than it needs. */
static void field(Wire *w, uint32_t number, const void *data, size_t size, bool padded) {
  varint(w, (uint64_t)number << 3 | 2);
  if (padded) {
    uint64_t v = size;
    while (v >= 0x80)
      w->bytes[w->size++] = (uint8_t)(v | 0x80), v >>= 7;
    w->bytes[w->size++] = (uint8_t)(v | 0x80);
    w->bytes[w->size++] = 0;
  } else {
    varint(w, size);
  }
  memcpy(w->bytes + w->size, data, size);
  w->size += size;
}

/* Unpacks `w` both ways; checks that both pack to the same bytes, and
 * returns the sliced one (in `arena`). */
static ProtobufCMessage *both(const ProtobufCMessageDescriptor *desc, const Wire *w,
                              ThunkyArena *arena, const char *what) {
  CHECK(thunkyValidateWire(desc, w->bytes, w->size, NULL), "%s: crafted wire is malformed", what);
  ProtobufCMessage *plain = protobuf_c_message_unpack(desc, NULL, w->size, w->bytes);
  static ThunkyBuffer strings; /* lives as long as the test */
  ProtobufCMessage *sliced =
      thunkyUnpackSliced(desc, thunkyArenaAllocator(arena), w->bytes, w->size, &strings, NULL);
  CHECK(plain && sliced, "%s: unpack failed", what);
  if (!plain || !sliced)
    return NULL;
  size_t n = protobuf_c_message_get_packed_size(plain);
  uint8_t *a = malloc(n + 1), *b = malloc(n + 1);
  protobuf_c_message_pack(plain, a);
  CHECK(protobuf_c_message_get_packed_size(sliced) == n &&
            protobuf_c_message_pack(sliced, b) == n && memcmp(a, b, n) == 0,
        "%s: the sliced unpack differs from protobuf-c's", what);
  free(a), free(b);
  protobuf_c_message_free_unpacked(plain, NULL);
  return sliced;
}

static bool inWire(const Wire *w, const uint8_t *p) {
  return p >= w->bytes && p < w->bytes + w->size;
}

/* GpuExecutableProto.binary (bytes, field 4): given twice, the last wins,
 * long or short. */
static void testLastValueWins(void) {
  int before = failures;
  ThunkyArena *arena = thunkyArenaCreate();
  static Wire w;
  w.size = 0;
  field(&w, 4, input, LONG, false);
  field(&w, 4, input + LONG, LONG + 7, false);
  Xla__Gpu__GpuExecutableProto *e = (Xla__Gpu__GpuExecutableProto *)both(
      &xla__gpu__gpu_executable_proto__descriptor, &w, arena, "long then long");
  CHECK(e && e->binary.len == LONG + 7 && inWire(&w, e->binary.data),
        "the second long value, in place");
  w.size = 0;
  field(&w, 4, input, LONG, false);
  field(&w, 4, "short", 5, false);
  e = (Xla__Gpu__GpuExecutableProto *)both(&xla__gpu__gpu_executable_proto__descriptor, &w,
                                           arena, "long then short");
  CHECK(e && e->binary.len == 5, "the short value after a long one");
  w.size = 0;
  field(&w, 3, "PTX", 3, false);
  field(&w, 8, input, LONG, false); /* module_name (a string), bytes 1..255 */
  e = (Xla__Gpu__GpuExecutableProto *)both(&xla__gpu__gpu_executable_proto__descriptor, &w,
                                           arena, "short then long string");
  CHECK(e && e->module_name && strlen(e->module_name) == LONG &&
            memcmp(e->module_name, input, LONG) == 0 &&
            !inWire(&w, (const uint8_t *)e->module_name),
        "the long string, copied and NUL-terminated");
  thunkyArenaDestroy(arena);
  report("last value wins", before);
}

/* KernelLoaderSpecProto: cubin (2, a CudaCubinProto with long data) then
 * ptx (1) in the same oneof; then cubin again, its data length padded. */
static void testOneofAndPaddedLengths(void) {
  int before = failures;
  ThunkyArena *arena = thunkyArenaCreate();
  static Wire cubin, w;
  cubin.size = 0;
  field(&cubin, 1, input, LONG, true);
  w.size = 0;
  field(&w, 2, cubin.bytes, cubin.size, true);
  field(&w, 1, "\x0a\x03ptx", 5, false);
  StreamExecutor__KernelLoaderSpecProto *k = (StreamExecutor__KernelLoaderSpecProto *)both(
      &stream_executor__kernel_loader_spec_proto__descriptor, &w, arena, "cubin then ptx");
  CHECK(k && k->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_PTX,
        "ptx kept");
  w.size = 0;
  field(&w, 1, "\x0a\x03ptx", 5, false);
  field(&w, 2, cubin.bytes, cubin.size, true);
  k = (StreamExecutor__KernelLoaderSpecProto *)both(
      &stream_executor__kernel_loader_spec_proto__descriptor, &w, arena, "ptx then cubin");
  CHECK(k && k->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_CUBIN &&
            k->cubin->data.len == LONG && inWire(&w, k->cubin->data.data) &&
            memcmp(k->cubin->data.data, input, LONG) == 0,
        "cubin kept, in place");
  thunkyArenaDestroy(arena);
  report("oneof and padded lengths", before);
}

/* A singular message given twice is merged by protobuf-c (a constant's
 * content: the long data, then an empty content): the same result. */
static void testMergedMessage(void) {
  int before = failures;
  ThunkyArena *arena = thunkyArenaCreate();
  static Wire content, constant, w;
  content.size = constant.size = w.size = 0;
  field(&content, 1, input, LONG, false);
  field(&constant, 2, content.bytes, content.size, false);
  field(&constant, 2, "", 0, false);
  field(&w, 12, constant.bytes, constant.size, false);
  Xla__Gpu__GpuExecutableProto *e = (Xla__Gpu__GpuExecutableProto *)both(
      &xla__gpu__gpu_executable_proto__descriptor, &w, arena, "merged content");
  CHECK(e && e->n_constants == 1 && e->constants[0]->content &&
            e->constants[0]->content->data.len == LONG,
        "the merged content keeps its data");
  thunkyArenaDestroy(arena);
  report("merged message", before);
}

/* GpuExecutableProto.thunks (13) left out, between a long binary (4) and
 * a constant (12), one thunk's length padded: the rest unpacks as it would
 * with no thunks, and each thunk's bytes come back in order. */
static void testLeftOut(void) {
  int before = failures;
  ThunkyArena *arena = thunkyArenaCreate();
  static Wire thunk, rest, w;
  thunk.size = rest.size = w.size = 0;
  field(&thunk, 1, "\x0a\x01t", 3, false); /* thunk_info.profile_annotation */
  field(&w, 13, thunk.bytes, thunk.size, false);
  field(&w, 4, input, LONG, false);
  field(&w, 13, input, 0, true);
  field(&w, 12, "\x0a\x01" "c", 3, false);
  field(&w, 13, thunk.bytes, thunk.size, false);
  field(&rest, 4, input, LONG, false);
  field(&rest, 12, "\x0a\x01" "c", 3, false);
  ThunkyLeftOut thunks = {&xla__gpu__gpu_executable_proto__descriptor, 13, NULL, 0};
  ThunkyBuffer strings = {0};
  CHECK(thunkyValidateWire(&xla__gpu__gpu_executable_proto__descriptor, w.bytes, w.size, NULL),
        "crafted wire is malformed");
  Xla__Gpu__GpuExecutableProto *e = (Xla__Gpu__GpuExecutableProto *)thunkyUnpackSliced(
      &xla__gpu__gpu_executable_proto__descriptor, thunkyArenaAllocator(arena), w.bytes, w.size,
      &strings, &thunks);
  Xla__Gpu__GpuExecutableProto *plain = (Xla__Gpu__GpuExecutableProto *)protobuf_c_message_unpack(
      &xla__gpu__gpu_executable_proto__descriptor, NULL, rest.size, rest.bytes);
  CHECK(e && plain && e->n_thunks == 0 && e->binary.len == LONG &&
            inWire(&w, e->binary.data) && e->n_constants == 1 &&
            strcmp(e->constants[0]->symbol_name, plain->constants[0]->symbol_name) == 0,
        "the rest as without thunks");
  CHECK(thunks.count == 3 && thunks.values[0].size == thunk.size &&
            memcmp(thunks.values[0].data, thunk.bytes, thunk.size) == 0 &&
            thunks.values[1].size == 0 && thunks.values[2].data > thunks.values[1].data,
        "three thunks' bytes, in order");
  free(thunks.values);
  /* An empty value at the very end of the message (a fuzzer's find). */
  w.size = 0;
  field(&w, 13, input, 0, false);
  e = (Xla__Gpu__GpuExecutableProto *)thunkyUnpackSliced(
      &xla__gpu__gpu_executable_proto__descriptor, thunkyArenaAllocator(arena), w.bytes, w.size,
      &strings, &thunks);
  CHECK(e && e->n_thunks == 0 && thunks.count == 1 && thunks.values[0].size == 0,
        "an empty thunk at the end, left out");
  free(thunks.values);
  thunkyBufferDestroy(&strings);
  protobuf_c_message_free_unpacked(&plain->base, NULL);
  thunkyArenaDestroy(arena);
  report("left out", before);
}

int main(void) {
  for (size_t i = 0; i < sizeof input; ++i)
    input[i] = (uint8_t)(i % 255 + 1); /* no NUL: a string too */
  testLastValueWins();
  testOneofAndPaddedLengths();
  testMergedMessage();
  testLeftOut();
  return failures != 0;
}
