/*===- fingerprint.c - thunks as uninterpreted functions of what they read ===*
 *
 * The hash and the fill run near memory speed, so a fingerprint run's cost
 * is the bytes its thunks read and write. They only have to make a changed
 * input change the output, not to resist an adversary.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/runtime/Check.h"

#include "thunky-c/format/Executable.h"

#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>

static const uint64_t P1 = 0x9e3779b185ebca87u, P2 = 0xc2b2ae3d27d4eb4fu;

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

/* Sixteen 32-bit lanes over each 64 bytes: a loop compilers turn into
 * vector multiplies, and an AVX2 copy of it where the CPU has AVX2 (the same
 * integer arithmetic, so the same hash on every machine). Dispatched by
 * hand, not with target_clones, whose resolver clang exports even for a
 * static function. */
static inline __attribute__((always_inline)) uint64_t
lanesHash(uint64_t key, const void *data, size_t size) {
  const uint8_t *p = data;
  uint32_t lanes[16];
  for (uint32_t k = 0; k < 16; k++)
    lanes[k] = (uint32_t)(key >> (k & 1 ? 32 : 0)) + 0x9e3779b1u * (k + 1);
  size_t i = 0;
  for (; i + 64 <= size; i += 64) {
    uint32_t words[16];
    memcpy(words, p + i, 64);
    for (int k = 0; k < 16; k++) {
      uint32_t a = lanes[k] + words[k] * 0x85ebca77u;
      lanes[k] = ((a << 13) | (a >> 19)) * 0x9e3779b1u;
    }
  }
  uint64_t h = key ^ (uint64_t)size;
  for (int k = 0; k < 16; k++)
    h = finish(h ^ lanes[k]);
  for (; i + 8 <= size; i += 8)
    h = finish(h ^ load(p + i));
  if (i < size) {
    uint64_t tail = 0;
    memcpy(&tail, p + i, size - i);
    h = finish(h ^ tail ^ P1);
  }
  return h;
}

static uint64_t lanesPortable(uint64_t key, const void *data, size_t size) {
  return lanesHash(key, data, size);
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2"))) static uint64_t lanesAvx2(uint64_t key, const void *data,
                                                          size_t size) {
  return lanesHash(key, data, size);
}

uint64_t thunkyFingerprintHash(uint64_t key, const void *data, size_t size) {
  /* Racing first calls store the same answer. */
  static _Atomic int avx2 = -1;
  int has = atomic_load_explicit(&avx2, memory_order_relaxed);
  if (has < 0) {
    __builtin_cpu_init();
    has = __builtin_cpu_supports("avx2") ? 1 : 0;
    atomic_store_explicit(&avx2, has, memory_order_relaxed);
  }
  return has ? lanesAvx2(key, data, size) : lanesPortable(key, data, size);
}
#else
uint64_t thunkyFingerprintHash(uint64_t key, const void *data, size_t size) {
  return lanesPortable(key, data, size);
}
#endif

/* One mixed word per 64 bytes, spread over the block's eight words by
 * distinct odd constants: every word still depends on the seed and its
 * position, at the cost of a store. */
void thunkyFingerprintFill(uint64_t seed, void *out, size_t size) {
  uint8_t *p = out;
  uint64_t base = finish(seed);
  if (size == 1) {
    p[0] = (uint8_t)(base & 1);
    return;
  }
  size_t i = 0;
  for (uint64_t block = 0; i + 64 <= size; i += 64, block++) {
    uint64_t v = finish(base + block * P1), words[8];
    for (int k = 0; k < 8; k++)
      words[k] = v ^ (P2 * (uint64_t)(2 * k + 1));
    memcpy(p + i, words, 64);
  }
  for (uint64_t k = 0; i < size; k++) {
    uint64_t v = finish(base ^ (P2 * (i + 1)) ^ k);
    size_t n = size - i < 8 ? size - i : 8;
    memcpy(p + i, &v, n);
    i += n;
  }
}

uint32_t *thunkyOutputsOfAllocations(const ThunkyPlan *plan) {
  uint32_t *outputOf = malloc((plan->numAllocations + 1) * sizeof *outputOf);
  if (!outputOf)
    return NULL;
  for (uint32_t a = 0; a < plan->numAllocations; a++)
    outputOf[a] = UINT32_MAX;
  for (uint32_t i = plan->numOutputs; i-- > 0;)
    outputOf[plan->outputs[i].slice.allocation] = i;
  return outputOf;
}

uint64_t thunkyInitialSeed(const uint32_t *outputOf, uint32_t allocation, uint32_t rank) {
  bool output = outputOf[allocation] != UINT32_MAX;
  uint64_t where = output ? outputOf[allocation] : allocation;
  return finish(finish(finish(0x756e646566u + output) ^ where) ^ rank);
}

/* A kernel's written argument may also be read (an in-place update), as
 * the executable's HLO shows (ThunkyPlanThunk.written). Where it shows
 * nothing, its bytes feed the hash when they are a parameter's, an
 * output's or a constant's, whose contents no correct rewrite changes, so
 * that in-place updates of outputs and loop state kept there are seen, and
 * not when they are scratch, which may hold anything before the kernel
 * writes it (pack-scratch shares it; docs/checking.md says what this
 * misses). */
