/*===- thunky-c/base/Bytes.h - byte views, growable buffers, whole files -----===*
 *
 * The bytes every other part passes around: a borrowed view, a buffer that
 * grows and remembers running out of memory, a file mapped or read whole,
 * and the varints and little-endian words the wire formats are made of.
 * No MLIR, no protobuf.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_BYTES_H
#define THUNKY_C_BYTES_H

#include "thunky-c/Export.h"

#include "thunky-c/base/Error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ThunkyBytes {
  const uint8_t *data;
  size_t size;
} ThunkyBytes;

/* A growable byte buffer; zero-initialize, free with thunkyBufferDestroy. */
typedef struct ThunkyBuffer {
  uint8_t *data;
  size_t size, capacity;
  bool failed; /* an append ran out of memory */
} ThunkyBuffer;

/* Appends data[0, size); false (and the buffer marked failed) when out of
 * memory. Appending to a failed buffer does nothing. */
THUNKY_EXPORT bool thunkyBufferAppend(ThunkyBuffer *buffer, const void *data, size_t size);
THUNKY_EXPORT void thunkyBufferDestroy(ThunkyBuffer *buffer);
/* Appends the whole file at `path` ("-": standard input); false, with an
 * error naming the file, when it cannot be opened or read or memory runs
 * out. */
THUNKY_EXPORT bool thunkyBufferReadFile(ThunkyBuffer *buffer, const char *path, ThunkyError *error);

/* A whole file's bytes, read-only: mapped where the file is a regular one
 * (a 100 MB executable read into fresh memory cost a page fault per 4 KB),
 * else read into `buffer` (standard input, a pipe). */
typedef struct ThunkyFileBytes {
  const uint8_t *data; /* never NULL */
  size_t size;
  void *mapping;       /* what thunkyFileBytesDestroy unmaps; NULL when read */
  ThunkyBuffer buffer; /* what was read, when not mapped */
} ThunkyFileBytes;

/* Opens `path` ("-": standard input) into `bytes`; false, with an error
 * naming the file, as thunkyBufferReadFile. */
THUNKY_EXPORT bool thunkyFileBytesCreate(ThunkyFileBytes *bytes, const char *path,
                                         ThunkyError *error);
THUNKY_EXPORT void thunkyFileBytesDestroy(ThunkyFileBytes *bytes);

/* Grows the buffer by `count` bytes and returns where they start (their
 * contents undefined), or NULL when out of memory. */
THUNKY_EXPORT uint8_t *thunkyBufferExtend(ThunkyBuffer *b, size_t count);
/* Appends `count` zero bytes. */
THUNKY_EXPORT bool thunkyBufferAppendZeros(ThunkyBuffer *b, size_t count);
THUNKY_EXPORT bool thunkyBufferAppendVarint(ThunkyBuffer *b, uint64_t v);
THUNKY_EXPORT bool thunkyBufferAppendU64(ThunkyBuffer *b, uint64_t v);

/* Reads a varint at *pos in data[0, size) and advances *pos; false when it
 * runs past the end or over 10 bytes. */
THUNKY_EXPORT bool thunkyReadVarint(const uint8_t *data, size_t size, size_t *pos, uint64_t *v);
THUNKY_EXPORT uint64_t thunkyLoadU64(const uint8_t *p);
THUNKY_EXPORT void thunkyStoreU64(uint8_t *p, uint64_t v);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_BYTES_H */
