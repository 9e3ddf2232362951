/*===- fingerprint.c - thunks as uninterpreted functions of what they read ===*
 *
 * The hash reads 32 bytes a round in four independent lanes, so it runs
 * near memory speed: a fingerprint run's cost is the bytes its thunks
 * read. It only has to make a changed input change the output, not to
 * resist an adversary.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/Check.h"

#include "thunky-c/Executable.h"

#include <string.h>

static const uint64_t P1 = 0x9e3779b185ebca87u, P2 = 0xc2b2ae3d27d4eb4fu;

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t round64(uint64_t acc, uint64_t word) { return rotl(acc + word * P2, 31) * P1; }

static uint64_t finish(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdu;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53u;
  return h ^ (h >> 33);
}

static uint64_t load(const uint8_t *p) {
  uint64_t w;
  memcpy(&w, p, 8);
  return w;
}

uint64_t thunkyFingerprintHash(uint64_t key, const void *data, size_t size) {
  const uint8_t *p = data;
  uint64_t a = key + P1 + P2, b = key + P2, c = key, d = key - P1;
  size_t i = 0;
  for (; i + 32 <= size; i += 32) {
    a = round64(a, load(p + i));
    b = round64(b, load(p + i + 8));
    c = round64(c, load(p + i + 16));
    d = round64(d, load(p + i + 24));
  }
  uint64_t h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + (uint64_t)size;
  for (; i + 8 <= size; i += 8)
    h = rotl(h ^ round64(0, load(p + i)), 27) * P1 + P2;
  if (i < size) {
    uint64_t tail = 0;
    memcpy(&tail, p + i, size - i);
    h = rotl(h ^ round64(0, tail), 23) * P2 + P1;
  }
  return finish(h ^ key);
}

void thunkyFingerprintFill(uint64_t seed, void *out, size_t size) {
  uint8_t *p = out;
  uint64_t x = finish(seed);
  if (size == 1) {
    p[0] = (uint8_t)(x & 1);
    return;
  }
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t v = finish(x += 0x9e3779b97f4a7c15u);
    memcpy(p + i, &v, 8);
  }
  if (i < size) {
    uint64_t v = finish(x + 0x9e3779b97f4a7c15u);
    memcpy(p + i, &v, size - i);
  }
}

/* A kernel's written argument may also be read (an in-place update): its
 * bytes feed the hash when they are a parameter's, an output's or a
 * constant's, whose contents no correct rewrite changes, and not when they
 * are scratch, which may hold anything before the kernel writes it
 * (pack-scratch shares it; docs/checking.md says what this misses). */
static bool feedsHash(const ThunkyPlan *plan, const ThunkyPlanThunk *t,
                      const ThunkyPlanAccess *a) {
  if (a->access == THUNKY_ACCESS_READ_WRITE && t->writesOnlyWritten) {
    const ThunkyPlanAllocation *al = &plan->allocations[a->slice.allocation];
    return al->parameter >= 0 || al->isOutput || al->isConstant;
  }
  return (a->access & THUNKY_ACCESS_READ) != 0;
}

void thunkyFingerprintThunk(const ThunkyPlan *plan, uint32_t thunk, uint8_t *const *memory) {
  const ThunkyPlanThunk *t = &plan->thunks[thunk];
  const ThunkyPlanAccess *accesses = plan->accesses + t->accesses.first;
  uint64_t h = t->key;
  for (uint32_t i = 0; i < t->accesses.count; i++) {
    ThunkyPlanSlice s = accesses[i].slice;
    if (feedsHash(plan, t, &accesses[i]))
      h = thunkyFingerprintHash(h, memory[s.allocation] + s.offset, s.size);
  }
  /* Each output gets its own stream: the key and its position. */
  uint64_t position = 0;
  for (uint32_t i = 0; i < t->accesses.count; i++) {
    ThunkyPlanSlice s = accesses[i].slice;
    if (accesses[i].access & THUNKY_ACCESS_WRITE)
      thunkyFingerprintFill(h + P1 * ++position, memory[s.allocation] + s.offset, s.size);
  }
}

bool thunkyChecksumWrites(const ThunkyPlan *plan, uint32_t thunk, uint8_t *const *memory,
                          uint64_t *checksum) {
  const ThunkyPlanThunk *t = &plan->thunks[thunk];
  const ThunkyPlanAccess *accesses = plan->accesses + t->accesses.first;
  bool writes = false;
  uint64_t h = 0;
  for (uint32_t i = 0; i < t->accesses.count; i++) {
    ThunkyPlanSlice s = accesses[i].slice;
    if (accesses[i].access & THUNKY_ACCESS_WRITE) {
      h = thunkyFingerprintHash(h, memory[s.allocation] + s.offset, s.size);
      writes = true;
    }
  }
  *checksum = h;
  return writes;
}
