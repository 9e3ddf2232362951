/*===- riegeli_read.c - reading riegeli record files --------------------===*
 *
 * The whole file is in memory. Every chunk header, block header and chunk
 * payload is hash-checked, every size is checked against what is left of
 * the file before it is used, and what decompression may produce is
 * budgeted before anything is allocated for it.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/format/Riegeli.h"

#include "thunky-c/base/Arena.h"

#include "thunky-c/format/Wire.h"

#include <brotli/decode.h>
#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

enum {
  B = THUNKY_RIEGELI_BLOCK_SIZE,
  H = THUNKY_RIEGELI_BLOCK_HEADER_SIZE,
  CHUNK_HEADER = THUNKY_RIEGELI_CHUNK_HEADER_SIZE,
};

/* The fixed first 64 bytes: a block header, then the signature chunk. */
static const uint8_t signature[THUNKY_RIEGELI_SIGNATURE_SIZE] = {
    0x83, 0xaf, 0x70, 0xd1, 0x0d, 0x88, 0x4a, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0,
    0x40, 0, 0, 0, 0, 0, 0, 0, 0x91, 0xba, 0xc2, 0x3c, 0x92, 0x87, 0xe1, 0xa9,
    0, 0, 0, 0, 0, 0, 0, 0, 0xe1, 0x9f, 0x13, 0xc0, 0xe9, 0xb1, 0xc3, 0x72,
    0x73, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

typedef struct {
  const uint8_t *data;
  size_t size;
  uint64_t budget; /* bytes decompression may still produce */
  ThunkyRecordFile *file;
  ThunkyError *error;
  size_t recordCapacity, chunkCapacity; /* of file->records and file->decoded */
} Reader;

bool thunkyRiegeliHasSignature(const void *data, size_t size) {
  return size >= sizeof signature && memcmp(data, signature, sizeof signature) == 0;
}

void thunkyRecordFileDestroy(ThunkyRecordFile *file) {
  for (size_t i = 0; i < file->chunkCount; i++)
    thunkyBufferDestroy(&file->decoded[i]);
  free(file->decoded);
  free(file->records);
  *file = (ThunkyRecordFile){0};
}

static uint64_t hash(const void *data, size_t size) {
  return thunkyHighwayHash64(thunkyRiegeliHashKey, data, size);
}

/* Copies `size` bytes of a chunk from physical position *pos, stepping
 * over block headers (checked separately, once the chunk's end is known). */
static bool copyAcrossBlocks(Reader *r, uint64_t *pos, uint8_t *to, size_t size) {
  while (size) {
    if (*pos % B == 0)
      *pos += H;
    if (*pos >= r->size)
      return false;
    size_t room = B - *pos % B, left = r->size - *pos;
    size_t take = size < room ? size : room;
    if (take > left)
      return false;
    memcpy(to, r->data + *pos, take);
    to += take, *pos += take, size -= take;
  }
  return true;
}

static bool checkBlockHeaders(Reader *r, uint64_t begin, uint64_t end) {
  for (uint64_t block = (begin + B - 1) / B * B; block < end; block += B) {
    if (block + H > r->size)
      return thunkyErrorf(r->error, "riegeli: block header at byte %llu: truncated",
                          (unsigned long long)block);
    const uint8_t *h = r->data + block;
    uint64_t previous = thunkyLoadU64(h + 8), next = thunkyLoadU64(h + 16);
    if (hash(h + 8, 16) != thunkyLoadU64(h))
      return thunkyErrorf(r->error, "riegeli: block header at byte %llu: hash mismatch",
                          (unsigned long long)block);
    if (previous != block - begin || next != end - block)
      return thunkyErrorf(r->error,
                          "riegeli: block header at byte %llu: says the chunk spans bytes "
                          "%lld to %llu, but it spans %llu to %llu",
                          (unsigned long long)block, (long long)(block - previous),
                          (unsigned long long)(block + next), (unsigned long long)begin,
                          (unsigned long long)end);
  }
  return true;
}

/* A new buffer owned by the file (kept until the file is freed). */
static ThunkyBuffer *newChunkBuffer(Reader *r) {
  ThunkyRecordFile *f = r->file;
  if (!thunkyArrayGrow((void **)&f->decoded, &r->chunkCapacity, f->chunkCount, sizeof *f->decoded))
    return NULL;
  f->decoded[f->chunkCount] = (ThunkyBuffer){0};
  return &f->decoded[f->chunkCount++];
}

/* Decodes one blob of a simple chunk into *out (a view of `in` when not
 * compressed). */
static bool decodeBlob(Reader *r, uint64_t chunk, const char *what, uint8_t compression,
                       ThunkyBytes in, ThunkyBytes *out) {
  if (compression == THUNKY_COMPRESSION_NONE) {
    *out = in;
    return true;
  }
  size_t pos = 0;
  uint64_t claimed;
  if (!thunkyReadVarint(in.data, in.size, &pos, &claimed))
    return thunkyErrorf(r->error, "riegeli: chunk at byte %llu: %s: bad decoded-size prefix",
                        (unsigned long long)chunk, what);
  if (claimed > r->budget)
    return thunkyErrorf(r->error,
                        "riegeli: chunk at byte %llu: %s would decode to %llu bytes, over the "
                        "limit (%llu bytes left of the max-decoded-bytes limit)",
                        (unsigned long long)chunk, what, (unsigned long long)claimed,
                        (unsigned long long)r->budget);
  const uint8_t *stream = in.data + pos;
  size_t streamSize = in.size - pos, produced = 0;
  if (compression == THUNKY_COMPRESSION_SNAPPY) {
    /* Snappy states its own length; check it and the stream before
     * allocating anything. */
    size_t length;
    if (snappy_uncompressed_length((const char *)stream, streamSize, &length) != SNAPPY_OK ||
        length != claimed ||
        snappy_validate_compressed_buffer((const char *)stream, streamSize) != SNAPPY_OK)
      return thunkyErrorf(r->error, "riegeli: chunk at byte %llu: %s: corrupt snappy data",
                          (unsigned long long)chunk, what);
  } else if (compression != THUNKY_COMPRESSION_ZSTD &&
             compression != THUNKY_COMPRESSION_BROTLI) {
    return thunkyErrorf(r->error, "riegeli: chunk at byte %llu: unknown compression type 0x%02x",
                        (unsigned long long)chunk, compression);
  }
  ThunkyBuffer *buffer = newChunkBuffer(r);
  uint8_t *to = buffer ? thunkyBufferExtend(buffer, claimed ? claimed : 1) : NULL;
  if (!to)
    return thunkyErrorf(r->error, "riegeli: chunk at byte %llu: out of memory for %llu bytes",
                        (unsigned long long)chunk, (unsigned long long)claimed);
  r->budget -= claimed;
  bool ok;
  if (compression == THUNKY_COMPRESSION_SNAPPY) {
    produced = claimed;
    ok = snappy_uncompress((const char *)stream, streamSize, (char *)to, &produced) == SNAPPY_OK;
  } else if (compression == THUNKY_COMPRESSION_ZSTD) {
    produced = ZSTD_decompress(to, claimed, stream, streamSize);
    ok = !ZSTD_isError(produced);
  } else {
    produced = claimed;
    ok = BrotliDecoderDecompress(streamSize, stream, &produced, to) ==
         BROTLI_DECODER_RESULT_SUCCESS;
  }
  if (!ok || produced != claimed)
    return thunkyErrorf(r->error,
                        "riegeli: chunk at byte %llu: %s: corrupt %s data (or not %llu bytes)",
                        (unsigned long long)chunk, what,
                        compression == THUNKY_COMPRESSION_SNAPPY ? "snappy"
                        : compression == THUNKY_COMPRESSION_ZSTD ? "zstd"
                                                                 : "brotli",
                        (unsigned long long)claimed);
  *out = (ThunkyBytes){to, claimed};
  return true;
}

static bool decodeSimpleChunk(Reader *r, uint64_t chunk, ThunkyBytes data,
                              uint64_t numRecords, uint64_t decodedSize) {
  size_t pos = 1;
  uint64_t sizesSize;
  if (data.size < 1 || !thunkyReadVarint(data.data, data.size, &pos, &sizesSize) ||
      sizesSize > data.size - pos)
    return thunkyErrorf(r->error, "riegeli: chunk at byte %llu: malformed simple chunk",
                        (unsigned long long)chunk);
  uint8_t compression = data.data[0];
  ThunkyBytes sizes, values;
  if (!decodeBlob(r, chunk, "record sizes", compression,
                  (ThunkyBytes){data.data + pos, sizesSize}, &sizes) ||
      !decodeBlob(r, chunk, "record values", compression,
                  (ThunkyBytes){data.data + pos + sizesSize, data.size - pos - sizesSize},
                  &values))
    return false;
  if (values.size != decodedSize)
    return thunkyErrorf(r->error,
                        "riegeli: chunk at byte %llu: records hold %zu bytes, the header says "
                        "%llu", (unsigned long long)chunk, values.size,
                        (unsigned long long)decodedSize);
  /* Each record size takes at least a byte, so this bounds the array. */
  if (numRecords > sizes.size)
    return thunkyErrorf(r->error,
                        "riegeli: chunk at byte %llu: %llu records cannot fit %zu bytes of sizes",
                        (unsigned long long)chunk, (unsigned long long)numRecords, sizes.size);
  ThunkyRecordFile *f = r->file;
  if (!thunkyArrayGrow((void **)&f->records, &r->recordCapacity, f->count + numRecords,
                       sizeof *f->records))
    return thunkyErrorf(r->error, "riegeli: out of memory");
  ThunkyBytes *records = f->records;
  if (f->count == 0)
    f->compression = compression;
  size_t at = 0, offset = 0;
  for (uint64_t i = 0; i < numRecords; i++) {
    uint64_t size;
    if (!thunkyReadVarint(sizes.data, sizes.size, &at, &size) || size > values.size - offset)
      return thunkyErrorf(r->error,
                          "riegeli: chunk at byte %llu: record %llu's size is missing or runs "
                          "past the chunk's values", (unsigned long long)chunk,
                          (unsigned long long)i);
    records[f->count++] = (ThunkyBytes){values.data + offset, size};
    offset += size;
  }
  if (at != sizes.size || offset != values.size)
    return thunkyErrorf(r->error,
                        "riegeli: chunk at byte %llu: sizes or values left over after %llu "
                        "records", (unsigned long long)chunk, (unsigned long long)numRecords);
  return true;
}

static bool readChunk(Reader *r, uint64_t *pos) {
  uint64_t begin = *pos, at = begin;
  uint8_t header[CHUNK_HEADER];
  if (!copyAcrossBlocks(r, &at, header, sizeof header))
    return thunkyErrorf(r->error, "riegeli: chunk at byte %llu: truncated chunk header",
                        (unsigned long long)begin);
  if (hash(header + 8, 32) != thunkyLoadU64(header))
    return thunkyErrorf(r->error, "riegeli: chunk at byte %llu: header hash mismatch",
                        (unsigned long long)begin);
  uint64_t dataSize = thunkyLoadU64(header + 8), dataHash = thunkyLoadU64(header + 16);
  uint64_t typeAndCount = thunkyLoadU64(header + 24), decodedSize = thunkyLoadU64(header + 32);
  uint8_t type = typeAndCount & 0xff;
  uint64_t numRecords = typeAndCount >> 8;
  if (dataSize > r->size - begin)
    return thunkyErrorf(r->error,
                        "riegeli: chunk at byte %llu: truncated: %llu bytes of data run past "
                        "the end of the file (%zu bytes)", (unsigned long long)begin,
                        (unsigned long long)dataSize, r->size);
  uint64_t end = thunkyRiegeliChunkEnd(begin, dataSize, numRecords);
  if (end > r->size)
    return thunkyErrorf(r->error,
                        "riegeli: chunk at byte %llu: truncated: it ends at byte %llu, the file "
                        "at byte %zu", (unsigned long long)begin, (unsigned long long)end,
                        r->size);
  if (!checkBlockHeaders(r, begin, end))
    return false;
  *pos = end;
  if (type == 's' || type == 'm' || type == 'p') {
    if (numRecords != 0)
      return thunkyErrorf(r->error, "riegeli: chunk at byte %llu: a '%c' chunk holds no records",
                          (unsigned long long)begin, type);
    return true; /* a repeated signature, metadata or padding: nothing to read */
  }
  if (type == 't')
    return thunkyErrorf(r->error,
                        "riegeli: chunk at byte %llu: transposed chunks are not supported (XLA "
                        "writes simple chunks)", (unsigned long long)begin);
  if (type != 'r')
    return thunkyErrorf(r->error, "riegeli: chunk at byte %llu: unknown chunk type 0x%02x",
                        (unsigned long long)begin, type);
  ThunkyBuffer *copy = newChunkBuffer(r);
  uint8_t *data = copy ? thunkyBufferExtend(copy, dataSize ? dataSize : 1) : NULL;
  if (!data)
    return thunkyErrorf(r->error, "riegeli: out of memory");
  copy->size = dataSize;
  if (!copyAcrossBlocks(r, &at, data, dataSize))
    return thunkyErrorf(r->error, "riegeli: chunk at byte %llu: truncated chunk data",
                        (unsigned long long)begin);
  if (hash(data, dataSize) != dataHash)
    return thunkyErrorf(r->error, "riegeli: chunk at byte %llu: data hash mismatch",
                        (unsigned long long)begin);
  return decodeSimpleChunk(r, begin, (ThunkyBytes){data, dataSize}, numRecords, decodedSize);
}

bool thunkyRiegeliRead(const void *data, size_t size, uint64_t maxDecodedBytes,
                       ThunkyRecordFile *file, ThunkyError *error) {
  *file = (ThunkyRecordFile){0};
  if (!thunkyRiegeliHasSignature(data, size))
    return thunkyErrorf(error, "riegeli: the first 64 bytes are not riegeli's file signature");
  Reader r = {data, size, maxDecodedBytes, file, error, 0, 0};
  uint64_t pos = 0;
  while (pos < size) {
    if (!readChunk(&r, &pos)) {
      thunkyRecordFileDestroy(file);
      return false;
    }
  }
  return true;
}
