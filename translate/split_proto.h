/*===- split_proto.h - XLA's split-proto container ----------------------===*
 *
 * A split-proto file is a riegeli file: record 0 is an xla.SplitProtoManifest
 * naming the message type and saying, for each later record, whether it is
 * a serialized part of the message to merge, or the raw bytes of one
 * top-level string field. Merging serialized parts is concatenation on the
 * wire, so the message is rebuilt as bytes and parsed once, later.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TRANSLATE_SPLIT_PROTO_H
#define THUNKY_TRANSLATE_SPLIT_PROTO_H

#include "riegeli.h"

#define THUNKY_SPLIT_EXECUTABLE_TYPE "xla.gpu.GpuExecutableProto"
#define THUNKY_SPLIT_OPTIONS_TYPE "xla.ExecutableAndOptionsProto"

/* Whether the file's first record is a manifest with a message type (XLA's
 * own test for a split-proto); copies the type into type[0, typeSize). */
bool thunkySplitProtoType(const ThunkyRecordFile *file, char *type, size_t typeSize);

/* Appends the message the file holds, as protobuf bytes, to `out`. */
bool thunkySplitProtoMerge(const ThunkyRecordFile *file, ThunkyBuffer *out, ThunkyError *error);

/* Writes a GpuExecutableProto's bytes as XLA does: asm_text and binary as
 * raw field records, then dnn_compiled_graphs, each constant, and the rest
 * as merge records. */
bool thunkySplitProtoWriteExecutable(ThunkyBytes executable, ThunkyCompression compression,
                                     ThunkyBuffer *out, ThunkyError *error);

/* Writes an ExecutableAndOptionsProto as XLA does: serialized_executable as
 * a raw field record, then the other fields (`rest`) as a merge record. */
bool thunkySplitProtoWriteOptions(ThunkyBytes serializedExecutable, ThunkyBytes rest,
                                  ThunkyCompression compression, ThunkyBuffer *out,
                                  ThunkyError *error);

#endif /* THUNKY_TRANSLATE_SPLIT_PROTO_H */
