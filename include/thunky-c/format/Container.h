/*===- thunky-c/format/Container.h - the layers around a GpuExecutableProto ----===*
 *
 * What JAX serializes is not a bare xla.gpu.GpuExecutableProto. From the
 * outside in it can be:
 *
 *   IFRT envelope   varint length + xla.ifrt.SerializedXlaExecutableMetadata,
 *                   then the PJRT bytes (JAX >= 0.9.1);
 *   PJRT bytes      an xla.ExecutableAndOptionsProto, plain or split-proto,
 *                   whose field 1 holds the executable;
 *   executable      a GpuExecutableProto, plain or split-proto.
 *
 * A split-proto file is a riegeli record file whose first record is an
 * xla.SplitProtoManifest. Opening a container finds every layer and hands
 * back the executable's bytes and what the outer layers carry; writing one
 * puts them back in any layering. This part links no MLIR: the runtime
 * reads containers too.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_CONTAINER_H
#define THUNKY_C_CONTAINER_H

#include "thunky-c/Export.h"

#include "thunky-c/base/Bytes.h"
#include "thunky-c/base/Error.h"
#include "thunky-c/base/Limits.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a file holds, told from its bytes alone, so that every tool names
 * what it was given instead of misreading it as a protobuf. */
typedef enum ThunkyInputKind {
  THUNKY_INPUT_EMPTY,         /* no bytes */
  THUNKY_INPUT_TEXTPROTO,     /* protobuf's text format */
  THUNKY_INPUT_MLIR_TEXT,     /* an MLIR module as text */
  THUNKY_INPUT_MLIR_BYTECODE, /* an MLIR module as bytecode ("ML\xefR") */
  THUNKY_INPUT_TEXT,          /* other text (may still be an executable's bytes) */
  THUNKY_INPUT_BINARY,        /* anything else: an executable in some layering, or not */
  THUNKY_INPUT_KIND_COUNT
} ThunkyInputKind;

/* The kind of data[0, size); linear in at most its first 64 KiB. */
THUNKY_EXPORT ThunkyInputKind thunkyInputKindOf(const void *data, size_t size);
/* The kind's name for messages ("an MLIR module (bytecode)", ...). */
THUNKY_EXPORT const char *thunkyInputKindName(ThunkyInputKind kind);
/* For a textproto: the message of the project's schema (an executable's
 * layers) that its first field belongs to, e.g. "xla.gpu.GpuExecutableProto";
 * NULL when none has that field or the bytes are no textproto. */
THUNKY_EXPORT const char *thunkyTextprotoMessage(const void *data, size_t size);
/* True when data[0, size) may be a binary executable; otherwise false, with
 * a line saying what the bytes are and, where there is one, the command
 * that makes an executable of them (with `name` as the file; NULL: FILE). */
THUNKY_EXPORT bool thunkyInputExpectExecutable(const void *data, size_t size, const char *name,
                                               ThunkyError *error);
/* The same for a tool that reads an MLIR module: false, with a line saying
 * what the bytes are and the command that makes a module of them, for
 * binary data that is not MLIR bytecode and for a textproto. */
THUNKY_EXPORT bool thunkyInputExpectModule(const void *data, size_t size, const char *name,
                                           ThunkyError *error);

/* The layerings thunky reads and writes, named as on the command line. */
typedef enum ThunkyLayering {
  THUNKY_LAYERING_EXECUTABLE,         /* "executable": a bare GpuExecutableProto */
  THUNKY_LAYERING_SPLIT,              /* "split": the executable as split-proto */
  THUNKY_LAYERING_OPTIONS,            /* "options": plain ExecutableAndOptionsProto
                                         around a split executable (JAX <= 0.11) */
  THUNKY_LAYERING_SPLIT_OPTIONS,      /* "split-options": both split (XLA HEAD) */
  THUNKY_LAYERING_IFRT_OPTIONS,       /* "ifrt+options": JAX 0.10.1 - 0.11 */
  THUNKY_LAYERING_IFRT_SPLIT_OPTIONS, /* "ifrt+split-options": JAX at XLA HEAD */
  THUNKY_LAYERING_COUNT
} ThunkyLayering;

