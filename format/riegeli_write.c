/*===- riegeli_write.c - writing riegeli record files -------------------===*
 *
 * Chunks are laid out with the formulas of riegeli's format document, and
 * block headers name the chunk they interrupt, because riegeli's reader
 * checks both while it reads.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/format/Riegeli.h"

#include "snappy_compress.h"
#include "thunky-c/format/Wire.h"

enum {
  B = THUNKY_RIEGELI_BLOCK_SIZE,
  H = THUNKY_RIEGELI_BLOCK_HEADER_SIZE,
  USABLE = B - H,
};

/* XLA's writer closes a chunk once its records pass 1 MiB decoded, counting
 * 8 bytes of bookkeeping per record; a bigger record gets its own chunk. */
#define DESIRED_CHUNK_SIZE (UINT64_C(1) << 20)
#define RECORD_OVERHEAD 8

uint64_t thunkyRiegeliChunkEnd(uint64_t begin, uint64_t dataSize, uint64_t numRecords) {
  uint64_t size = THUNKY_RIEGELI_CHUNK_HEADER_SIZE + dataSize;
  uint64_t overheadBlocks = (size + (begin + USABLE - 1) % B) / USABLE;
  uint64_t end = begin + size + overheadBlocks * H;
  /* A chunk holds at least one byte per record, and never ends inside or
   * right after a block header. */
  uint64_t least = begin + numRecords;
  uint64_t remaining = B - 1 - (least + B - 1) % B;
  if (remaining > USABLE - 1)
    least += remaining - (USABLE - 1);
  return end > least ? end : least;
}

static bool appendBlockHeader(ThunkyBuffer *out, uint64_t chunkBegin, uint64_t chunkEnd) {
  uint8_t header[H];
  uint64_t block = out->size;
  thunkyStoreU64(header + 8, block - chunkBegin);
  thunkyStoreU64(header + 16, chunkEnd - block);
  thunkyStoreU64(header, thunkyHighwayHash64(thunkyRiegeliHashKey, header + 8, 16));
  return thunkyBufferAppend(out, header, H);
}

/* Appends data[0, size) (zeros when data is NULL), putting a block header
 * at every block boundary it crosses. */
static bool appendAcrossBlocks(ThunkyBuffer *out, uint64_t chunkBegin, uint64_t chunkEnd,
                               const uint8_t *data, size_t size) {
  while (size) {
    if (out->size % B == 0 && !appendBlockHeader(out, chunkBegin, chunkEnd))
      return false;
    size_t room = B - out->size % B, take = size < room ? size : room;
    if (!(data ? thunkyBufferAppend(out, data, take) : thunkyBufferAppendZeros(out, take)))
      return false;
    data = data ? data + take : NULL;
    size -= take;
  }
  return true;
}

bool thunkyRiegeliWriteChunk(ThunkyBuffer *out, uint8_t chunkType, const void *data,
                             size_t size, uint64_t numRecords, uint64_t decodedSize) {
  uint64_t begin = out->size, end = thunkyRiegeliChunkEnd(begin, size, numRecords);
  uint8_t header[THUNKY_RIEGELI_CHUNK_HEADER_SIZE];
  thunkyStoreU64(header + 8, size);
  thunkyStoreU64(header + 16, thunkyHighwayHash64(thunkyRiegeliHashKey, data, size));
  thunkyStoreU64(header + 24, chunkType | numRecords << 8);
  thunkyStoreU64(header + 32, decodedSize);
  thunkyStoreU64(header, thunkyHighwayHash64(thunkyRiegeliHashKey, header + 8, 32));
  if (!appendAcrossBlocks(out, begin, end, header, sizeof header) ||
      !appendAcrossBlocks(out, begin, end, data, size))
    return false;
  return appendAcrossBlocks(out, begin, end, NULL, end - out->size);
}

/* A compressed blob is its decoded size, then the compressed stream. */
static bool appendBlob(ThunkyBuffer *chunk, ThunkyCompression compression,
                       const ThunkyBuffer *blob) {
  if (compression == THUNKY_COMPRESSION_NONE)
    return thunkyBufferAppend(chunk, blob->data, blob->size);
  return thunkyBufferAppendVarint(chunk, blob->size) &&
         thunkySnappyCompress(blob->data, blob->size, chunk);
}

static bool writeSimpleChunk(const ThunkyBytes *records, size_t count,
                             ThunkyCompression compression, ThunkyBuffer *out) {
  ThunkyBuffer sizes = {0}, values = {0}, compressedSizes = {0}, chunk = {0};
  for (size_t i = 0; i < count; i++) {
    thunkyBufferAppendVarint(&sizes, records[i].size);
    thunkyBufferAppend(&values, records[i].data, records[i].size);
  }
  uint8_t type = (uint8_t)compression;
  bool ok = !sizes.failed && !values.failed &&
            appendBlob(&compressedSizes, compression, &sizes) &&
            thunkyBufferAppend(&chunk, &type, 1) &&
            thunkyBufferAppendVarint(&chunk, compressedSizes.size) &&
            thunkyBufferAppend(&chunk, compressedSizes.data, compressedSizes.size) &&
            appendBlob(&chunk, compression, &values) &&
            thunkyRiegeliWriteChunk(out, 'r', chunk.data, chunk.size, count, values.size);
  thunkyBufferDestroy(&sizes), thunkyBufferDestroy(&values);
  thunkyBufferDestroy(&compressedSizes), thunkyBufferDestroy(&chunk);
  return ok;
}

bool thunkyRiegeliWrite(const ThunkyBytes *records, size_t count,
                        ThunkyCompression compression, ThunkyBuffer *out, ThunkyError *error) {
  if (compression != THUNKY_COMPRESSION_NONE && compression != THUNKY_COMPRESSION_SNAPPY)
    return thunkyErrorf(error, "riegeli: writing supports no compression or snappy, not '%c'",
                        (char)compression);
  if (out->size != 0)
    return thunkyErrorf(error, "riegeli: a file must be written into an empty buffer");
  if (!thunkyRiegeliWriteChunk(out, 's', NULL, 0, 0, 0))
    return thunkyErrorf(error, "riegeli: out of memory");
  size_t first = 0;
  uint64_t pending = 0;
  for (size_t i = 0; i < count; i++) {
    uint64_t cost = records[i].size + RECORD_OVERHEAD;
    if (i > first && pending + cost > DESIRED_CHUNK_SIZE) {
      if (!writeSimpleChunk(records + first, i - first, compression, out))
        return thunkyErrorf(error, "riegeli: out of memory");
      first = i, pending = 0;
    }
    pending += cost;
  }
  if (count > first && !writeSimpleChunk(records + first, count - first, compression, out))
    return thunkyErrorf(error, "riegeli: out of memory");
  return true;
}
