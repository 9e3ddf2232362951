/*===- container.c - finding and writing the layers around an executable -===*
 *
 * Detection goes from the outside in. A riegeli signature means split-proto,
 * and its manifest names the message. Otherwise an IFRT envelope is taken
 * only when its metadata parses and names a runtime, and a plain
 * ExecutableAndOptionsProto only when its field 1 is a split-proto file:
 * a bare GpuExecutableProto also parses as either, so weaker evidence would
 * misread one.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/format/Container.h"

#include "cache_entry.h"
#include "jax_pickle.h"

#include "thunky-c/format/Wire.h"
#include "thunky-c/format/Riegeli.h"
#include "xla/pjrt/proto/compile_options.pb-c.h"
#include "xla/python/pjrt_ifrt/executable_metadata.pb-c.h"
#include "xla/service/gpu/gpu_executable.pb-c.h"
#include "xla/util/split_proto/human_readable_aot_executable.pb-c.h"

#include <stdio.h>
#include <string.h>

static const char *const layeringNames[THUNKY_LAYERING_COUNT] = {
    [THUNKY_LAYERING_EXECUTABLE] = "executable",
    [THUNKY_LAYERING_SPLIT] = "split",
    [THUNKY_LAYERING_OPTIONS] = "options",
    [THUNKY_LAYERING_SPLIT_OPTIONS] = "split-options",
    [THUNKY_LAYERING_IFRT_OPTIONS] = "ifrt+options",
    [THUNKY_LAYERING_IFRT_SPLIT_OPTIONS] = "ifrt+split-options",
};

const char *thunkyLayeringName(ThunkyLayering layering) {
  return layering < THUNKY_LAYERING_COUNT ? layeringNames[layering] : "?";
}

bool thunkyLayeringParse(const char *name, size_t length, ThunkyLayering *layering) {
  for (int i = 0; i < THUNKY_LAYERING_COUNT; i++) {
    if (strlen(layeringNames[i]) == length && memcmp(layeringNames[i], name, length) == 0) {
      *layering = (ThunkyLayering)i;
      return true;
    }
  }
  return false;
}

bool thunkyLayeringHasOptions(ThunkyLayering l) { return l >= THUNKY_LAYERING_OPTIONS; }

bool thunkyLayeringHasEnvelope(ThunkyLayering l) {
  return l == THUNKY_LAYERING_IFRT_OPTIONS || l == THUNKY_LAYERING_IFRT_SPLIT_OPTIONS;
}

static bool isSplitLayer(ThunkyLayering l) {
  return l == THUNKY_LAYERING_SPLIT_OPTIONS || l == THUNKY_LAYERING_IFRT_SPLIT_OPTIONS;
}

/*--- reading ---------------------------------------------------------------*/

enum { EXECUTABLE_BYTES, OPTIONS_REST, CACHE_BYTES, PICKLE_REST };
enum { SERIALIZED_EXECUTABLE = 1 };

static bool readOptions(ThunkyContainer *c, ThunkyBytes options, uint64_t maxDecoded,
                        ThunkyError *error);

/* Reads a split-proto file holding an executable or, where `options` is
 * given, an ExecutableAndOptionsProto (then *options says which it was). */
static bool readSplit(ThunkyContainer *c, ThunkyBytes in, uint64_t maxDecoded, bool *options,
                      ThunkyError *error) {
  ThunkyRecordFile file;
  char type[128];
  ThunkyBuffer merged = {0};
  if (!thunkyRiegeliRead(in.data, in.size, maxDecoded, &file, error))
    return false;
  bool ok = thunkySplitProtoType(&file, type, sizeof type)
                ? thunkySplitProtoMerge(&file, &merged, error)
                : thunkyErrorf(error, "a riegeli file, but its first record is no "
                                      "split-proto manifest naming a message type");
  bool isOptions = ok && options && strcmp(type, THUNKY_SPLIT_OPTIONS_TYPE) == 0;
  if (ok && !isOptions && strcmp(type, THUNKY_SPLIT_EXECUTABLE_TYPE) != 0)
    ok = thunkyErrorf(error, "split-proto of %s where %s was expected", type,
                      options ? "an executable or its options" : THUNKY_SPLIT_EXECUTABLE_TYPE);
  if (ok && isOptions) {
    c->optionsRecords = file.count;
    ok = readOptions(c, (ThunkyBytes){merged.data, merged.size}, maxDecoded, error);
    thunkyBufferDestroy(&merged); /* what is kept was copied out of it */
  } else if (ok) {
    c->executableRecords = file.count;
    c->compression = file.compression;
    c->owned[EXECUTABLE_BYTES] = merged;
    c->executable = (ThunkyBytes){merged.data, merged.size};
  } else {
    thunkyBufferDestroy(&merged);
  }
  if (options)
    *options = isOptions;
  thunkyRecordFileDestroy(&file);
  return ok;
}

