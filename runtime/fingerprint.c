/*===- fingerprint.c - thunks as uninterpreted functions of what they read ===*
 *
 * The hash and the fill run near memory speed, so a fingerprint run's cost
 * is the bytes its thunks read and write. They only have to make a changed
 * input change the output, not to resist an adversary.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/Check.h"

#include "thunky-c/Executable.h"

#include <stdlib.h>
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
 * vector multiplies, and an AVX2 clone of it where the CPU has AVX2 (the
 * same integer arithmetic, so the same hash on every machine). Static:
 * clang names an exported clone's dispatcher NAME.ifunc, which other files
 * would not find. */
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target_clones("avx2", "default")))
#endif
static uint64_t thunkyFingerprintLanes(uint64_t key, const void *data, size_t size) {
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

uint64_t thunkyFingerprintHash(uint64_t key, const void *data, size_t size) {
  return thunkyFingerprintLanes(key, data, size);
}

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

/* A kernel's written argument may also be read (an in-place update).
 * Where the executable's HLO shows it is (ThunkyPlanThunk.writesOnlyWritten
 * false), its bytes feed the hash wherever they lie. Elsewhere they feed it
 * when they are a parameter's, an output's or a constant's, whose contents
 * no correct rewrite changes, so that in-place updates of outputs and loop
 * state kept there are seen without the HLO, and not when they are
 * scratch, which may hold anything before the kernel writes it
 * (pack-scratch shares it; docs/checking.md says what this misses). */
bool thunkyFingerprintReads(const ThunkyPlan *plan, uint32_t thunk, uint32_t access) {
  const ThunkyPlanThunk *t = &plan->thunks[thunk];
  const ThunkyPlanAccess *a = &plan->accesses[t->accesses.first + access];
  if (a->access == THUNKY_ACCESS_READ_WRITE && t->writesOnlyWritten) {
    const ThunkyPlanAllocation *al = &plan->allocations[a->slice.allocation];
    return al->parameter >= 0 || al->isOutput || al->isConstant;
  }
  return (a->access & THUNKY_ACCESS_READ) != 0;
}

bool thunkyCheckModels(const ThunkyPlan *plan, ThunkyError *error) {
  for (uint32_t i = 0; i < plan->numThunks; i++) {
    if (!plan->thunks[i].crossRank)
      continue;
    char name[200];
    thunkyPlanThunkName(plan, i, name, sizeof name);
    return thunkyErrorf(error,
                        "cannot prove: %s is a %s, which moves bytes between ranks; the host "
                        "checks do not model what it receives",
                        name, plan->thunks[i].kind);
  }
  return true;
}

void thunkyFingerprintThunk(const ThunkyPlan *plan, uint32_t thunk, uint8_t *const *memory) {
  const ThunkyPlanThunk *t = &plan->thunks[thunk];
  /* Indexed, not offset: a plan without accesses has a NULL array. */
  const ThunkyPlanAccess *accesses = t->accesses.count ? &plan->accesses[t->accesses.first] : NULL;
  uint64_t h = t->key;
  for (uint32_t i = 0; i < t->accesses.count; i++) {
    ThunkyPlanSlice s = accesses[i].slice;
    if (thunkyFingerprintReads(plan, thunk, i))
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
  /* Indexed, not offset: a plan without accesses has a NULL array. */
  const ThunkyPlanAccess *accesses = t->accesses.count ? &plan->accesses[t->accesses.first] : NULL;
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
