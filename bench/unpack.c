/*===- bench/unpack.c - the floor under import: protobuf-c unpacking alone -===*
 *
 *   bench-unpack [--repeat K] FILE.pb
 *
 * Reads FILE.pb, finds the GpuExecutableProto in it (a bare one, or inside
 * any container layering thunky reads; finding it is not timed), and times
 * xla__gpu__gpu_executable_proto__unpack alone, K times (default 1). Prints
 * one `key value` pair a line, for bench/run:
 *
 *   unpack_ns     nanoseconds of the first unpack (not the free, not the read):
 *                 what an importer pays, on memory the process never touched
 *   unpack_warm_ns  with K > 1: the median of the other K - 1
 *   input_bytes   bytes of the file
 *   exe_bytes     bytes of the GpuExecutableProto
 *   thunks        top-level thunks
 *   payload_bytes binary payloads: every `bytes` field anywhere in the
 *                 message (cubins, constants, kernel specs, DNN graphs, ...)
 *                 plus asm_text (PTX)
 *   distinct_payload_bytes  the same, each distinct content counted once
 *                 (kernels that share a cubin carry a copy each on the wire)
 *
 *===--------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L
#include "thunky-c/format/Container.h"
#include "thunky-c/base/Error.h"
#include "thunky-c/runtime/Timeline.h"
#include "xla/service/gpu/gpu_executable.pb-c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compareU64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Every `bytes` field seen, to count distinct contents. */
static ProtobufCBinaryData *blobs;
static size_t numBlobs, blobCapacity;

static void noteBlob(ProtobufCBinaryData b) {
  if (!b.len)
    return;
  if (numBlobs == blobCapacity) {
    blobCapacity = blobCapacity ? 2 * blobCapacity : 1024;
    blobs = realloc(blobs, blobCapacity * sizeof *blobs);
    if (!blobs) {
      fprintf(stderr, "bench-unpack: out of memory\n");
      exit(1);
    }
  }
  blobs[numBlobs++] = b;
}

static int compareBlobs(const void *a, const void *b) {
  const ProtobufCBinaryData *x = a, *y = b;
  if (x->len != y->len)
    return x->len < y->len ? -1 : 1;
  return memcmp(x->data, y->data, x->len);
}

static uint64_t distinctBlobBytes(void) {
  qsort(blobs, numBlobs, sizeof *blobs, compareBlobs);
  uint64_t total = 0;
  for (size_t i = 0; i < numBlobs; i++)
    if (i == 0 || compareBlobs(&blobs[i - 1], &blobs[i]) != 0)
      total += blobs[i].len;
  return total;
}

/* Bytes of every `bytes` field in `m` and the messages below it. */
static uint64_t payloadBytes(const ProtobufCMessage *m) {
  if (!m)
    return 0;
  uint64_t total = 0;
  const ProtobufCMessageDescriptor *d = m->descriptor;
  for (unsigned i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    const char *base = (const char *)m;
    const void *member = base + f->offset;
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t n = *(const size_t *)(base + f->quantifier_offset);
      if (f->type == PROTOBUF_C_TYPE_BYTES) {
        const ProtobufCBinaryData *v = *(ProtobufCBinaryData *const *)member;
        for (size_t k = 0; k < n; k++)
          total += v[k].len, noteBlob(v[k]);
      } else if (f->type == PROTOBUF_C_TYPE_MESSAGE) {
        ProtobufCMessage *const *v = *(ProtobufCMessage *const *const *)member;
        for (size_t k = 0; k < n; k++)
          total += payloadBytes(v[k]);
      }
      continue;
    }
    /* A oneof member that is not the chosen case holds someone else's bytes. */
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
      uint32_t chosen = *(const uint32_t *)(base + f->quantifier_offset);
      if (chosen != f->id)
        continue;
    }
    if (f->type == PROTOBUF_C_TYPE_BYTES)
      total += ((const ProtobufCBinaryData *)member)->len,
          noteBlob(*(const ProtobufCBinaryData *)member);
    else if (f->type == PROTOBUF_C_TYPE_MESSAGE)
      total += payloadBytes(*(ProtobufCMessage *const *)member);
  }
  return total;
}

int main(int argc, char **argv) {
  int repeat = 1;
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = atoi(argv[++i]);
    else if (!path && argv[i][0] != '-')
      path = argv[i];
    else {
      fprintf(stderr, "usage: bench-unpack [--repeat K] FILE.pb\n");
      return 2;
    }
  }
  if (!path || repeat < 1) {
    fprintf(stderr, "usage: bench-unpack [--repeat K] FILE.pb\n");
    return 2;
  }

  ThunkyBuffer file = {0};
  ThunkyError error = {{0}};
  if (!thunkyBufferReadFile(&file, path, &error)) {
    fprintf(stderr, "bench-unpack: %s\n", error.message);
    return 1;
  }
  const uint8_t *data = file.data;
  size_t size = file.size;

  ThunkyContainer container;
  if (!thunkyContainerCreate(data, size, NULL, &container, &error)) {
    fprintf(stderr, "bench-unpack: %s: %s\n", path, error.message);
    return 1;
  }

  uint64_t *times = calloc((size_t)repeat, sizeof *times);
  size_t thunks = 0;
  uint64_t payload = 0, distinct = 0;
  for (int r = 0; r < repeat; r++) {
    uint64_t begin = thunkyMonotonicNs();
    Xla__Gpu__GpuExecutableProto *exe = xla__gpu__gpu_executable_proto__unpack(
        NULL, container.executable.size, container.executable.data);
    times[r] = thunkyMonotonicNs() - begin;
    if (!exe) {
      fprintf(stderr, "bench-unpack: %s: the executable (%zu bytes) does not unpack as a "
                      "GpuExecutableProto\n", path, container.executable.size);
      return 1;
    }
    if (r == 0) {
      thunks = exe->n_thunks;
      size_t ptx = exe->has_asm_text ? exe->asm_text.len : 0;
      payload = payloadBytes(&exe->base) + ptx;
      distinct = distinctBlobBytes() + ptx;
      free(blobs), blobs = NULL, numBlobs = blobCapacity = 0;
    }
    xla__gpu__gpu_executable_proto__free_unpacked(exe, NULL);
  }
  printf("unpack_ns %llu\n", (unsigned long long)times[0]);
  if (repeat > 1) {
    qsort(times + 1, (size_t)repeat - 1, sizeof *times, compareU64);
    printf("unpack_warm_ns %llu\n", (unsigned long long)times[1 + (repeat - 1) / 2]);
  }
  printf("input_bytes %zu\n", size);
  printf("exe_bytes %zu\n", container.executable.size);
  printf("thunks %zu\n", thunks);
  printf("payload_bytes %llu\n", (unsigned long long)payload);
  printf("distinct_payload_bytes %llu\n", (unsigned long long)distinct);
  thunkyContainerDestroy(&container);
  free(times);
  thunkyBufferDestroy(&file);
  return 0;
}