/* Takes an ExecutableAndOptionsProto apart: field 1 is the split-proto
 * executable, the rest is kept as it is. */
static bool readOptions(ThunkyContainer *c, ThunkyBytes options, uint64_t maxDecoded,
                        ThunkyError *error) {
  ThunkyError why;
  if (!thunkyValidateWire(&xla__executable_and_options_proto__descriptor, options.data,
                       options.size, &why))
    return thunkyErrorf(error, "not an ExecutableAndOptionsProto: %s", why.message);
  ThunkyBuffer *rest = &c->owned[OPTIONS_REST];
  ThunkyBytes inner = {NULL, 0};
  ThunkyWireField f;
  for (size_t pos = 0; pos < options.size;) {
    /* The wire check lets through a 10-byte varint past 64 bits, which
     * this stricter reader refuses. */
    if (!thunkyNextWireField(options.data, options.size, &pos, &f, error))
      return thunkyErrorContext(error, "not an ExecutableAndOptionsProto");
    if (f.number == SERIALIZED_EXECUTABLE)
      inner = (ThunkyBytes){options.data + f.payload, f.end - f.payload};
    else
      thunkyBufferAppend(rest, options.data + f.begin, f.end - f.begin);
  }
  if (rest->failed)
    return thunkyErrorf(error, "out of memory");
  c->options = (ThunkyBytes){rest->data, rest->size};
  if (!thunkyRiegeliHasSignature(inner.data, inner.size))
    return thunkyErrorf(error,
                        "ExecutableAndOptionsProto: serialized_executable (%zu bytes) is not a "
                        "split-proto GpuExecutableProto; executables written before JAX 0.10.1 "
                        "carry no thunks", inner.size);
  if (!readSplit(c, inner, maxDecoded, NULL, error))
    return thunkyErrorContext(error, "ExecutableAndOptionsProto: serialized_executable");
  return true;
}

/* The PJRT bytes: an ExecutableAndOptionsProto, plain or split. */
static bool readPjrtBytes(ThunkyContainer *c, ThunkyBytes in, uint64_t maxDecoded,
                          bool *split, ThunkyError *error) {
  bool options = false;
  *split = thunkyRiegeliHasSignature(in.data, in.size);
  if (!*split)
    return readOptions(c, in, maxDecoded, error);
  if (!readSplit(c, in, maxDecoded, &options, error))
    return false;
  return options || thunkyErrorf(error, "a split-proto executable where an "
                                        "ExecutableAndOptionsProto was expected");
}

/* The IFRT envelope's metadata, when `in` starts with one. */
static bool envelopeMetadata(ThunkyBytes in, ThunkyBytes *metadata, ThunkyBytes *rest) {
  size_t pos = 0;
  uint64_t length;
  if (!thunkyReadVarint(in.data, in.size, &pos, &length) || length == 0 ||
      length >= in.size - pos)
    return false;
  *metadata = (ThunkyBytes){in.data + pos, (size_t)length};
  *rest = (ThunkyBytes){in.data + pos + length, in.size - pos - (size_t)length};
  if (!thunkyValidateWire(&xla__ifrt__serialized_xla_executable_metadata__descriptor,
                       metadata->data, metadata->size, NULL))
    return false;
  Xla__Ifrt__SerializedXlaExecutableMetadata *m =
      xla__ifrt__serialized_xla_executable_metadata__unpack(NULL, metadata->size, metadata->data);
  bool named = m && m->runtime_name && *m->runtime_name;
  if (m)
    xla__ifrt__serialized_xla_executable_metadata__free_unpacked(m, NULL);
  return named;
}

