/*===- thunky-c/format/Riegeli.h - riegeli record files, XLA's split-proto ---===*
 *
 * A riegeli/records file is a sequence of chunks, each a 40-byte header and
 * its data, cut by a 24-byte block header at every 64 KiB of the file. Every
 * header and every chunk's data carries a HighwayHash. XLA writes simple
 * chunks (record sizes and values, each optionally compressed); the reader
 * also takes Zstd and Brotli, skips metadata and padding chunks, and refuses
 * transposed chunks, whose format is not documented.
 *
 * A split-proto file is a riegeli file: record 0 is an xla.SplitProtoManifest
 * naming the message type and saying, for each later record, whether it is
 * a serialized part of the message to merge, or the raw bytes of one
 * top-level string field. Merging serialized parts is concatenation on the
 * wire, so the message is rebuilt as bytes and parsed once, later.
 *
 * Riegeli protects every block header, chunk header and chunk payload with a
 * 64-bit HighwayHash under a fixed key. This is a portable implementation of
 * the published algorithm, so the container code needs no C++ library and
 * links statically into thunky-run.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_RIEGELI_H
#define THUNKY_C_RIEGELI_H

#include "thunky-c/Export.h"

#include "thunky-c/format/Container.h"
#include "thunky-c/base/Hash.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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
THUNKY_EXPORT bool thunkyRiegeliHasSignature(const void *data, size_t size);

/* Reads every record of data[0, size), checking every hash and block
 * header; decoding more than maxDecodedBytes in all is refused. */
THUNKY_EXPORT bool thunkyRiegeliRead(const void *data, size_t size, uint64_t maxDecodedBytes,
                                     ThunkyRecordFile *file, ThunkyError *error);
THUNKY_EXPORT void thunkyRecordFileDestroy(ThunkyRecordFile *file);

/* Appends a riegeli file of `records` to `out` as XLA writes one: the
 * signature, then simple chunks of about 1 MiB decoded each. */
THUNKY_EXPORT bool thunkyRiegeliWrite(const ThunkyBytes *records, size_t count,
                                      ThunkyCompression compression, ThunkyBuffer *out,
                                      ThunkyError *error);

/* Appends one chunk with the given header fields and data, with correct
 * hashes, block headers and padding. `out` must hold a riegeli file so far
 * (start with the signature chunk). Tests use it to build odd files. */
THUNKY_EXPORT bool thunkyRiegeliWriteChunk(ThunkyBuffer *out, uint8_t chunkType, const void *data,
                                           size_t size, uint64_t numRecords, uint64_t decodedSize);

/* Where the chunk beginning at `chunkBegin` with `dataSize` bytes of data
 * and `numRecords` records ends, block headers and padding included. */
THUNKY_EXPORT uint64_t thunkyRiegeliChunkEnd(uint64_t chunkBegin, uint64_t dataSize,
                                             uint64_t numRecords);

#define THUNKY_SPLIT_EXECUTABLE_TYPE "xla.gpu.GpuExecutableProto"
#define THUNKY_SPLIT_OPTIONS_TYPE "xla.ExecutableAndOptionsProto"

/* Whether the file's first record is a manifest with a message type (XLA's
 * own test for a split-proto); copies the type into type[0, typeSize). */
THUNKY_EXPORT bool thunkySplitProtoType(const ThunkyRecordFile *file, char *type, size_t typeSize);

/* Appends the message the file holds, as protobuf bytes, to `out`. */
THUNKY_EXPORT bool thunkySplitProtoMerge(const ThunkyRecordFile *file, ThunkyBuffer *out,
                                         ThunkyError *error);

/* Writes a GpuExecutableProto's bytes as XLA does: asm_text and binary as
 * raw field records, then dnn_compiled_graphs, each constant, and the rest
 * as merge records. */
THUNKY_EXPORT bool thunkySplitProtoWriteExecutable(ThunkyBytes executable,
                                                   ThunkyCompression compression, ThunkyBuffer *out,
                                                   ThunkyError *error);

/* Writes an ExecutableAndOptionsProto as XLA does: serialized_executable as
 * a raw field record, then the other fields (`rest`) as a merge record. */
THUNKY_EXPORT bool thunkySplitProtoWriteOptions(ThunkyBytes serializedExecutable, ThunkyBytes rest,
                                                ThunkyCompression compression, ThunkyBuffer *out,
                                                ThunkyError *error);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_RIEGELI_H */
