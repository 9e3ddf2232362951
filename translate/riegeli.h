/*===- riegeli.h - riegeli record files (the subset XLA uses) -----------===*
 *
 * A riegeli/records file is a sequence of chunks, each a 40-byte header and
 * its data, cut by a 24-byte block header at every 64 KiB of the file. Every
 * header and every chunk's data carries a HighwayHash. XLA writes simple
 * chunks (record sizes and values, each optionally compressed); the reader
 * also takes Zstd and Brotli, skips metadata and padding chunks, and refuses
 * transposed chunks, whose format is not documented.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TRANSLATE_RIEGELI_H
#define THUNKY_TRANSLATE_RIEGELI_H

#include "thunky-c/Container.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define THUNKY_RIEGELI_BLOCK_SIZE 65536u
#define THUNKY_RIEGELI_BLOCK_HEADER_SIZE 24u
#define THUNKY_RIEGELI_CHUNK_HEADER_SIZE 40u
#define THUNKY_RIEGELI_SIGNATURE_SIZE 64u

/* The records of a file; they point into the file or into decoded chunks
 * the file owns. */
typedef struct ThunkyRecordFile {
  size_t count;
  ThunkyBytes *records;
  size_t chunkCount;
  ThunkyBuffer *decoded; /* one per chunk that had to be decoded or copied */
  ThunkyCompression compression; /* of the first records chunk */
} ThunkyRecordFile;

/* Whether data starts with the fixed 64-byte riegeli file signature. */
bool thunkyRiegeliHasSignature(const void *data, size_t size);

/* Reads every record of data[0, size), checking every hash and block
 * header; decoding more than maxDecodedBytes in all is refused. */
bool thunkyRiegeliRead(const void *data, size_t size, uint64_t maxDecodedBytes,
                       ThunkyRecordFile *file, ThunkyError *error);
void thunkyRecordFileFree(ThunkyRecordFile *file);

/* Appends a riegeli file of `records` to `out` as XLA writes one: the
 * signature, then simple chunks of about 1 MiB decoded each. */
bool thunkyRiegeliWrite(const ThunkyBytes *records, size_t count,
                        ThunkyCompression compression, ThunkyBuffer *out, ThunkyError *error);

/* Appends one chunk with the given header fields and data, with correct
 * hashes, block headers and padding. `out` must hold a riegeli file so far
 * (start with the signature chunk). Tests use it to build odd files. */
bool thunkyRiegeliWriteChunk(ThunkyBuffer *out, uint8_t chunkType, const void *data,
                             size_t size, uint64_t numRecords, uint64_t decodedSize);

/* Where the chunk beginning at `chunkBegin` with `dataSize` bytes of data
 * and `numRecords` records ends, block headers and padding included. */
uint64_t thunkyRiegeliChunkEnd(uint64_t chunkBegin, uint64_t dataSize, uint64_t numRecords);

#endif /* THUNKY_TRANSLATE_RIEGELI_H */