/* Whether `in` is a plain ExecutableAndOptionsProto: field 1 holds a
 * split-proto file (a GpuExecutableProto's field 1 is a message, which
 * cannot start with riegeli's signature). Protobuf writes fields in the
 * order of their numbers, so a field the proto lacks, before any field 1,
 * says there is none: a bare executable is not read to its end here. */
static bool looksLikePlainOptions(ThunkyBytes in) {
  ThunkyWireField f;
  bool found = false;
  for (size_t pos = 0; pos < in.size;) {
    if (!thunkyNextWireField(in.data, in.size, &pos, &f, NULL))
      return false;
    if (f.number == SERIALIZED_EXECUTABLE)
      found = f.wireType == 2 &&
              thunkyRiegeliHasSignature(in.data + f.payload, f.end - f.payload);
    else if (!found && !protobuf_c_message_descriptor_get_field(
                           &xla__executable_and_options_proto__descriptor, f.number))
      return false;
  }
  return found;
}

/* Whether `in` reads as a bare executable or XLA's golden wrapper of one;
 * which, in c->wireChecked. */
static bool wellFormedExecutable(ThunkyContainer *c, ThunkyBytes in) {
  c->wireChecked =
      thunkyValidateWire(&xla__gpu__gpu_executable_proto__descriptor, in.data, in.size, NULL);
  return c->wireChecked ||
         thunkyValidateWire(&xla__human_readable_aot_executable__descriptor, in.data, in.size, NULL);
}

/* Why bytes that are no container are no executable either: which one
 * they were meant to be cannot be told from broken bytes, so both. */
static bool notExecutable(ThunkyBytes in, ThunkyError *error) {
  ThunkyError asExecutable, asWrapper;
  thunkyValidateWire(&xla__gpu__gpu_executable_proto__descriptor, in.data, in.size, &asExecutable);
  thunkyValidateWire(&xla__human_readable_aot_executable__descriptor, in.data, in.size, &asWrapper);
  return thunkyErrorf(error, "not a GpuExecutableProto: %s; nor a HumanReadableAotExecutable: %s",
                      asExecutable.message, asWrapper.message);
}

/* The layers inside a cache entry, or of the whole. */
static bool readLayers(ThunkyContainer *c, ThunkyBytes in, uint64_t maxDecoded,
                       ThunkyError *error) {
  ThunkyBytes metadata, rest;
  bool ok, split = false, options = false; /* left alone by a read that fails early */
  if (thunkyRiegeliHasSignature(in.data, in.size)) {
    ok = readSplit(c, in, maxDecoded, &options, error);
    c->layering = options ? THUNKY_LAYERING_SPLIT_OPTIONS : THUNKY_LAYERING_SPLIT;
  } else if (envelopeMetadata(in, &metadata, &rest)) {
    c->metadata = metadata;
    ok = readPjrtBytes(c, rest, maxDecoded, &split, error) ||
         thunkyErrorContext(error, "IFRT envelope (%zu bytes of metadata), then", metadata.size);
    c->layering = split ? THUNKY_LAYERING_IFRT_SPLIT_OPTIONS : THUNKY_LAYERING_IFRT_OPTIONS;
    /* A bare executable can start like an envelope by chance (its first
     * key read as a length, then bytes that parse as metadata); what comes
     * after then does not read, and the whole reads as an executable. */
    if (!ok && wellFormedExecutable(c, in)) {
      bool checked = c->wireChecked;
      thunkyContainerDestroy(c);
      c->wireChecked = checked;
      c->layering = THUNKY_LAYERING_EXECUTABLE;
      c->executable = in;
      ok = true;
    }
  } else if (looksLikePlainOptions(in)) {
    ok = readPjrtBytes(c, in, maxDecoded, &split, error);
    c->layering = THUNKY_LAYERING_OPTIONS;
  } else {
    c->layering = THUNKY_LAYERING_EXECUTABLE;
    c->executable = in;
    ok = wellFormedExecutable(c, in) || notExecutable(in, error);
  }
  if (!ok)
    thunkyContainerDestroy(c);
  return ok;
}

