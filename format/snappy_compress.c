/*===- snappy_compress.c - snappy at level 2, the compressor XLA uses ----===*
 *
 * XLA writes its riegeli files with snappy at level 2
 * (GetSplitProtoRiegeliOptions: RecordWriterBase::Options().set_snappy(2)),
 * a compressor snappy 1.2 added: two hash tables, one keyed on the next 4
 * bytes and one on the next 8, and each match extended backwards. Any
 * snappy decoder reads its output, but an export is byte-identical to the
 * file XLA wrote only if it makes the same choices, and Debian's libsnappy
 * (1.1.9) has level 1 alone. So riegeli's writer compresses here, making the
 * choices of google/snappy's CompressFragmentDoubleHash (snappy.cc), checked
 * byte for byte against files JAX 0.11.2 wrote
 * (test/Translate/jax-fixtures/); decoding stays with libsnappy.
 *
 *===--------------------------------------------------------------------===*/
#include "snappy_compress.h"

#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "snappy_compress.c reads the input as little-endian words"
#endif

enum {
  /* snappy compresses its input in independent fragments of 64 KiB. */
  FRAGMENT = 1 << 16,
  MIN_TABLE = 1 << 8,
  MAX_TABLE_BITS = 15,
  MAX_TABLE = 1 << MAX_TABLE_BITS,
  /* Matching stops this far before a fragment's end, so that every word
   * load stays inside it; the tail is a literal. */
  MARGIN = 15,
};

static inline uint32_t load32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static inline uint64_t load64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* The two tables' slots for a 4-byte and an 8-byte key; `half` is each
 * table's size, a power of two. */
static inline uint32_t slot4(uint32_t key, uint32_t half) {
  return ((key * UINT32_C(2654435761)) >> (32 - MAX_TABLE_BITS) >> 1) & (half - 1);
}

static inline uint32_t slot8(uint64_t key, uint32_t half) {
  return (uint32_t)((key * UINT64_C(58295818150454627)) >> (64 - MAX_TABLE_BITS) >> 1) &
         (half - 1);
}

/* Both tables together: the fragment's size rounded up to a power of two,
 * within [MIN_TABLE, MAX_TABLE]. */
static uint32_t tableSize(size_t fragment) {
  uint32_t size = MIN_TABLE;
  while (size < fragment && size < MAX_TABLE)
    size <<= 1;
  return size;
}

/* How far s1 and s2 agree, s2 not reaching past limit (s1 < s2). */
static size_t matchLength(const uint8_t *s1, const uint8_t *s2, const uint8_t *limit) {
  size_t n = 0;
  while (s2 + n < limit && s1[n] == s2[n])
    n++;
  return n;
}

static uint8_t *emitLiteral(uint8_t *op, const uint8_t *literal, size_t length) {
  size_t n = length - 1;
  if (n < 60) {
    *op++ = (uint8_t)(n << 2);
  } else {
    int count = 1;
    while (count < 4 && n >> (8 * count))
      count++;
    *op++ = (uint8_t)((59 + count) << 2);
    for (int i = 0; i < count; i++)
      *op++ = (uint8_t)(n >> (8 * i));
  }
  memcpy(op, literal, length);
  return op + length;
}

/* One copy element of 4 to 64 bytes: the 2-byte form where it fits. */
static uint8_t *emitCopyAtMost64(uint8_t *op, size_t offset, size_t length) {
  if (length < 12 && offset < 2048) {
    *op++ = (uint8_t)(1 | (length - 4) << 2 | (offset >> 8) << 5);
    *op++ = (uint8_t)offset;
  } else {
    *op++ = (uint8_t)(2 | (length - 1) << 2);
    *op++ = (uint8_t)offset;
    *op++ = (uint8_t)(offset >> 8);
  }
  return op;
}

/* A long copy is cut into 64-byte elements, keeping at least 4 bytes for
 * the last one. */
static uint8_t *emitCopy(uint8_t *op, size_t offset, size_t length) {
  if (length >= 12) {
    while (length >= 68) {
      op = emitCopyAtMost64(op, offset, 64);
      length -= 64;
    }
    if (length > 64) {
      op = emitCopyAtMost64(op, offset, 60);
      length -= 60;
    }
  }
  return emitCopyAtMost64(op, offset, length);
}

