/*===- cache_entry.c - a JAX persistent compilation cache entry --------===*
 *
 * Both streams are read incrementally into a buffer that never passes the
 * max-decoded-bytes limit, whatever size a stream claims.
 *
 *===--------------------------------------------------------------------===*/
#include "cache_entry.h"

#include "thunky-c/format/Wire.h"

#include <stdint.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

enum { CHUNK = 1 << 16, TIME_BYTES = 4 };

ThunkyCacheEntry thunkyCacheEntryKind(ThunkyBytes in) {
  const uint8_t *b = in.data;
  if (in.size >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd)
    return THUNKY_CACHE_ZSTD;
  /* RFC 1950: deflate, a window of at most 32 KB, no preset dictionary,
   * and the header's check bits. */
  if (in.size >= 2 && (b[0] & 0x0f) == 8 && (b[0] >> 4) <= 7 && !(b[1] & 0x20) &&
      ((unsigned)b[0] << 8 | b[1]) % 31 == 0)
    return THUNKY_CACHE_ZLIB;
  return THUNKY_CACHE_NONE;
}

/* `CHUNK` more bytes at the end of `out` to decompress into; NULL, saying
 * why, once `out` holds more than the limit or memory runs out. */
static uint8_t *room(ThunkyBuffer *out, uint64_t maxDecoded, ThunkyError *error) {
  if (out->size > maxDecoded) {
    thunkyErrorf(error, "it decompresses to more than the max-decoded-bytes limit (%llu)",
                 (unsigned long long)maxDecoded);
    return NULL;
  }
  uint8_t *p = thunkyBufferExtend(out, CHUNK);
  if (!p)
    thunkyErrorf(error, "out of memory");
  return p;
}

static bool inflateAll(ThunkyBytes in, uint64_t maxDecoded, ThunkyBuffer *out,
                       ThunkyError *error) {
  z_stream z = {0};
  if (inflateInit(&z) != Z_OK)
    return thunkyErrorf(error, "zlib: out of memory");
  z.next_in = (Bytef *)(uintptr_t)in.data;
  int rc = Z_OK;
  bool ok = true;
  /* zlib counts in 32 bits: feed the input a piece at a time. */
  size_t fed = 0;
  while (ok && rc != Z_STREAM_END) {
    if (!z.avail_in && fed < in.size) {
      z.next_in = (Bytef *)(uintptr_t)(in.data + fed);
      z.avail_in = (uInt)(in.size - fed < (1u << 30) ? in.size - fed : (1u << 30));
      fed += z.avail_in;
    }
    uint8_t *to = room(out, maxDecoded, error);
    if (!(ok = to != NULL))
      break;
    z.next_out = to, z.avail_out = CHUNK;
    rc = inflate(&z, Z_NO_FLUSH);
    out->size -= z.avail_out;
    if (rc == Z_BUF_ERROR && !z.avail_in && fed == in.size)
      ok = thunkyErrorf(error, "zlib: the stream is truncated");
    else if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
      ok = thunkyErrorf(error, "zlib: %s", z.msg ? z.msg : "the stream is corrupt");
  }
  if (ok && (z.avail_in || fed < in.size))
    ok = thunkyErrorf(error, "zlib: %zu bytes follow the end of the stream",
                      (size_t)(in.size - fed + z.avail_in));
  inflateEnd(&z);
  return ok;
}

static bool zstdAll(ThunkyBytes in, uint64_t maxDecoded, ThunkyBuffer *out, ThunkyError *error) {
  ZSTD_DStream *d = ZSTD_createDStream();
  if (!d)
    return thunkyErrorf(error, "zstd: out of memory");
  ZSTD_inBuffer src = {in.data, in.size, 0};
  size_t rc = 1;
  bool ok = true;
  while (ok && rc != 0) {
    uint8_t *to = room(out, maxDecoded, error);
    if (!(ok = to != NULL))
      break;
    ZSTD_outBuffer dst = {to, CHUNK, 0};
    size_t before = src.pos;
    rc = ZSTD_decompressStream(d, &dst, &src);
    out->size -= CHUNK - dst.pos;
    if (ZSTD_isError(rc))
      ok = thunkyErrorf(error, "zstd: %s", ZSTD_getErrorName(rc));
    else if (rc && src.pos == in.size && src.pos == before && !dst.pos)
      ok = thunkyErrorf(error, "zstd: the stream is truncated");
  }
  if (ok && src.pos < in.size)
    ok = thunkyErrorf(error, "zstd: %zu bytes follow the end of the frame", in.size - src.pos);
  ZSTD_freeDStream(d);
  return ok;
}

bool thunkyCacheEntryRead(ThunkyBytes in, ThunkyCacheEntry kind, uint64_t maxDecoded,
                          ThunkyBuffer *decoded, uint32_t *time, ThunkyBytes *inner,
                          ThunkyError *error) {
  bool ok = kind == THUNKY_CACHE_ZSTD ? zstdAll(in, maxDecoded, decoded, error)
                                      : inflateAll(in, maxDecoded, decoded, error);
  /* The last piece may have passed the limit. */
  if (ok && decoded->size > maxDecoded)
    ok = thunkyErrorf(error, "it decompresses to more than the max-decoded-bytes limit (%llu)",
                      (unsigned long long)maxDecoded);
  if (ok && decoded->size < TIME_BYTES)
    ok = thunkyErrorf(error, "it holds %zu bytes, fewer than the 4 of its compile time",
                      decoded->size);
  if (!ok)
    return false;
  const uint8_t *b = decoded->data;
  *time = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
  *inner = (ThunkyBytes){b + TIME_BYTES, decoded->size - TIME_BYTES};
  return true;
}

bool thunkyCacheEntryWrite(ThunkyBytes inner, ThunkyCacheEntry kind, uint32_t time,
                           ThunkyBuffer *out, ThunkyError *error) {
  ThunkyBuffer plain = {0};
  uint8_t t[TIME_BYTES] = {time >> 24, time >> 16 & 0xff, time >> 8 & 0xff, time & 0xff};
  thunkyBufferAppend(&plain, t, sizeof t);
  thunkyBufferAppend(&plain, inner.data, inner.size);
  bool ok = !plain.failed || thunkyErrorf(error, "out of memory");
  if (ok && kind == THUNKY_CACHE_ZSTD) {
    size_t bound = ZSTD_compressBound(plain.size);
    uint8_t *room = thunkyBufferExtend(out, bound);
    size_t n = room ? ZSTD_compress(room, bound, plain.data, plain.size, 3) : 0;
    ok = room && !ZSTD_isError(n) ? true : thunkyErrorf(error, "zstd: could not compress");
    if (room)
      out->size -= bound - (ok ? n : 0);
  } else if (ok) {
    uLongf bound = compressBound(plain.size);
    uint8_t *room = thunkyBufferExtend(out, bound);
    int rc = room ? compress2(room, &bound, plain.data, plain.size, Z_DEFAULT_COMPRESSION)
                  : Z_MEM_ERROR;
    size_t claimed = compressBound(plain.size);
    ok = rc == Z_OK || thunkyErrorf(error, "zlib: could not compress");
    if (room)
      out->size -= claimed - (ok ? bound : 0);
  }
  thunkyBufferDestroy(&plain);
  return ok;
}