static const char *cacheName(ThunkyCacheEntry kind) {
  return kind == THUNKY_CACHE_ZSTD ? "zstd" : "zlib";
}

bool thunkyContainerCreate(const void *data, size_t size, const ThunkyLimits *limits,
                         ThunkyContainer *c, ThunkyError *error) {
  *c = (ThunkyContainer){0};
  ThunkyBytes in = {data, size};
  uint64_t maxDecoded = limits ? limits->maxDecodedBytes : THUNKY_DEFAULT_MAX_DECODED_BYTES;
  if (!thunkyInputExpectExecutable(in.data, in.size, NULL, error))
    return false;
  bool pickled = thunkyJaxPickleLooksLike(in);
  ThunkyBuffer pickle = {0};
  size_t at = 0;
  int64_t frame = -1;
  if (pickled && !thunkyJaxPickleRead(in, &in, &pickle, &at, &frame, error)) {
    thunkyBufferDestroy(&pickle);
    return thunkyErrorContext(error, "a pickle, of no executable as JAX's serialize() writes");
  }
  ThunkyCacheEntry cache = pickled ? THUNKY_CACHE_NONE : thunkyCacheEntryKind(in);
  ThunkyBuffer decoded = {0};
  uint32_t time = 0;
  if (cache && !thunkyCacheEntryRead(in, cache, maxDecoded, &decoded, &time, &in, error)) {
    thunkyBufferDestroy(&decoded);
    return thunkyErrorContext(error, "a JAX compilation cache entry (%s)", cacheName(cache));
  }
  bool ok = readLayers(c, in, maxDecoded, error);
  if (ok && cache) {
    c->cache = cache, c->cacheCompileTime = time;
    c->owned[CACHE_BYTES] = decoded;
  } else {
    thunkyBufferDestroy(&decoded);
  }
  if (ok && pickled) {
    c->owned[PICKLE_REST] = pickle;
    c->pickle = (ThunkyBytes){pickle.data, pickle.size};
    c->pickleAt = at, c->pickleFrame = frame;
  } else {
    thunkyBufferDestroy(&pickle);
  }
  if (!ok && cache)
    thunkyErrorContext(error, "a JAX compilation cache entry (%s, compile time %u), then",
                       cacheName(cache), time);
  if (!ok && pickled)
    thunkyErrorContext(error, "a pickle of JAX's serialize(), then its ('exec', bytes)");
  return ok;
}

void thunkyContainerDestroy(ThunkyContainer *c) {
  for (size_t i = 0; i < sizeof c->owned / sizeof c->owned[0]; i++)
    thunkyBufferDestroy(&c->owned[i]);
  *c = (ThunkyContainer){0};
}

static const char *compressionName(ThunkyCompression c) {
  switch (c) {
  case THUNKY_COMPRESSION_NONE: return "uncompressed";
  case THUNKY_COMPRESSION_SNAPPY: return "snappy";
  case THUNKY_COMPRESSION_ZSTD: return "zstd";
  case THUNKY_COMPRESSION_BROTLI: return "brotli";
  }
  return "?";
}

