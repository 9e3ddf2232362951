/*===- cache_entry.h - a JAX persistent compilation cache entry --------===*
 *
 * jax/_src/compilation_cache.py writes each entry as one compressed stream
 * (zstd where the zstandard module is installed, else zlib) of the compile
 * time, 4 bytes big-endian, then executable.serialize()'s bytes: the
 * layers thunky's container reads. Private to the container.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_FORMAT_CACHE_ENTRY_H
#define THUNKY_FORMAT_CACHE_ENTRY_H

#include "thunky-c/format/Container.h"

/* The compression `in` starts with, when it is one a cache entry uses;
 * THUNKY_CACHE_NONE otherwise. */
ThunkyCacheEntry thunkyCacheEntryKind(ThunkyBytes in);

/* Decompresses the entry `in` (of `kind`) into `decoded`, refusing more
 * than maxDecoded bytes; *time and *inner are what it holds. */
bool thunkyCacheEntryRead(ThunkyBytes in, ThunkyCacheEntry kind, uint64_t maxDecoded,
                          ThunkyBuffer *decoded, uint32_t *time, ThunkyBytes *inner,
                          ThunkyError *error);

/* Appends the entry of `inner` and `time` to `out`, compressed as JAX
 * compresses it: zlib at its default level, zstd at zstandard's. */
bool thunkyCacheEntryWrite(ThunkyBytes inner, ThunkyCacheEntry kind, uint32_t time,
                           ThunkyBuffer *out, ThunkyError *error);

#endif /* THUNKY_FORMAT_CACHE_ENTRY_H */