bool thunkyFingerprintReads(const ThunkyPlan *plan, uint32_t thunk, uint32_t access) {
  const ThunkyPlanThunk *t = &plan->thunks[thunk];
  const ThunkyPlanAccess *a = &plan->accesses[t->accesses.first + access];
  if (a->access != THUNKY_ACCESS_READ_WRITE || t->written == THUNKY_WRITTEN_UPDATED)
    return (a->access & THUNKY_ACCESS_READ) != 0;
  if (t->written == THUNKY_WRITTEN_OUTPUTS)
    return false;
  const ThunkyPlanAllocation *al =
      &plan->allocations[thunkyPlanAllocationOf(plan, a->slice.allocation)];
  return al->parameter >= 0 || al->isOutput || al->isConstant;
}

bool thunkyExchangeRun(ThunkyExchanges *x, uint64_t key, uint64_t sentHash, uint64_t *run) {
  uint32_t runs = 0;
  thunkyHashMapGet(&x->runs, key, &runs);
  if (runs == UINT32_MAX || !thunkyHashMapPut(&x->runs, key, runs + 1))
    return false;
  *run = runs;
  x->sent += finish(finish(finish(key ^ P2) ^ runs) ^ sentHash);
  x->count++;
  return true;
}

uint64_t thunkyExchangeSeed(uint64_t key, uint64_t run, uint32_t rank) {
  return finish(finish(finish(key ^ 0x65786368u) ^ run) ^ rank);
}

void thunkyExchangesFree(ThunkyExchanges *x) {
  thunkyHashMapDestroy(&x->runs);
  *x = (ThunkyExchanges){0};
}

/* Indexed, not offset: a plan without accesses has a NULL array. */
static const ThunkyPlanAccess *accessesOf(const ThunkyPlan *plan, const ThunkyPlanThunk *t) {
  return t->accesses.count ? &plan->accesses[t->accesses.first] : NULL;
}

/* Fills what thunk `t` writes, each output from `seed` and its place
 * among the writes. */
static void fillWrites(const ThunkyPlan *plan, const ThunkyPlanThunk *t, uint8_t *const *memory,
                       uint64_t seed) {
  const ThunkyPlanAccess *accesses = accessesOf(plan, t);
  uint64_t position = 0;
  for (uint32_t i = 0; i < t->accesses.count; i++) {
    ThunkyPlanSlice s = accesses[i].slice;
    if (accesses[i].access & THUNKY_ACCESS_WRITE)
      thunkyFingerprintFill(seed + P1 * ++position, memory[s.allocation] + s.offset, s.size);
  }
}

/* The hash of the key of thunk `thunk` and the bytes it reads. */
static uint64_t readsHash(const ThunkyPlan *plan, uint32_t thunk, uint8_t *const *memory) {
  const ThunkyPlanThunk *t = &plan->thunks[thunk];
  const ThunkyPlanAccess *accesses = accessesOf(plan, t);
  uint64_t h = t->key;
  for (uint32_t i = 0; i < t->accesses.count; i++) {
    ThunkyPlanSlice s = accesses[i].slice;
    if (thunkyFingerprintReads(plan, thunk, i))
      h = thunkyFingerprintHash(h, memory[s.allocation] + s.offset, s.size);
  }
  return h;
}

bool thunkyFingerprintExchange(const ThunkyPlan *plan, uint32_t thunk, uint8_t *const *memory,
                               uint32_t rank, ThunkyExchanges *x) {
  const ThunkyPlanThunk *t = &plan->thunks[thunk];
  uint64_t run;
  if (!thunkyExchangeRun(x, t->key, readsHash(plan, thunk, memory), &run))
    return false;
  fillWrites(plan, t, memory, thunkyExchangeSeed(t->key, run, rank));
  return true;
}

void thunkyFingerprintThunk(const ThunkyPlan *plan, uint32_t thunk, uint8_t *const *memory) {
  fillWrites(plan, &plan->thunks[thunk], memory, readsHash(plan, thunk, memory));
}
bool thunkyChecksumWrites(const ThunkyPlan *plan, uint32_t thunk, uint8_t *const *memory,
                          uint64_t *checksum) {
  const ThunkyPlanThunk *t = &plan->thunks[thunk];
  const ThunkyPlanAccess *accesses = accessesOf(plan, t);
  /* What an exchange sends (its key and the bytes it reads) is seen only
   * by other ranks: a trace that left it out would find no thunk to blame
   * for a different sent digest. */
  bool writes = t->exchange;
  uint64_t h = t->exchange ? t->key : 0;
  for (uint32_t i = 0; i < t->accesses.count; i++) {
    ThunkyPlanSlice s = accesses[i].slice;
    if ((accesses[i].access & THUNKY_ACCESS_WRITE) || t->exchange) {
      h = thunkyFingerprintHash(h, memory[s.allocation] + s.offset, s.size);
      writes = true;
    }
  }
  *checksum = h;
  return writes;
}