void thunkyContainerDescribe(const ThunkyContainer *c, char *out, size_t size) {
  int n = snprintf(out, size, "%s%s%s:", c->pickle.size ? "pickle+" : "",
                   c->cache ? "cache+" : "", thunkyLayeringName(c->layering));
  size_t used = n > 0 && (size_t)n < size ? (size_t)n : size;
  if (c->pickle.size && used < size)
    used += (size_t)snprintf(out + used, size - used,
                             " pickle of JAX's serialize() (%zu bytes less the executable) >",
                             c->pickle.size);
  if (c->cache && used < size)
    used += (size_t)snprintf(out + used, size - used,
                             " JAX compilation cache entry (%s, compile time %u) >",
                             cacheName(c->cache), c->cacheCompileTime);
  if (thunkyLayeringHasEnvelope(c->layering) && used < size)
    used += (size_t)snprintf(out + used, size - used, " IFRT envelope (%zu bytes of metadata) >",
                             c->metadata.size);
  if (thunkyLayeringHasOptions(c->layering) && used < size) {
    if (isSplitLayer(c->layering))
      used += (size_t)snprintf(out + used, size - used,
                               " ExecutableAndOptionsProto as split-proto (%zu records) >",
                               c->optionsRecords);
    else
      used += (size_t)snprintf(out + used, size - used, " ExecutableAndOptionsProto >");
  }
  if (used >= size)
    return;
  if (c->layering == THUNKY_LAYERING_EXECUTABLE)
    snprintf(out + used, size - used, " GpuExecutableProto (%zu bytes)", c->executable.size);
  else
    snprintf(out + used, size - used,
             " GpuExecutableProto as split-proto (%zu records, %s; %zu bytes merged)",
             c->executableRecords, compressionName(c->compression), c->executable.size);
}

/*--- writing ---------------------------------------------------------------*/

static bool writeLayers(const ThunkyContainer *c, ThunkyCompression compression,
                        ThunkyBuffer *out, ThunkyError *error);

bool thunkyContainerWrite(const ThunkyContainer *c, ThunkyCompression compression,
                          ThunkyBuffer *out, ThunkyError *error) {
  if (!c->cache && !c->pickle.size)
    return writeLayers(c, compression, out, error);
  ThunkyBuffer inner = {0};
  bool ok = writeLayers(c, compression, &inner, error);
  ThunkyBytes bytes = {inner.data, inner.size};
  if (ok && c->cache)
    ok = thunkyCacheEntryWrite(bytes, c->cache, c->cacheCompileTime, out, error);
  else if (ok)
    ok = thunkyJaxPickleWrite(c->pickle, c->pickleAt, c->pickleFrame, bytes, out, error);
  thunkyBufferDestroy(&inner);
  return ok;
}

static bool writeLayers(const ThunkyContainer *c, ThunkyCompression compression,
                        ThunkyBuffer *out, ThunkyError *error) {
  if (c->layering == THUNKY_LAYERING_EXECUTABLE)
    return thunkyBufferAppend(out, c->executable.data, c->executable.size) ||
           thunkyErrorf(error, "out of memory");
  ThunkyBuffer exe = {0}, pjrt = {0};
  bool ok = thunkySplitProtoWriteExecutable(c->executable, compression, &exe, error);
  ThunkyBytes inner = {exe.data, exe.size};
  if (ok && isSplitLayer(c->layering)) {
    ok = thunkySplitProtoWriteOptions(inner, c->options, compression, &pjrt, error);
  } else if (ok && thunkyLayeringHasOptions(c->layering)) {
    /* Field 1 first, as XLA's deterministic serialization orders it. */
    thunkyBufferAppendVarint(&pjrt, SERIALIZED_EXECUTABLE << 3 | 2);
    thunkyBufferAppendVarint(&pjrt, inner.size);
    thunkyBufferAppend(&pjrt, inner.data, inner.size);
    thunkyBufferAppend(&pjrt, c->options.data, c->options.size);
  }
  ThunkyBuffer *body = thunkyLayeringHasOptions(c->layering) ? &pjrt : &exe;
  if (ok && thunkyLayeringHasEnvelope(c->layering)) {
    thunkyBufferAppendVarint(out, c->metadata.size);
    thunkyBufferAppend(out, c->metadata.data, c->metadata.size);
  }
  if (ok) {
    thunkyBufferAppend(out, body->data, body->size);
    ok = !pjrt.failed && !out->failed ? true : thunkyErrorf(error, "out of memory");
  }
  thunkyBufferDestroy(&exe), thunkyBufferDestroy(&pjrt);
  return ok;
}
