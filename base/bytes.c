/*===- bytes.c - byte buffers, varints and little-endian words ----------===*/
#include "thunky-c/base/Bytes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void thunkyBufferDestroy(ThunkyBuffer *b) {
  free(b->data);
  *b = (ThunkyBuffer){0};
}

static bool reserve(ThunkyBuffer *b, size_t more) {
  if (b->failed)
    return false;
  /* Even an empty buffer gets storage, so a view of it is never NULL. */
  if (b->data && more <= b->capacity - b->size)
    return true;
  if (more > SIZE_MAX / 2 - b->size)
    return !(b->failed = true);
  size_t capacity = b->capacity ? b->capacity : 256;
  while (capacity - b->size < more)
    capacity *= 2;
  uint8_t *data = realloc(b->data, capacity);
  if (!data)
    return !(b->failed = true);
  b->data = data;
  b->capacity = capacity;
  return true;
}

bool thunkyBufferAppend(ThunkyBuffer *b, const void *data, size_t size) {
  uint8_t *to = thunkyBufferExtend(b, size);
  if (to && size)
    memcpy(to, data, size);
  return to != NULL;
}

uint8_t *thunkyBufferExtend(ThunkyBuffer *b, size_t count) {
  if (!reserve(b, count))
    return NULL;
  b->size += count;
  return b->data + b->size - count;
}

bool thunkyBufferAppendZeros(ThunkyBuffer *b, size_t count) {
  uint8_t *zeros = thunkyBufferExtend(b, count);
  if (zeros && count)
    memset(zeros, 0, count);
  return zeros != NULL;
}

bool thunkyBufferAppendVarint(ThunkyBuffer *b, uint64_t v) {
  uint8_t bytes[10];
  size_t n = 0;
  do {
    bytes[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  return thunkyBufferAppend(b, bytes, n);
}

bool thunkyBufferAppendU64(ThunkyBuffer *b, uint64_t v) {
  uint8_t bytes[8];
  thunkyStoreU64(bytes, v);
  return thunkyBufferAppend(b, bytes, 8);
}

bool thunkyReadVarint(const uint8_t *data, size_t size, size_t *pos, uint64_t *v) {
  uint64_t value = 0;
  for (unsigned shift = 0; shift < 70 && *pos < size; shift += 7) {
    uint8_t byte = data[(*pos)++];
    if (shift == 63 && byte > 1)
      return false;
    value |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *v = value;
      return true;
    }
  }
  return false;
}

uint64_t thunkyLoadU64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

void thunkyStoreU64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

bool thunkyBufferReadFile(ThunkyBuffer *b, const char *path, ThunkyError *error) {
  bool isStdin = strcmp(path, "-") == 0;
  FILE *f = isStdin ? stdin : fopen(path, "rb");
  if (!f)
    return thunkyErrorf(error, "cannot open %s: %s", path, strerror(errno));
  uint8_t chunk[1 << 16];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    thunkyBufferAppend(b, chunk, n);
  bool read = !ferror(f);
  int why = b->failed ? ENOMEM : errno; /* a directory opens, and fails here: EISDIR */
  if (!isStdin)
    fclose(f);
  if (read && !b->failed)
    return true;
  thunkyErrorf(error, "cannot read %s: %s", path, strerror(why));
  errno = why; /* what callers tell an out-of-memory failure by */
  return false;
}