/* The layering's name ("ifrt+split-options", ...). */
THUNKY_EXPORT const char *thunkyLayeringName(ThunkyLayering layering);
/* Parses a name; false when it names no layering. */
THUNKY_EXPORT bool thunkyLayeringParse(const char *name, size_t length, ThunkyLayering *layering);
/* Whether the layering has an ExecutableAndOptionsProto / IFRT envelope. */
THUNKY_EXPORT bool thunkyLayeringHasOptions(ThunkyLayering layering);
THUNKY_EXPORT bool thunkyLayeringHasEnvelope(ThunkyLayering layering);

typedef enum ThunkyCompression {
  THUNKY_COMPRESSION_NONE = 0,
  THUNKY_COMPRESSION_BROTLI = 'b',
  THUNKY_COMPRESSION_SNAPPY = 's',
  THUNKY_COMPRESSION_ZSTD = 'z',
} ThunkyCompression;

/* A JAX persistent compilation cache entry around the layers
 * (jax/_src/compilation_cache.py): one compressed stream of the compile
 * time, 4 bytes big-endian, then executable.serialize()'s bytes. */
typedef enum ThunkyCacheEntry {
  THUNKY_CACHE_NONE,
  THUNKY_CACHE_ZLIB, /* where the zstandard module is missing */
  THUNKY_CACHE_ZSTD,
} ThunkyCacheEntry;

typedef struct ThunkyContainer {
  ThunkyCacheEntry cache;      /* around everything below, or none */
  uint32_t cacheCompileTime;   /* the entry's 4-byte compile time */
  /* A jax.experimental.serialize_executable.serialize pickle around the
   * layers below, or empty: the pickle less the executable's bytes (its
   * ('exec', bytes) persistent id), where they go, and the pickle frame
   * that holds them (-1: none). */
  ThunkyBytes pickle;
  size_t pickleAt;
  int64_t pickleFrame;
  ThunkyLayering layering;
  ThunkyBytes executable; /* the GpuExecutableProto */
  ThunkyBytes options;    /* the ExecutableAndOptionsProto less field 1, or empty */
  ThunkyBytes metadata;   /* the IFRT metadata message, or empty */
  size_t optionsRecords, executableRecords; /* riegeli records of split layers */
  ThunkyCompression compression;            /* of the split executable */
  ThunkyBuffer owned[4];  /* what the views above point into, when not the input */
  /* `executable` passed thunkyValidateWire as a GpuExecutableProto already
   * (a bare one is told from other bytes that way), so that the importer
   * need not walk it again. */
  bool wireChecked;
} ThunkyContainer;

/* Finds the layers of data[0, size) (which must outlive the container).
 * Bytes that are no container are taken as a bare executable (or XLA's
 * golden wrapper) when they are well-formed as one; an empty file, text,
 * an MLIR module and malformed bytes are refused (thunkyInputExpectExecutable
 * says what they are). Whether the executable makes sense is for the
 * importer to say. Only limits->maxDecodedBytes applies
 * here; NULL limits take the defaults. */
THUNKY_EXPORT bool thunkyContainerCreate(const void *data, size_t size, const ThunkyLimits *limits,
                                         ThunkyContainer *container, ThunkyError *error);
THUNKY_EXPORT void thunkyContainerDestroy(ThunkyContainer *container);

/* One line naming each layer found, outermost first, with sizes. */
THUNKY_EXPORT void thunkyContainerDescribe(const ThunkyContainer *container, char *out,
                                           size_t size);

/* Appends the container's executable, options and metadata to `out` in its
 * layering; split layers use XLA's record layout and `compression`. */
THUNKY_EXPORT bool thunkyContainerWrite(const ThunkyContainer *container,
                                        ThunkyCompression compression, ThunkyBuffer *out,
                                        ThunkyError *error);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_CONTAINER_H */
