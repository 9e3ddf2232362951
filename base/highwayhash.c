/*===- highwayhash.c - 64-bit HighwayHash, portable C -------------------===*
 *
 * Written from the algorithm's description (four 64-bit lanes of state
 * updated by 32x32-bit multiplies and a byte "zipper" permutation; 32-byte
 * packets; a length-dependent remainder packet; four permute rounds to
 * finalize). Checked against the hashes in riegeli's fixed file signature and
 * against Debian's libhighwayhash in test/Container.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/base/Hash.h"

#include "thunky-c/base/Bytes.h"

#include <string.h>

const uint64_t thunkyRiegeliHashKey[4] = {
    0x2f696c6567656952ull, 0x0a7364726f636572ull,
    0x2f696c6567656952ull, 0x0a7364726f636572ull};

typedef struct {
  uint64_t v0[4], v1[4], mul0[4], mul1[4];
} State;

/* The initial multipliers are digits of pi, as the algorithm specifies. */
static const uint64_t initMul0[4] = {0xdbe6d5d5fe4cce2full, 0xa4093822299f31d0ull,
                                     0x13198a2e03707344ull, 0x243f6a8885a308d3ull};
static const uint64_t initMul1[4] = {0x3bd39e10cb0ef593ull, 0xc0acf169b5f18a8cull,
                                     0xbe5466cf34e90c6cull, 0x452821e638d01377ull};

static uint64_t swapHalves(uint64_t x) { return (x >> 32) | (x << 32); }

static void reset(State *s, const uint64_t key[4]) {
  for (int i = 0; i < 4; i++) {
    s->mul0[i] = initMul0[i];
    s->mul1[i] = initMul1[i];
    s->v0[i] = initMul0[i] ^ key[i];
    s->v1[i] = initMul1[i] ^ swapHalves(key[i]);
  }
}

/* Spreads the bytes of a lane pair so that the multiplies' high-entropy
 * middle bytes reach the low bytes of the next round's multiplicands. */
static void zipperMergeAndAdd(uint64_t v1, uint64_t v0, uint64_t *add1, uint64_t *add0) {
  *add0 += (((v0 & 0xff000000ull) | (v1 & 0xff00000000ull)) >> 24) |
           (((v0 & 0xff0000000000ull) | (v1 & 0xff000000000000ull)) >> 16) |
           (v0 & 0xff0000ull) | ((v0 & 0xff00ull) << 32) |
           ((v1 & 0xff00000000000000ull) >> 8) | (v0 << 56);
  *add1 += (((v1 & 0xff000000ull) | (v0 & 0xff00000000ull)) >> 24) |
           (v1 & 0xff0000ull) | ((v1 & 0xff0000000000ull) >> 16) |
           ((v1 & 0xff00ull) << 24) | ((v0 & 0xff000000000000ull) >> 8) |
           ((v1 & 0xffull) << 48) | (v0 & 0xff00000000000000ull);
}

static void update(State *s, const uint64_t lanes[4]) {
  for (int i = 0; i < 4; i++) {
    s->v1[i] += s->mul0[i] + lanes[i];
    s->mul0[i] ^= (s->v1[i] & 0xffffffffull) * (s->v0[i] >> 32);
    s->v0[i] += s->mul1[i];
    s->mul1[i] ^= (s->v0[i] & 0xffffffffull) * (s->v1[i] >> 32);
  }
  zipperMergeAndAdd(s->v1[1], s->v1[0], &s->v0[1], &s->v0[0]);
  zipperMergeAndAdd(s->v1[3], s->v1[2], &s->v0[3], &s->v0[2]);
  zipperMergeAndAdd(s->v0[1], s->v0[0], &s->v1[1], &s->v1[0]);
  zipperMergeAndAdd(s->v0[3], s->v0[2], &s->v1[3], &s->v1[2]);
}

static void updatePacket(State *s, const unsigned char packet[32]) {
  uint64_t lanes[4];
  for (int i = 0; i < 4; i++)
    lanes[i] = thunkyLoadU64(packet + 8 * i);
  update(s, lanes);
}

/* Rotates each 32-bit half of each lane left by `count` (1..31). */
static void rotate32By(uint64_t lanes[4], unsigned count) {
  for (int i = 0; i < 4; i++) {
    uint32_t lo = (uint32_t)lanes[i], hi = (uint32_t)(lanes[i] >> 32);
    lo = (lo << count) | (lo >> (32 - count));
    hi = (hi << count) | (hi >> (32 - count));
    lanes[i] = ((uint64_t)hi << 32) | lo;
  }
}

/* The last 1..31 bytes: whole 4-byte words go in place; the 0..3 bytes
 * after them are spread so that every length gives a different packet. */
static void updateRemainder(State *s, const unsigned char *bytes, size_t size) {
  size_t mod4 = size & 3, words = size & ~(size_t)3;
  const unsigned char *tail = bytes + words;
  unsigned char packet[32] = {0};
  for (int i = 0; i < 4; i++)
    s->v0[i] += ((uint64_t)size << 32) + size;
  rotate32By(s->v1, (unsigned)size);
  memcpy(packet, bytes, words);
  if (size & 16) {
    /* The last four bytes, reaching back into the whole words. */
    for (size_t i = 0; i < 4; i++)
      packet[28 + i] = bytes[words + mod4 - 4 + i];
  } else if (mod4) {
    packet[16] = tail[0];
    packet[17] = tail[mod4 >> 1];
    packet[18] = tail[mod4 - 1];
  }
  updatePacket(s, packet);
}

static void permuteAndUpdate(State *s) {
  uint64_t permuted[4] = {swapHalves(s->v0[2]), swapHalves(s->v0[3]),
                          swapHalves(s->v0[0]), swapHalves(s->v0[1])};
  update(s, permuted);
}

uint64_t thunkyHighwayHash64(const uint64_t key[4], const void *data, size_t size) {
  const unsigned char *bytes = data;
  State s;
  reset(&s, key);
  size_t whole = size & ~(size_t)31;
  for (size_t i = 0; i < whole; i += 32)
    updatePacket(&s, bytes + i);
  if (size & 31)
    updateRemainder(&s, bytes + whole, size & 31);
  for (int i = 0; i < 4; i++)
    permuteAndUpdate(&s);
  return s.v0[0] + s.v1[0] + s.mul0[0] + s.mul1[0];
}

uint64_t thunkyHashBytes(const void *data, size_t size) {
  return thunkyHighwayHash64(thunkyRiegeliHashKey, data, size);
}