static uint8_t *compressFragment(const uint8_t *in, size_t size, uint8_t *op, uint16_t *t4,
                                 uint16_t *t8, uint32_t half) {
  const uint8_t *ip = in, *end = in + size;
  if (size >= MARGIN) {
    const uint8_t *limit = end - MARGIN;
    for (;;) {
      const uint8_t *nextEmit = ip++, *candidate;
      uint64_t data = load64(ip);
      uint32_t skip = 512;
      size_t length;
      /* Look for a match, first by 8 bytes then by 4, stepping further
       * the longer none is found. */
      for (;;) {
        uint16_t *entry8 = &t8[slot8(data, half)];
        const uint8_t *next = ip + (skip++ >> 9);
        if (next > limit) {
          ip = nextEmit;
          goto remainder;
        }
        candidate = in + *entry8;
        *entry8 = (uint16_t)(ip - in);
        if ((uint32_t)data == load32(candidate)) {
          length = 4 + matchLength(candidate + 4, ip + 4, end);
          break;
        }
        uint16_t *entry4 = &t4[slot4((uint32_t)data, half)];
        candidate = in + *entry4;
        *entry4 = (uint16_t)(ip - in);
        if ((uint32_t)data == load32(candidate)) {
          length = 4 + matchLength(candidate + 4, ip + 4, end);
          /* A 4-byte hit: the 8-byte table may know a longer match one
           * byte on. */
          entry8 = &t8[slot8(load64(ip + 1), half)];
          const uint8_t *candidate2 = in + *entry8;
          size_t length2 = matchLength(candidate2, ip + 1, end);
          if (length2 > length) {
            *entry8 = (uint16_t)(ip - in);
            candidate = candidate2;
            length = length2;
            ip++;
          }
          break;
        }
        data = load64(next);
        ip = next;
      }
      while (ip > nextEmit && candidate > in && ip[-1] == candidate[-1])
        ip--, candidate--, length++;
      t8[slot8(load64(ip + 1), half)] = (uint16_t)(ip - in + 1);
      t8[slot8(load64(ip + 2), half)] = (uint16_t)(ip - in + 2);
      t4[slot4(load32(ip + 1), half)] = (uint16_t)(ip - in + 1);
      if (ip > nextEmit)
        op = emitLiteral(op, nextEmit, (size_t)(ip - nextEmit));
      /* Copy for as long as the bytes after a copy start another match. */
      for (;;) {
        op = emitCopy(op, (size_t)(ip - candidate), length);
        ip += length;
        if (ip >= limit)
          goto remainder;
        uint16_t at = (uint16_t)(ip - in);
        if (at > 7) {
          t8[slot8(load64(ip - 7), half)] = at - 7;
          t8[slot8(load64(ip - 4), half)] = at - 4;
        }
        t8[slot8(load64(ip - 3), half)] = at - 3;
        t8[slot8(load64(ip - 2), half)] = at - 2;
        t4[slot4(load32(ip - 2), half)] = at - 2;
        t4[slot4(load32(ip - 1), half)] = at - 1;
        uint16_t *entry = &t8[slot8(load64(ip), half)];
        candidate = in + *entry;
        *entry = at;
        if (load32(ip) != load32(candidate)) {
          entry = &t4[slot4(load32(ip), half)];
          candidate = in + *entry;
          *entry = at;
          if (load32(ip) != load32(candidate))
            break;
        }
        length = 4 + matchLength(candidate + 4, ip + 4, end);
      }
    }
  }
remainder:
  if (ip < end)
    op = emitLiteral(op, ip, (size_t)(end - ip));
  return op;
}

bool thunkySnappyCompress(const uint8_t *data, size_t size, ThunkyBuffer *out) {
  if (size > UINT32_MAX)
    return false;
  /* The bound snappy states: its elements never expand 6 bytes by more than
   * one, plus slack for the length and the last literal's tag. */
  size_t bound = 32 + size + size / 6;
  uint8_t *start = thunkyBufferExtend(out, bound), *op = start;
  if (!start)
    return false;
  size_t n = size;
  do {
    *op++ = (uint8_t)(n & 0x7f) | (n > 0x7f ? 0x80 : 0);
    n >>= 7;
  } while (n);
  uint16_t tables[MAX_TABLE];
  for (size_t at = 0; at < size; at += FRAGMENT) {
    size_t fragment = size - at < FRAGMENT ? size - at : FRAGMENT;
    uint32_t half = tableSize(fragment) >> 1;
    memset(tables, 0, 2 * half * sizeof *tables);
    op = compressFragment(data + at, fragment, op, tables, tables + half, half);
  }
  out->size -= bound - (size_t)(op - start);
  return true;
}
