/* Unit tests of the host backend's collectives and element types: plans
 * built by hand, one thread per rank, results checked exactly. Each group
 * of checks prints one line; the program fails if any check does.
 *
 * RUN: thunky-host-collectives-test
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include "host_collectives.h"
#include "replica_groups.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"


/*--- Plans built by hand -----------------------------------------------------*/

enum { MAX_RANKS = 8, MAX_COLLECTIVES = 4, MAX_BUFFERS = 16 };
enum { SOURCES = 0, DESTINATIONS = 1 }; /* the two allocations */

/* A plan of up to MAX_COLLECTIVES collectives over two allocations
 * (sources, destinations), each rank's memory, and what each rank's call
 * returned. Builders add to the last collective. */
typedef struct Setup {
  ThunkyPlan plan;
  ThunkyPlanAllocation allocations[2];
  ThunkyCollective collectives[MAX_COLLECTIVES];
  ThunkyCollectiveBuffer buffers[MAX_BUFFERS];
  ThunkyRange groups[16];
  int64_t ids[64];
  uint32_t ranks, partitions;
  uint8_t *memory[MAX_RANKS][2];
  bool ok[MAX_RANKS];
  ThunkyError errors[MAX_RANKS];
} Setup;

static ThunkyCollective *current(Setup *s) {
  return &s->collectives[s->plan.numCollectives - 1];
}

static void addCollective(Setup *s, uint8_t kind, uint8_t reduction) {
  s->collectives[s->plan.numCollectives++] =
      (ThunkyCollective){.kind = kind,
                         .reduction = reduction,
                         .buffers = {s->plan.numCollectiveBuffers, 0},
                         .groups = {s->plan.numGroups, 0}};
}

static void setup(Setup *s, uint32_t ranks, uint32_t partitions, uint8_t kind,
                  uint8_t reduction) {
  memset(s, 0, sizeof *s);
  s->ranks = ranks;
  s->partitions = partitions;
  s->plan.allocations = s->allocations;
  s->plan.numAllocations = 2;
  s->plan.collectives = s->collectives;
  s->plan.collectiveBuffers = s->buffers;
  s->plan.groups = s->groups;
  s->plan.ids = s->ids;
  addCollective(s, kind, reduction);
}

static ThunkyPlanSlice place(Setup *s, uint32_t allocation, uint64_t size) {
  ThunkyPlanSlice slice = {allocation, s->allocations[allocation].size, size};
  s->allocations[allocation].size += (size + 15) & ~(uint64_t)15;
  return slice;
}

/* A buffer of `count` source elements and a destination of `dstElements`. */
static void addBuffer(Setup *s, int32_t type, uint64_t count, uint64_t dstElements) {
  uint32_t bytes = thunkyElementBytes(type);
  s->buffers[s->plan.numCollectiveBuffers++] =
      (ThunkyCollectiveBuffer){place(s, SOURCES, count * bytes),
                               place(s, DESTINATIONS, dstElements * bytes), count, type};
  current(s)->buffers.count++;
}

/* A buffer whose destination is its source. */
static void addInPlaceBuffer(Setup *s, int32_t type, uint64_t count) {
  ThunkyPlanSlice slice = place(s, SOURCES, count * thunkyElementBytes(type));
  s->buffers[s->plan.numCollectiveBuffers++] =
      (ThunkyCollectiveBuffer){slice, slice, count, type};
  current(s)->buffers.count++;
}

static void addGroup(Setup *s, const int64_t *ids, uint32_t count) {
  s->groups[s->plan.numGroups++] = (ThunkyRange){s->plan.numIds, count};
  memcpy(s->ids + s->plan.numIds, ids, count * sizeof *ids);
  s->plan.numIds += count;
  current(s)->groups.count++;
}
#define GROUP(s, ...)                                                                      \
  addGroup(s, (const int64_t[]){__VA_ARGS__},                                              \
           sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))

static void addPair(Setup *s, int64_t source, int64_t target) {
  ThunkyCollective *c = current(s);
  if (c->pairs.count == 0)
    c->pairs.first = s->plan.numIds;
  s->ids[s->plan.numIds++] = source;
  s->ids[s->plan.numIds++] = target;
  c->pairs.count += 2;
}

/* Zeroed sources, destinations filled with 0xab (to see what was not
 * written). */
static void allocate(Setup *s) {
  for (uint32_t r = 0; r < s->ranks; r++)
    for (int a = 0; a < 2; a++) {
      s->memory[r][a] = calloc(1, s->allocations[a].size + 16);
      if (a == DESTINATIONS)
        memset(s->memory[r][a], 0xab, s->allocations[a].size);
    }
}

static void release(Setup *s) {
  for (uint32_t r = 0; r < s->ranks; r++)
    free(s->memory[r][0]), free(s->memory[r][1]);
}

static uint8_t *srcOf(Setup *s, uint32_t rank, uint32_t buffer) {
  ThunkyPlanSlice slice = s->buffers[buffer].src;
  return s->memory[rank][slice.allocation] + slice.offset;
}

static uint8_t *dstOf(Setup *s, uint32_t rank, uint32_t buffer) {
  ThunkyPlanSlice slice = s->buffers[buffer].dst;
  return s->memory[rank][slice.allocation] + slice.offset;
}

typedef struct RankRun {
  Setup *setup;
  ThunkyHostWorld *world;
  uint32_t rank, iterations;
  const uint32_t *order; /* collectives to call, in order; NULL: all of them */
  uint32_t orderLength;
  /* Called before each iteration (to refill in-place sources); may be NULL. */
  void (*before)(Setup *s, uint32_t rank, uint32_t iteration);
  bool (*after)(Setup *s, uint32_t rank, uint32_t iteration); /* checks; may be NULL */
} RankRun;

static void *rankMain(void *argument) {
  RankRun *run = argument;
  Setup *s = run->setup;
  uint8_t *memory[2] = {s->memory[run->rank][0], s->memory[run->rank][1]};
  bool ok = true;
  for (uint32_t it = 0; ok && it < run->iterations; it++) {
    if (run->before)
      run->before(s, run->rank, it);
    uint32_t n = run->order ? run->orderLength : s->plan.numCollectives;
    for (uint32_t i = 0; ok && i < n; i++)
      ok = thunkyHostCollective(run->world, run->rank, &s->plan,
                                run->order ? run->order[i] : i, memory,
                                &s->errors[run->rank]);
    if (ok && run->after && !run->after(s, run->rank, it)) {
      snprintf(s->errors[run->rank].message, sizeof s->errors[run->rank].message,
               "wrong result at iteration %u", it);
      ok = false;
      thunkyHostWorldAbort(run->world, run->rank);
    }
  }
  s->ok[run->rank] = ok;
  return NULL;
}

/* Runs every rank on its own thread over `world` (a fresh one when NULL);
 * true when every rank succeeded. */
static bool runWith(Setup *s, ThunkyHostWorld *world, const RankRun *pattern) {
  ThunkyError error = {{0}};
  ThunkyHostWorld *own =
      world ? NULL : thunkyHostWorldCreate(s->ranks, s->partitions, &error);
  CHECK(world || own, "world: %s", error.message);
  if (!world && !own)
    return false;
  pthread_t threads[MAX_RANKS];
  RankRun runs[MAX_RANKS];
  for (uint32_t r = 0; r < s->ranks; r++) {
    runs[r] = pattern ? *pattern : (RankRun){.iterations = 1};
    runs[r].setup = s;
    runs[r].world = world ? world : own;
    runs[r].rank = r;
    s->errors[r].message[0] = 0;
    pthread_create(&threads[r], NULL, rankMain, &runs[r]);
  }
  bool ok = true;
  for (uint32_t r = 0; r < s->ranks; r++) {
    pthread_join(threads[r], NULL);
    ok &= s->ok[r];
  }
  thunkyHostWorldDestroy(own);
  return ok;
}

static bool run(Setup *s) { return runWith(s, NULL, NULL); }

/* The first failing rank's message, for failed checks. */
static const char *firstError(const Setup *s) {
  for (uint32_t r = 0; r < s->ranks; r++)
    if (!s->ok[r])
      return s->errors[r].message;
  return "";
}

/* Whether rank `rank`'s call failed with `expected` in its message. */
static bool failedWith(const Setup *s, uint32_t rank, const char *expected) {
  return !s->ok[rank] && strstr(s->errors[rank].message, expected);
}

/*--- Element types -----------------------------------------------------------*/

static void testElementBytes(void) {
  int before = failures;
  static const struct {
    int32_t type;
    uint32_t bytes;
    const char *name;
  } rows[] = {
      {THUNKY_TYPE_PRED, 1, "pred"},
      {THUNKY_TYPE_S8, 1, "s8"},
      {THUNKY_TYPE_S16, 2, "s16"},
      {THUNKY_TYPE_S32, 4, "s32"},
      {THUNKY_TYPE_S64, 8, "s64"},
      {THUNKY_TYPE_U8, 1, "u8"},
      {THUNKY_TYPE_U16, 2, "u16"},
      {THUNKY_TYPE_U32, 4, "u32"},
      {THUNKY_TYPE_U64, 8, "u64"},
      {THUNKY_TYPE_F16, 2, "f16"},
      {THUNKY_TYPE_BF16, 2, "bf16"},
      {THUNKY_TYPE_F32, 4, "f32"},
      {THUNKY_TYPE_F64, 8, "f64"},
      {THUNKY_TYPE_C64, 8, "c64"},
      {THUNKY_TYPE_C128, 16, "c128"},
      {THUNKY_TYPE_F8E5M2, 1, "f8e5m2"},
      {THUNKY_TYPE_F8E4M3FN, 1, "f8e4m3fn"},
      {THUNKY_TYPE_F8E4M3FNUZ, 1, "f8e4m3fnuz"},
      {THUNKY_TYPE_F8E8M0FNU, 1, "f8e8m0fnu"},
      {THUNKY_TYPE_S4, 0, "s4"},
      {THUNKY_TYPE_U4, 0, "u4"},
      {THUNKY_TYPE_F4E2M1FN, 0, "f4e2m1fn"},
      {THUNKY_TYPE_TOKEN, 0, "token"},
      {THUNKY_TYPE_TUPLE, 0, "tuple"},
      {THUNKY_TYPE_INVALID, 0, "invalid"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    CHECK(thunkyElementBytes(rows[i].type) == rows[i].bytes, "%s", rows[i].name);
    const char *name = thunkyElementTypeName(rows[i].type);
    CHECK(name && strcmp(name, rows[i].name) == 0, "type %d", rows[i].type);
  }
  CHECK(thunkyElementBytes(99) == 0 && thunkyElementBytes(-1) == 0, "out of range");
  CHECK(thunkyElementTypeName(99) == NULL, "unknown name");

  ThunkyError e = {{0}};
  CHECK(!thunkyElementCanReduce(THUNKY_TYPE_C64, THUNKY_REDUCE_MIN, &e) &&
            strstr(e.message, "min of complex element type c64"),
        "%s", e.message);
  CHECK(!thunkyElementCanReduce(THUNKY_TYPE_S4, THUNKY_REDUCE_SUM, &e) &&
            strstr(e.message, "s4 cannot be reduced"),
        "%s", e.message);
  CHECK(!thunkyElementCanReduce(THUNKY_TYPE_F8E4M3, THUNKY_REDUCE_MAX, &e) &&
            strstr(e.message, "f8e4m3 cannot be reduced"),
        "%s", e.message);
  CHECK(!thunkyElementCanReduce(THUNKY_TYPE_F32, 7, &e) && strstr(e.message, "reduction 7"),
        "%s", e.message);
  CHECK(thunkyElementCanReduce(THUNKY_TYPE_C128, THUNKY_REDUCE_PRODUCT, &e),
        "c128 product");
  report("element sizes and names", before);
}

static const int32_t smallTypes[] = {THUNKY_TYPE_F16, THUNKY_TYPE_BF16, THUNKY_TYPE_F8E5M2,
                                     THUNKY_TYPE_F8E4M3FN};

static uint32_t smallBits(int32_t type) { return 8 * thunkyElementBytes(type); }

/* Spot values, from the formats' definitions. */
static void testSmallFloatValues(void) {
  int before = failures;
  static const struct {
    int32_t type;
    float value;
    uint32_t bits;
  } encodes[] = {
      {THUNKY_TYPE_F16, 1.0f, 0x3c00},
      {THUNKY_TYPE_F16, -2.0f, 0xc000},
      {THUNKY_TYPE_F16, 65504.0f, 0x7bff},
      {THUNKY_TYPE_F16, 65519.0f, 0x7bff},
      {THUNKY_TYPE_F16, 65520.0f, 0x7c00}, /* the tie goes to even: infinity */
      {THUNKY_TYPE_F16, 1e10f, 0x7c00},
      {THUNKY_TYPE_F16, -INFINITY, 0xfc00},
      {THUNKY_TYPE_F16, 0x1p-24f, 0x0001},
      {THUNKY_TYPE_F16, 0x1p-25f, 0x0000}, /* tie between 0 and the least subnormal */
      {THUNKY_TYPE_F16, 0x3p-26f, 0x0001},
      {THUNKY_TYPE_F16, 0x1p-14f, 0x0400},
      {THUNKY_TYPE_F16, 0x1.ffcp-15f, 0x0400}, /* rounds up into the normals */
      {THUNKY_TYPE_F16, -0.0f, 0x8000},
      {THUNKY_TYPE_F16, 2049.0f, 0x6800}, /* tie: 2048 */
      {THUNKY_TYPE_F16, 2051.0f, 0x6802}, /* tie: 2052 */
      {THUNKY_TYPE_BF16, 1.0f, 0x3f80},
      {THUNKY_TYPE_BF16, 257.0f, 0x4380}, /* tie: 256 */
      {THUNKY_TYPE_BF16, 259.0f, 0x4382}, /* tie: 260 */
      {THUNKY_TYPE_BF16, 3.0e38f, 0x7f62},
      {THUNKY_TYPE_BF16, 3.4028235e38f, 0x7f80}, /* FLT_MAX rounds to infinity */
      {THUNKY_TYPE_BF16, 0x1p-133f, 0x0001},
      {THUNKY_TYPE_F8E5M2, 1.0f, 0x3c},
      {THUNKY_TYPE_F8E5M2, 57344.0f, 0x7b},
      {THUNKY_TYPE_F8E5M2, 61440.0f, 0x7c}, /* tie: infinity */
      {THUNKY_TYPE_F8E5M2, 0x1p-16f, 0x01},
      {THUNKY_TYPE_F8E5M2, -1.25f, 0xbd},
      {THUNKY_TYPE_F8E4M3FN, 1.0f, 0x38},
      {THUNKY_TYPE_F8E4M3FN, 448.0f, 0x7e},
      {THUNKY_TYPE_F8E4M3FN, 464.0f, 0x7e}, /* tie with 480, which is NaN: saturates */
      {THUNKY_TYPE_F8E4M3FN, 1e9f, 0x7e},
      {THUNKY_TYPE_F8E4M3FN, -1e9f, 0xfe},
      {THUNKY_TYPE_F8E4M3FN, INFINITY, 0x7e},
      {THUNKY_TYPE_F8E4M3FN, 0x1p-9f, 0x01},
      {THUNKY_TYPE_F8E4M3FN, 1.0625f, 0x38}, /* tie: 1.0 */
      {THUNKY_TYPE_F8E4M3FN, 1.1875f, 0x3a}, /* tie: 1.25 */
  };
  for (size_t i = 0; i < sizeof encodes / sizeof encodes[0]; i++) {
    uint32_t got = thunkySmallFloatEncode(encodes[i].type, encodes[i].value);
    CHECK(got == encodes[i].bits, "%s %a: got 0x%x, want 0x%x",
          thunkyElementTypeName(encodes[i].type), (double)encodes[i].value, got,
          encodes[i].bits);
  }
  CHECK(thunkySmallFloatEncode(THUNKY_TYPE_F16, NAN) == 0x7e00, "f16 nan");
  CHECK(thunkySmallFloatEncode(THUNKY_TYPE_BF16, -NAN) == 0xffc0, "bf16 -nan");
  CHECK(thunkySmallFloatEncode(THUNKY_TYPE_F8E5M2, NAN) == 0x7e, "e5m2 nan");
  CHECK(thunkySmallFloatEncode(THUNKY_TYPE_F8E4M3FN, NAN) == 0x7f, "e4m3fn nan");
  CHECK(isnan(thunkySmallFloatDecode(THUNKY_TYPE_F8E4M3FN, 0xff)), "e4m3fn 0xff");
  CHECK(thunkySmallFloatDecode(THUNKY_TYPE_F8E4M3FN, 0x7e) == 448.0f, "e4m3fn max");
  CHECK(thunkySmallFloatDecode(THUNKY_TYPE_F8E4M3FN, 0x78) == 256.0f, "e4m3fn 0x78");
  CHECK(isinf(thunkySmallFloatDecode(THUNKY_TYPE_F8E5M2, 0xfc)), "e5m2 -inf");
  CHECK(thunkySmallFloatDecode(THUNKY_TYPE_F16, 0x0001) == 0x1p-24f, "f16 subnormal");
  CHECK(thunkySmallFloatDecode(THUNKY_TYPE_BF16, 0x0001) == 0x1p-133f, "bf16 subnormal");
  CHECK(thunkySmallFloatEncode(THUNKY_TYPE_F32, 1.0f) == 0, "not a small float");
  report("small float values", before);
}

/* Every bit pattern decodes, and encodes back to itself (NaNs to a NaN);
 * and at every midpoint between neighbours, and just either side of it,
 * encoding rounds to nearest, ties to the even pattern. Together these
 * pin down round-to-nearest-even over each format's whole range. */
static void testSmallFloatExhaustive(void) {
  int before = failures;
  for (size_t t = 0; t < sizeof smallTypes / sizeof smallTypes[0]; t++) {
    int32_t type = smallTypes[t];
    uint32_t patterns = 1u << smallBits(type), signBit = patterns >> 1;
    int bad = 0;
    for (uint32_t bits = 0; bits < patterns; bits++) {
      float value = thunkySmallFloatDecode(type, bits);
      uint32_t again = thunkySmallFloatEncode(type, value);
      bool same = isnan(value) ? isnan(thunkySmallFloatDecode(type, again)) : again == bits;
      bad += !same;
    }
    CHECK(bad == 0, "%s: %d patterns do not round-trip", thunkyElementTypeName(type), bad);

    bad = 0;
    for (uint32_t bits = 0; bits + 1 < signBit; bits++) {
      float low = thunkySmallFloatDecode(type, bits);
      float high = thunkySmallFloatDecode(type, bits + 1);
      if (isnan(high) || isinf(high))
        break;
      float mid = (float)(((double)low + high) / 2); /* exact in float */
      uint32_t even = bits % 2 ? bits + 1 : bits;
      bad += thunkySmallFloatEncode(type, mid) != even;
      bad += thunkySmallFloatEncode(type, nextafterf(mid, 0)) != bits;
      bad += thunkySmallFloatEncode(type, nextafterf(mid, INFINITY)) != bits + 1;
      bad += thunkySmallFloatEncode(type, -mid) != (even | signBit);
    }
    CHECK(bad == 0, "%s: %d midpoints round wrongly", thunkyElementTypeName(type), bad);
  }
  report("small floats, every pattern and midpoint", before);
}

/* Whether an element of a float type is a NaN (whose sign and payload
 * the platform's arithmetic chooses). */
static bool isNanElement(int32_t type, const uint8_t *p) {
  if (type == THUNKY_TYPE_F32) {
    float v;
    memcpy(&v, p, 4);
    return isnan(v);
  }
  uint32_t bits = 0;
  memcpy(&bits, p, thunkyElementBytes(type)); /* little-endian */
  return isnan(thunkySmallFloatDecode(type, bits));
}

/* thunkyElementReduce on two arrays, compared with expected bytes; an
 * expected NaN matches any NaN. */
static void checkReduce(int32_t type, uint8_t reduction, const void *a, const void *b,
                        const void *want, uint64_t count, const char *what) {
  uint32_t bytes = thunkyElementBytes(type);
  uint8_t acc[64];
  memcpy(acc, a, count * bytes);
  ThunkyError e = {{0}};
  bool ok = thunkyElementReduce(type, reduction, acc, b, count, &e);
  CHECK(ok, "%s: %s", what, e.message);
  for (uint64_t k = 0; ok && k < count; k++) {
    const uint8_t *got = acc + k * bytes, *expected = (const uint8_t *)want + k * bytes;
    bool floaty = type == THUNKY_TYPE_F32 || type == THUNKY_TYPE_F16 ||
                  type == THUNKY_TYPE_BF16 || type == THUNKY_TYPE_F8E5M2 ||
                  type == THUNKY_TYPE_F8E4M3FN;
    CHECK(floaty && isNanElement(type, expected) ? isNanElement(type, got)
                                                 : memcmp(got, expected, bytes) == 0,
          "%s: element %llu", what, (unsigned long long)k);
  }
}

/* Edge cases of each operator: wraparound, signedness, NaN, rounding. */
static void testReduceOperators(void) {
  int before = failures;
  enum {
    SUM = THUNKY_REDUCE_SUM,
    PRODUCT = THUNKY_REDUCE_PRODUCT,
    MIN = THUNKY_REDUCE_MIN,
    MAX = THUNKY_REDUCE_MAX
  };
  int8_t s8a[] = {127, -128, -1, 100}, s8b[] = {1, -1, 1, 3};
  checkReduce(THUNKY_TYPE_S8, SUM, s8a, s8b, (int8_t[]){-128, 127, 0, 103}, 4, "s8 sum");
  checkReduce(THUNKY_TYPE_S8, PRODUCT, s8a, s8b, (int8_t[]){127, -128, -1, 44}, 4,
              "s8 product");
  checkReduce(THUNKY_TYPE_S8, MIN, s8a, s8b, (int8_t[]){1, -128, -1, 3}, 4, "s8 min");
  uint16_t u16a[] = {65535, 300, 0}, u16b[] = {65535, 400, 1};
  checkReduce(THUNKY_TYPE_U16, PRODUCT, u16a, u16b, (uint16_t[]){1, 54464, 0}, 3,
              "u16 product");
  checkReduce(THUNKY_TYPE_U16, MAX, u16a, u16b, (uint16_t[]){65535, 400, 1}, 3, "u16 max");
  int64_t s64a[] = {INT64_MAX, INT64_MIN}, s64b[] = {2, -1};
  checkReduce(THUNKY_TYPE_S64, SUM, s64a, s64b, (int64_t[]){INT64_MIN + 1, INT64_MAX}, 2,
              "s64 sum");
  checkReduce(THUNKY_TYPE_S64, PRODUCT, s64a, s64b, (int64_t[]){-2, INT64_MIN}, 2,
              "s64 product");
  checkReduce(THUNKY_TYPE_S64, MAX, s64a, s64b, (int64_t[]){INT64_MAX, -1}, 2, "s64 max");
  uint32_t u32a[] = {0xffffffffu, 7}, u32b[] = {0x80000000u, 9};
  checkReduce(THUNKY_TYPE_U32, MIN, u32a, u32b, (uint32_t[]){0x80000000u, 7}, 2, "u32 min");
  checkReduce(THUNKY_TYPE_U32, SUM, u32a, u32b, (uint32_t[]){0x7fffffffu, 16}, 2,
              "u32 sum");

  float f32a[] = {NAN, 1, -0.0f, INFINITY}, f32b[] = {1, NAN, 0.0f, 2};
  float minWant[] = {NAN, NAN, 0.0f, 2}, maxWant[] = {NAN, NAN, 0.0f, INFINITY};
  /* NaN compares by bits here: the NaN is an operand, passed through. */
  checkReduce(THUNKY_TYPE_F32, MIN, f32a, f32b, minWant, 4, "f32 min");
  checkReduce(THUNKY_TYPE_F32, MAX, f32a, f32b, maxWant, 4, "f32 max");
  double f64a[] = {0.1, 1e308}, f64b[] = {0.2, 1e308};
  checkReduce(THUNKY_TYPE_F64, SUM, f64a, f64b, (double[]){0.1 + 0.2, INFINITY}, 2,
              "f64 sum");

  uint8_t preda[] = {0, 0, 1, 1}, predb[] = {0, 1, 0, 1};
  checkReduce(THUNKY_TYPE_PRED, SUM, preda, predb, (uint8_t[]){0, 1, 1, 1}, 4, "pred sum");
  checkReduce(THUNKY_TYPE_PRED, MAX, preda, predb, (uint8_t[]){0, 1, 1, 1}, 4, "pred max");
  checkReduce(THUNKY_TYPE_PRED, PRODUCT, preda, predb, (uint8_t[]){0, 0, 0, 1}, 4,
              "pred product");
  checkReduce(THUNKY_TYPE_PRED, MIN, preda, predb, (uint8_t[]){0, 0, 0, 1}, 4, "pred min");

  /* f16: 2048 + 1 ties to 2048, 2048 + 3 to 2052; overflow is infinity;
   * inf - inf and anything with NaN is NaN (0x7e00 either way). */
  uint16_t f16a[] = {0x6800, 0x6800, 0x7bff, 0x7c00, 0x7e00, 0x3c00};
  uint16_t f16b[] = {0x3c00, 0x4200, 0x7bff, 0xfc00, 0x3c00, 0x7e00};
  checkReduce(THUNKY_TYPE_F16, SUM, f16a, f16b,
              (uint16_t[]){0x6800, 0x6802, 0x7c00, 0x7e00, 0x7e00, 0x7e00}, 6, "f16 sum");
  checkReduce(THUNKY_TYPE_F16, MAX, f16a, f16b,
              (uint16_t[]){0x6800, 0x6800, 0x7bff, 0x7c00, 0x7e00, 0x7e00}, 6, "f16 max");
  /* bf16: 256 + 1 ties to 256, 256 + 3 to 260; 1.5 * 1.5 = 2.25 exact. */
  uint16_t bf16a[] = {0x4380, 0x4380, 0x3fc0}, bf16b[] = {0x3f80, 0x4040, 0x3fc0};
  checkReduce(THUNKY_TYPE_BF16, SUM, bf16a, bf16b, (uint16_t[]){0x4380, 0x4382, 0x4040}, 3,
              "bf16 sum");
  checkReduce(THUNKY_TYPE_BF16, PRODUCT, bf16a, bf16b, (uint16_t[]){0x4380, 0x4440, 0x4010},
              3, "bf16 product");
  /* f8e4m3fn: 448 + 448 saturates; 1 + 0.0625 ties to 1. e5m2 overflows to
   * infinity. */
  uint8_t e4a[] = {0x7e, 0x38, 0x7f}, e4b[] = {0x7e, 0x18, 0x38};
  checkReduce(THUNKY_TYPE_F8E4M3FN, SUM, e4a, e4b, (uint8_t[]){0x7e, 0x38, 0x7f}, 3,
              "e4m3fn sum");
  checkReduce(THUNKY_TYPE_F8E4M3FN, MIN, e4a, e4b, (uint8_t[]){0x7e, 0x18, 0x7f}, 3,
              "e4m3fn min");
  uint8_t e5a[] = {0x7b, 0x3c}, e5b[] = {0x7b, 0xbc};
  checkReduce(THUNKY_TYPE_F8E5M2, SUM, e5a, e5b, (uint8_t[]){0x7c, 0x00}, 2, "e5m2 sum");

  float c64a[] = {1, 2, 0.5f, -1}, c64b[] = {3, 4, 2, 2};
  checkReduce(THUNKY_TYPE_C64, PRODUCT, c64a, c64b, (float[]){-5, 10, 3, -1}, 2,
              "c64 product");
  double c128a[] = {1, 2}, c128b[] = {3, -4};
  checkReduce(THUNKY_TYPE_C128, SUM, c128a, c128b, (double[]){4, -2}, 1, "c128 sum");
  checkReduce(THUNKY_TYPE_C128, PRODUCT, c128a, c128b, (double[]){11, 2}, 1,
              "c128 product");

  ThunkyError e = {{0}};
  uint8_t scratch[8] = {0};
  CHECK(!thunkyElementReduce(THUNKY_TYPE_C64, THUNKY_REDUCE_MAX, scratch, scratch, 1, &e) &&
            strstr(e.message, "max of complex"),
        "%s", e.message);
  report("reduction operators", before);
}

/*--- All-reduce ----------------------------------------------------------------*/

static const uint32_t rankCounts[] = {1, 2, 4, 8};
enum { COUNT = 6 };

/* One all-reduce of COUNT elements on `ranks` ranks; `fill` gives rank r's
 * element k, `expect` the result computed in member order. */
typedef void FillFn(uint8_t *out, uint32_t rank, uint32_t k);
typedef void ExpectFn(uint8_t *out, uint32_t ranks, uint32_t k, uint8_t reduction);

static void checkAllReduce(uint32_t ranks, int32_t type, uint8_t reduction, FillFn *fill,
                           ExpectFn *expect) {
  Setup s;
  setup(&s, ranks, 1, THUNKY_COLLECTIVE_ALL_REDUCE, reduction);
  addBuffer(&s, type, COUNT, COUNT);
  allocate(&s);
  uint32_t bytes = thunkyElementBytes(type);
  for (uint32_t r = 0; r < ranks; r++)
    for (uint32_t k = 0; k < COUNT; k++)
      fill(srcOf(&s, r, 0) + k * bytes, r, k);
  bool ok = run(&s);
  CHECK(ok, "%s reduction %u on %u ranks: %s", thunkyElementTypeName(type), reduction,
        ranks, firstError(&s));
  for (uint32_t r = 0; ok && r < ranks; r++)
    for (uint32_t k = 0; k < COUNT; k++) {
      uint8_t want[16];
      expect(want, ranks, k, reduction);
      CHECK(memcmp(dstOf(&s, r, 0) + k * bytes, want, bytes) == 0,
            "%s reduction %u on %u ranks: rank %u element %u", thunkyElementTypeName(type),
            reduction, ranks, r, k);
    }
  release(&s);
}

/* s32: values that overflow in sums and products, both signs. */
static int32_t s32Value(uint32_t r, uint32_t k) {
  return (int32_t)(0x3fffffffu * (r + 1) + 977u * k * (r + 3)) ^ (int32_t)(k % 2 ? -1 : 0);
}
static void fillS32(uint8_t *out, uint32_t r, uint32_t k) {
  int32_t v = s32Value(r, k);
  memcpy(out, &v, 4);
}
static void expectS32(uint8_t *out, uint32_t ranks, uint32_t k, uint8_t reduction) {
  uint32_t acc = (uint32_t)s32Value(0, k); /* wraparound arithmetic in unsigned */
  for (uint32_t r = 1; r < ranks; r++) {
    int32_t v = s32Value(r, k), a = (int32_t)acc;
    acc = reduction == THUNKY_REDUCE_SUM       ? acc + (uint32_t)v
          : reduction == THUNKY_REDUCE_PRODUCT ? acc * (uint32_t)v
          : reduction == THUNKY_REDUCE_MIN     ? (uint32_t)(v < a ? v : a)
                                               : (uint32_t)(v > a ? v : a);
  }
  memcpy(out, &acc, 4);
}

static uint8_t u8Value(uint32_t r, uint32_t k) { return (uint8_t)(37 * r + 91 * k + 200); }
static void fillU8(uint8_t *out, uint32_t r, uint32_t k) { *out = u8Value(r, k); }
static void expectU8(uint8_t *out, uint32_t ranks, uint32_t k, uint8_t reduction) {
  unsigned acc = u8Value(0, k);
  for (uint32_t r = 1; r < ranks; r++) {
    unsigned v = u8Value(r, k);
    acc = reduction == THUNKY_REDUCE_SUM       ? (acc + v) & 0xff
          : reduction == THUNKY_REDUCE_PRODUCT ? (acc * v) & 0xff
          : reduction == THUNKY_REDUCE_MIN     ? (v < acc ? v : acc)
                                               : (v > acc ? v : acc);
  }
  *out = (uint8_t)acc;
}

/* Floats: results computed in member order, as every rank must. */
static double floatValue(uint32_t r, uint32_t k) {
  return ((double)r * 1.75 - (double)k * 0.3) * (k % 3 == 2 ? 1e-3 : 1.0) + 0.1;
}
static double combine(double a, double b, uint8_t reduction) {
  switch (reduction) {
  case THUNKY_REDUCE_SUM:
    return a + b;
  case THUNKY_REDUCE_PRODUCT:
    return a * b;
  case THUNKY_REDUCE_MIN:
    return a < b ? a : b;
  default:
    return a > b ? a : b;
  }
}
static void fillF32(uint8_t *out, uint32_t r, uint32_t k) {
  float v = (float)floatValue(r, k);
  memcpy(out, &v, 4);
}
static void expectF32(uint8_t *out, uint32_t ranks, uint32_t k, uint8_t reduction) {
  float acc = (float)floatValue(0, k);
  for (uint32_t r = 1; r < ranks; r++)
    acc = (float)combine(acc, (float)floatValue(r, k), reduction);
  memcpy(out, &acc, 4);
}
static void fillF64(uint8_t *out, uint32_t r, uint32_t k) {
  double v = floatValue(r, k);
  memcpy(out, &v, 8);
}
static void expectF64(uint8_t *out, uint32_t ranks, uint32_t k, uint8_t reduction) {
  double acc = floatValue(0, k);
  for (uint32_t r = 1; r < ranks; r++)
    acc = combine(acc, floatValue(r, k), reduction);
  memcpy(out, &acc, 8);
}

/* F16 and BF16 with small integers and halves (sums are exact; products
 * overflow and round), rounded after each step through the conversions
 * tested exhaustively above. */
static float halfValue(uint32_t r, uint32_t k) {
  return (float)((int)(r % 3) - 1) * 0.5f + (float)k + (float)(r % 2);
}
static float roundTo(int32_t type, double value) {
  return thunkySmallFloatDecode(type, thunkySmallFloatEncode(type, (float)value));
}
static float stepwiseHalf(int32_t type, uint32_t ranks, uint32_t k, uint8_t reduction) {
  float acc = roundTo(type, halfValue(0, k));
  for (uint32_t r = 1; r < ranks; r++)
    acc = roundTo(type, combine(acc, roundTo(type, halfValue(r, k)), reduction));
  return acc;
}
#define DEFINE_HALF(NAME, TYPE)                                                            \
  static void fill##NAME(uint8_t *out, uint32_t r, uint32_t k) {                           \
    uint16_t bits = (uint16_t)thunkySmallFloatEncode(TYPE, halfValue(r, k));               \
    memcpy(out, &bits, 2);                                                                 \
  }                                                                                        \
  static void expect##NAME(uint8_t *out, uint32_t ranks, uint32_t k, uint8_t reduction) {  \
    float value = stepwiseHalf(TYPE, ranks, k, reduction);                                 \
    uint16_t bits = (uint16_t)thunkySmallFloatEncode(TYPE, value);                         \
    memcpy(out, &bits, 2);                                                                 \
  }
DEFINE_HALF(F16, THUNKY_TYPE_F16)
DEFINE_HALF(BF16, THUNKY_TYPE_BF16)

static bool predValue(uint32_t r, uint32_t k) { return (k >> (r % 3)) & 1; }
static void fillPred(uint8_t *out, uint32_t r, uint32_t k) { *out = predValue(r, k); }
static void expectPred(uint8_t *out, uint32_t ranks, uint32_t k, uint8_t reduction) {
  bool any = false, all = true;
  for (uint32_t r = 0; r < ranks; r++)
    any |= predValue(r, k), all &= predValue(r, k);
  *out = reduction == THUNKY_REDUCE_SUM || reduction == THUNKY_REDUCE_MAX ? any : all;
}

static void fillC64(uint8_t *out, uint32_t r, uint32_t k) {
  float v[2] = {(float)floatValue(r, k), (float)floatValue(k, r)};
  memcpy(out, v, 8);
}
static void expectC64(uint8_t *out, uint32_t ranks, uint32_t k, uint8_t reduction) {
  (void)reduction; /* sum only: complex min and max are errors */
  float acc[2] = {(float)floatValue(0, k), (float)floatValue(k, 0)};
  for (uint32_t r = 1; r < ranks; r++)
    acc[0] += (float)floatValue(r, k), acc[1] += (float)floatValue(k, r);
  memcpy(out, acc, 8);
}

static void testAllReduce(void) {
  int before = failures;
  static const struct {
    int32_t type;
    FillFn *fill;
    ExpectFn *expect;
    bool sumOnly;
  } types[] = {
      {THUNKY_TYPE_S32, fillS32, expectS32, false},
      {THUNKY_TYPE_U8, fillU8, expectU8, false},
      {THUNKY_TYPE_F32, fillF32, expectF32, false},
      {THUNKY_TYPE_F64, fillF64, expectF64, false},
      {THUNKY_TYPE_F16, fillF16, expectF16, false},
      {THUNKY_TYPE_BF16, fillBF16, expectBF16, false},
      {THUNKY_TYPE_PRED, fillPred, expectPred, false},
      {THUNKY_TYPE_C64, fillC64, expectC64, true},
  };
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
    for (size_t n = 0; n < sizeof rankCounts / sizeof rankCounts[0]; n++)
      for (uint8_t reduction = THUNKY_REDUCE_SUM; reduction <= THUNKY_REDUCE_MAX;
           reduction++)
        if (!types[t].sumOnly || reduction == THUNKY_REDUCE_SUM)
          checkAllReduce(rankCounts[n], types[t].type, reduction, types[t].fill,
                         types[t].expect);
  report("all-reduce: s32, u8, f32, f64, f16, bf16, pred, c64 on 1, 2, 4, 8 ranks", before);
}

/* F16 rounding across ranks: 2048 + 1 + 1 rounds after each step (2048,
 * then 2048 again), not once at the end (2050). */
static void testAllReduceRoundsEachStep(void) {
  int before = failures;
  Setup s;
  setup(&s, 4, 1, THUNKY_COLLECTIVE_ALL_REDUCE, THUNKY_REDUCE_SUM);
  addBuffer(&s, THUNKY_TYPE_F16, 1, 1);
  addBuffer(&s, THUNKY_TYPE_BF16, 1, 1);
  allocate(&s);
  uint16_t f16[] = {0x6800, 0x3c00, 0x3c00, 0x4000};  /* 2048, 1, 1, 2 */
  uint16_t bf16[] = {0x4380, 0x3f80, 0x4000, 0x3f80}; /* 256, 1, 2, 1 */
  for (uint32_t r = 0; r < 4; r++) {
    memcpy(srcOf(&s, r, 0), &f16[r], 2);
    memcpy(srcOf(&s, r, 1), &bf16[r], 2);
  }
  CHECK(run(&s), "run: %s", firstError(&s));
  for (uint32_t r = 0; r < 4; r++) {
    uint16_t a, b;
    memcpy(&a, dstOf(&s, r, 0), 2);
    memcpy(&b, dstOf(&s, r, 1), 2);
    CHECK(a == 0x6801, "f16 rank %u: 0x%x (2048, 2048, 2048, 2050)", r, a);
    CHECK(b == 0x4382, "bf16 rank %u: 0x%x (256, 258, 260)", r, b);
  }
  release(&s);
  report("all-reduce: small floats round after each step", before);
}

/* src == dst on every rank: every source is read before any is written. */
static void fillInPlace(Setup *s, uint32_t rank, uint32_t iteration) {
  int32_t *p = (int32_t *)srcOf(s, rank, 0);
  for (uint32_t k = 0; k < 64; k++)
    p[k] = (int32_t)(rank * 1000 + k + iteration);
}
static bool checkInPlace(Setup *s, uint32_t rank, uint32_t iteration) {
  const int32_t *p = (const int32_t *)srcOf(s, rank, 0);
  const int32_t *gathered = (const int32_t *)dstOf(s, rank, 1);
  for (uint32_t k = 0; k < 64; k++) {
    int32_t want = 0;
    for (uint32_t r = 0; r < s->ranks; r++)
      want += (int32_t)(r * 1000 + k + iteration);
    if (p[k] != want)
      return false;
  }
  /* The all-gather that follows reads the reduced values. */
  for (uint32_t r = 0; r < s->ranks; r++)
    if (gathered[r * 64] != p[0])
      return false;
  return true;
}

static void testInPlace(void) {
  int before = failures;
  for (size_t n = 0; n < sizeof rankCounts / sizeof rankCounts[0]; n++) {
    Setup s;
    setup(&s, rankCounts[n], 1, THUNKY_COLLECTIVE_ALL_REDUCE, THUNKY_REDUCE_SUM);
    addInPlaceBuffer(&s, THUNKY_TYPE_S32, 64);
    addCollective(&s, THUNKY_COLLECTIVE_ALL_GATHER, 0);
    addBuffer(&s, THUNKY_TYPE_S32, 64, 64 * rankCounts[n]);
    s.buffers[1].src = s.buffers[0].src; /* gathers what the all-reduce wrote */
    allocate(&s);
    RankRun pattern = {.iterations = 200, .before = fillInPlace, .after = checkInPlace};
    bool ok = runWith(&s, NULL, &pattern);
    CHECK(ok, "%u ranks: %s", rankCounts[n], firstError(&s));
    release(&s);
  }

  /* An all-gather whose source is the start of its destination. */
  Setup s;
  setup(&s, 4, 1, THUNKY_COLLECTIVE_ALL_GATHER, 0);
  addBuffer(&s, THUNKY_TYPE_U8, 4, 16);
  s.buffers[0].src = (ThunkyPlanSlice){DESTINATIONS, s.buffers[0].dst.offset, 4};
  allocate(&s);
  for (uint32_t r = 0; r < 4; r++)
    memset(srcOf(&s, r, 0), (int)(r + 1), 4);
  CHECK(run(&s), "overlapping all-gather: %s", firstError(&s));
  for (uint32_t r = 0; r < 4; r++)
    for (uint32_t k = 0; k < 16; k++)
      CHECK(dstOf(&s, r, 0)[k] == k / 4 + 1, "rank %u byte %u: %u", r, k,
            dstOf(&s, r, 0)[k]);
  release(&s);
  report("in place: all-reduce and all-gather, 200 rounds on 1, 2, 4, 8 ranks", before);
}

/*--- Moving collectives --------------------------------------------------------*/

/* Rank r's source element k of buffer i: distinct everywhere. */
static int32_t tag(uint32_t r, uint32_t i, uint32_t k) {
  return (int32_t)(r * 10000 + i * 100 + k);
}
static void fillTags(Setup *s) {
  for (uint32_t r = 0; r < s->ranks; r++)
    for (uint32_t i = 0; i < s->plan.numCollectiveBuffers; i++)
      for (uint32_t k = 0; k < s->buffers[i].elementCount; k++)
        ((int32_t *)srcOf(s, r, i))[k] = tag(r, i, k);
}
static int32_t dstElement(Setup *s, uint32_t r, uint32_t i, uint32_t k) {
  return ((const int32_t *)dstOf(s, r, i))[k];
}

static void testAllGather(void) {
  int before = failures;
  for (size_t n = 0; n < sizeof rankCounts / sizeof rankCounts[0]; n++) {
    uint32_t ranks = rankCounts[n];
    Setup s;
    setup(&s, ranks, 1, THUNKY_COLLECTIVE_ALL_GATHER, 0);
    addBuffer(&s, THUNKY_TYPE_S32, 3, 3 * ranks);
    addBuffer(&s, THUNKY_TYPE_S32, 2, 2 * ranks);
    allocate(&s);
    fillTags(&s);
    CHECK(run(&s), "%u ranks: %s", ranks, firstError(&s));
    for (uint32_t r = 0; r < ranks; r++)
      for (uint32_t i = 0; i < 2; i++)
        for (uint32_t m = 0; m < ranks; m++)
          for (uint32_t k = 0; k < 3 - i; k++)
            CHECK(dstElement(&s, r, i, m * (3 - i) + k) == tag(m, i, k),
                  "%u ranks: rank %u buffer %u member %u element %u", ranks, r, i, m, k);
    release(&s);
  }
  /* Groups in their own order: {1, 0}, {3, 2}. */
  Setup s;
  setup(&s, 4, 1, THUNKY_COLLECTIVE_ALL_GATHER, 0);
  GROUP(&s, 1, 0);
  GROUP(&s, 3, 2);
  addBuffer(&s, THUNKY_TYPE_S32, 1, 2);
  allocate(&s);
  fillTags(&s);
  CHECK(run(&s), "groups: %s", firstError(&s));
  for (uint32_t r = 0; r < 4; r++) {
    uint32_t first = r / 2 * 2 + 1;
    CHECK(dstElement(&s, r, 0, 0) == tag(first, 0, 0) &&
              dstElement(&s, r, 0, 1) == tag(first - 1, 0, 0),
          "rank %u: %d %d", r, dstElement(&s, r, 0, 0), dstElement(&s, r, 0, 1));
  }
  release(&s);
  report("all-gather on 1, 2, 4, 8 ranks and in group order", before);
}

static void testReduceScatter(void) {
  int before = failures;
  for (size_t n = 0; n < sizeof rankCounts / sizeof rankCounts[0]; n++) {
    uint32_t ranks = rankCounts[n];
    Setup s;
    setup(&s, ranks, 1, THUNKY_COLLECTIVE_REDUCE_SCATTER, THUNKY_REDUCE_MAX);
    addBuffer(&s, THUNKY_TYPE_S32, 2 * ranks, 2);
    allocate(&s);
    for (uint32_t r = 0; r < ranks; r++)
      for (uint32_t k = 0; k < 2 * ranks; k++) /* the max of chunk j comes from rank j */
        ((int32_t *)srcOf(&s, r, 0))[k] = k / 2 == r ? 1000 + (int32_t)k : (int32_t)r - 50;
    CHECK(run(&s), "%u ranks: %s", ranks, firstError(&s));
    for (uint32_t r = 0; r < ranks; r++)
      for (uint32_t k = 0; k < 2; k++)
        CHECK(dstElement(&s, r, 0, k) == 1000 + (int32_t)(2 * r + k),
              "%u ranks: rank %u: %d", ranks, r, dstElement(&s, r, 0, k));
    release(&s);
  }
  /* Sums within groups {0, 2}, {1, 3}: member j gets chunk j. */
  Setup s;
  setup(&s, 4, 1, THUNKY_COLLECTIVE_REDUCE_SCATTER, THUNKY_REDUCE_SUM);
  GROUP(&s, 0, 2);
  GROUP(&s, 1, 3);
  addBuffer(&s, THUNKY_TYPE_S32, 4, 2);
  allocate(&s);
  fillTags(&s);
  CHECK(run(&s), "groups: %s", firstError(&s));
  for (uint32_t r = 0; r < 4; r++)
    for (uint32_t k = 0; k < 2; k++) {
      uint32_t peer = r ^ 2, chunk = r / 2;
      int32_t want = tag(r, 0, 2 * chunk + k) + tag(peer, 0, 2 * chunk + k);
      CHECK(dstElement(&s, r, 0, k) == want, "rank %u element %u: %d, want %d", r, k,
            dstElement(&s, r, 0, k), want);
    }
  release(&s);
  report("reduce-scatter on 1, 2, 4, 8 ranks and in groups", before);
}

static void testAllToAll(void) {
  int before = failures;
  for (size_t n = 0; n < sizeof rankCounts / sizeof rankCounts[0]; n++) {
    uint32_t ranks = rankCounts[n];
    /* Without a split dimension: one buffer per rank. */
    Setup s;
    setup(&s, ranks, 1, THUNKY_COLLECTIVE_ALL_TO_ALL, 0);
    for (uint32_t i = 0; i < ranks; i++)
      addBuffer(&s, THUNKY_TYPE_S32, 3, 3);
    allocate(&s);
    fillTags(&s);
    CHECK(run(&s), "%u ranks, buffers: %s", ranks, firstError(&s));
    for (uint32_t j = 0; j < ranks; j++)
      for (uint32_t i = 0; i < ranks; i++)
        for (uint32_t k = 0; k < 3; k++)
          CHECK(dstElement(&s, j, i, k) == tag(i, j, k), "%u ranks: rank %u buffer %u",
                ranks, j, i);
    release(&s);

    /* With one: two buffers, each in rank-sized chunks. */
    setup(&s, ranks, 1, THUNKY_COLLECTIVE_ALL_TO_ALL, 0);
    s.collectives[0].splitDimension = true;
    addBuffer(&s, THUNKY_TYPE_S32, 2 * ranks, 2 * ranks);
    addBuffer(&s, THUNKY_TYPE_S32, ranks, ranks);
    allocate(&s);
    fillTags(&s);
    CHECK(run(&s), "%u ranks, split: %s", ranks, firstError(&s));
    for (uint32_t j = 0; j < ranks; j++)
      for (uint32_t i = 0; i < ranks; i++) {
        for (uint32_t k = 0; k < 2; k++)
          CHECK(dstElement(&s, j, 0, 2 * i + k) == tag(i, 0, 2 * j + k),
                "%u ranks: rank %u chunk %u", ranks, j, i);
        CHECK(dstElement(&s, j, 1, i) == tag(i, 1, j), "%u ranks: rank %u chunk %u", ranks,
              j, i);
      }
    release(&s);
  }
  report("all-to-all with and without split dimension on 1, 2, 4, 8 ranks", before);
}

static void testPermute(void) {
  int before = failures;
  for (size_t n = 0; n < sizeof rankCounts / sizeof rankCounts[0]; n++) {
    uint32_t ranks = rankCounts[n];
    for (int inPlace = 0; inPlace < 2; inPlace++) { /* a ring: r sends to r + 1 */
      Setup s;
      setup(&s, ranks, 1, THUNKY_COLLECTIVE_PERMUTE, 0);
      for (uint32_t r = 0; r < ranks; r++)
        addPair(&s, r, (r + 1) % ranks);
      if (inPlace)
        addInPlaceBuffer(&s, THUNKY_TYPE_S32, 5);
      else
        addBuffer(&s, THUNKY_TYPE_S32, 5, 5);
      allocate(&s);
      fillTags(&s);
      CHECK(run(&s), "%u ranks: %s", ranks, firstError(&s));
      for (uint32_t r = 0; r < ranks; r++)
        for (uint32_t k = 0; k < 5; k++)
          CHECK(dstElement(&s, r, 0, k) == tag((r + ranks - 1) % ranks, 0, k),
                "%u-rank ring%s: rank %u", ranks, inPlace ? " in place" : "", r);
      release(&s);
    }
  }
  /* Partial, in place: 0 -> 2, 2 -> 3; ranks 0 and 1 are no target: zeroed. */
  Setup s;
  setup(&s, 4, 1, THUNKY_COLLECTIVE_PERMUTE, 0);
  addPair(&s, 0, 2);
  addPair(&s, 2, 3);
  addInPlaceBuffer(&s, THUNKY_TYPE_S32, 4);
  allocate(&s);
  fillTags(&s);
  CHECK(run(&s), "partial: %s", firstError(&s));
  static const int sources[] = {-1, -1, 0, 2};
  for (uint32_t r = 0; r < 4; r++)
    for (uint32_t k = 0; k < 4; k++)
      CHECK(dstElement(&s, r, 0, k) ==
                (sources[r] < 0 ? 0 : tag((uint32_t)sources[r], 0, k)),
            "partial: rank %u element %u: %d", r, k, dstElement(&s, r, 0, k));
  release(&s);
  report("collective-permute: rings, in place, partial with zeroing", before);
}

static void testBroadcast(void) {
  int before = failures;
  for (size_t n = 0; n < sizeof rankCounts / sizeof rankCounts[0]; n++) {
    uint32_t ranks = rankCounts[n];
    Setup s;
    setup(&s, ranks, 1, THUNKY_COLLECTIVE_BROADCAST, 0);
    addBuffer(&s, THUNKY_TYPE_S32, 3, 3);
    allocate(&s);
    fillTags(&s);
    CHECK(run(&s), "%u ranks: %s", ranks, firstError(&s));
    for (uint32_t r = 0; r < ranks; r++)
      for (uint32_t k = 0; k < 3; k++)
        CHECK(dstElement(&s, r, 0, k) == tag(0, 0, k), "%u ranks: rank %u", ranks, r);
    release(&s);
  }
  /* Groups {3, 1}, {2, 0} with root 1: members at position 1 send. */
  Setup s;
  setup(&s, 4, 1, THUNKY_COLLECTIVE_BROADCAST, 0);
  GROUP(&s, 3, 1);
  GROUP(&s, 2, 0);
  s.collectives[0].root = 1;
  addInPlaceBuffer(&s, THUNKY_TYPE_S32, 2);
  allocate(&s);
  fillTags(&s);
  CHECK(run(&s), "groups: %s", firstError(&s));
  for (uint32_t r = 0; r < 4; r++)
    CHECK(dstElement(&s, r, 0, 1) == tag(r % 2, 0, 1), "rank %u: %d", r,
          dstElement(&s, r, 0, 1));
  release(&s);
  report("broadcast: root 0 on 1, 2, 4, 8 ranks, root 1 in groups, in place", before);
}

/*--- Group modes ---------------------------------------------------------------*/

/* An all-gather of each rank's number shows its group in order: `want[r]`
 * lists rank r's members, -1 ending the list. */
static void checkGroups(const char *what, uint32_t ranks, uint32_t partitions, uint8_t mode,
                        const int64_t *ids, const uint32_t *groupSizes, uint32_t groups,
                        uint32_t groupSize, const int (*want)[8]) {
  Setup s;
  setup(&s, ranks, partitions, THUNKY_COLLECTIVE_ALL_GATHER, 0);
  s.collectives[0].groupMode = mode;
  for (uint32_t g = 0, at = 0; g < groups; at += groupSizes[g++])
    addGroup(&s, ids + at, groupSizes[g]);
  addBuffer(&s, THUNKY_TYPE_S32, 1, groupSize);
  allocate(&s);
  for (uint32_t r = 0; r < ranks; r++)
    *(int32_t *)srcOf(&s, r, 0) = (int32_t)r;
  bool ok = run(&s);
  CHECK(ok, "%s: %s", what, firstError(&s));
  for (uint32_t r = 0; ok && r < ranks; r++)
    for (uint32_t m = 0; m < groupSize; m++)
      CHECK(dstElement(&s, r, 0, m) == want[r][m], "%s: rank %u member %u is %d, want %d",
            what, r, m, dstElement(&s, r, 0, m), want[r][m]);
  release(&s);
}

/* 8 ranks as 4 replicas of 2 partitions: rank = replica * 2 + partition. */
static void testGroupModes(void) {
  int before = failures;
  enum { CR = 0, CP = 1, CRP = 2, FLAT = 3 };
  checkGroups("cross-replica, all", 8, 2, CR, NULL, NULL, 0, 4,
              (const int[][8]){{0, 2, 4, 6},
                               {1, 3, 5, 7},
                               {0, 2, 4, 6},
                               {1, 3, 5, 7},
                               {0, 2, 4, 6},
                               {1, 3, 5, 7},
                               {0, 2, 4, 6},
                               {1, 3, 5, 7}});
  checkGroups(
      "cross-replica, {0,1},{3,2}", 8, 2, CR, (const int64_t[]){0, 1, 3, 2},
      (const uint32_t[]){2, 2}, 2, 2,
      (const int[][8]){{0, 2}, {1, 3}, {0, 2}, {1, 3}, {6, 4}, {7, 5}, {6, 4}, {7, 5}});
  checkGroups(
      "cross-partition, all", 8, 2, CP, NULL, NULL, 0, 2,
      (const int[][8]){{0, 1}, {0, 1}, {2, 3}, {2, 3}, {4, 5}, {4, 5}, {6, 7}, {6, 7}});
  checkGroups(
      "cross-partition, {1,0}", 8, 2, CP, (const int64_t[]){1, 0}, (const uint32_t[]){2}, 1,
      2, (const int[][8]){{1, 0}, {1, 0}, {3, 2}, {3, 2}, {5, 4}, {5, 4}, {7, 6}, {7, 6}});
  checkGroups("cross-replica-and-partition, {1,0},{2,3}", 8, 2, CRP,
              (const int64_t[]){1, 0, 2, 3}, (const uint32_t[]){2, 2}, 2, 4,
              (const int[][8]){{2, 3, 0, 1},
                               {2, 3, 0, 1},
                               {2, 3, 0, 1},
                               {2, 3, 0, 1},
                               {4, 5, 6, 7},
                               {4, 5, 6, 7},
                               {4, 5, 6, 7},
                               {4, 5, 6, 7}});
  checkGroups("flattened ids, {0,3,5,6},{7,1,2,4}", 8, 2, FLAT,
              (const int64_t[]){0, 3, 5, 6, 7, 1, 2, 4}, (const uint32_t[]){4, 4}, 2, 4,
              (const int[][8]){{0, 3, 5, 6},
                               {7, 1, 2, 4},
                               {7, 1, 2, 4},
                               {0, 3, 5, 6},
                               {7, 1, 2, 4},
                               {0, 3, 5, 6},
                               {0, 3, 5, 6},
                               {7, 1, 2, 4}});
  checkGroups("replica groups {0,1},{2,3} on 4 ranks", 4, 1, CR,
              (const int64_t[]){0, 1, 2, 3}, (const uint32_t[]){2, 2}, 2, 2,
              (const int[][8]){{0, 1}, {0, 1}, {2, 3}, {2, 3}});

  /* Collective-permute ids by mode, on 2 replicas of 2 partitions. */
  for (uint8_t mode = CR; mode <= CP; mode++) {
    Setup s;
    setup(&s, 4, 2, THUNKY_COLLECTIVE_PERMUTE, 0);
    s.collectives[0].groupMode = mode;
    addPair(&s, 0, 1);
    addBuffer(&s, THUNKY_TYPE_S32, 1, 1);
    allocate(&s);
    fillTags(&s);
    CHECK(run(&s), "permute mode %u: %s", mode, firstError(&s));
    /* Cross-replica: replica 0 -> 1 in each partition (0 -> 2, 1 -> 3);
     * cross-partition: partition 0 -> 1 in each replica (0 -> 1, 2 -> 3). */
    static const int sources[2][4] = {{-1, -1, 0, 1}, {-1, 0, -1, 2}};
    for (uint32_t r = 0; r < 4; r++) {
      int source = sources[mode][r];
      CHECK(dstElement(&s, r, 0, 0) == (source < 0 ? 0 : tag((uint32_t)source, 0, 0)),
            "permute mode %u: rank %u got %d", mode, r, dstElement(&s, r, 0, 0));
    }
    release(&s);
  }
  report("group modes: cross-replica, cross-partition, both, flattened; permute ids",
         before);
}

/*--- The world at once -------------------------------------------------------------*/

static uint64_t nextRandom(uint64_t *state) { /* splitmix64 */
  uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* Random groups or pairs for s's collective: about half split the ids of
 * the mode's space (`count` of them) into groups, the rest are drawn with
 * repeats, gaps and ids out of range. */
static void randomIds(Setup *s, uint64_t *rng, int64_t count, bool pairs) {
  int64_t order[MAX_RANKS];
  for (int64_t i = 0; i < count; i++)
    order[i] = i;
  for (int64_t i = count - 1; i > 0; i--) {
    int64_t j = (int64_t)(nextRandom(rng) % (uint64_t)(i + 1)), t = order[i];
    order[i] = order[j], order[j] = t;
  }
  bool split = nextRandom(rng) % 2;
  for (int64_t at = 0; at < count || (!split && at < 8);) {
    int64_t n = 1 + (int64_t)(nextRandom(rng) % 4), ids[4];
    for (int64_t i = 0; i < n; i++)
      ids[i] = split && at + i < count ? order[at + i]
                                       : (int64_t)(nextRandom(rng) % (uint64_t)(count + 2)) - 1;
    if (pairs)
      addPair(s, ids[0], ids[n > 1 ? 1 : 0]);
    else
      addGroup(s, ids, split && at + n > count ? (uint32_t)(count - at) : (uint32_t)n);
    at += pairs ? 1 : n;
    if (!split && nextRandom(rng) % 3 == 0)
      break;
  }
}

/* thunkyWorldGroupsCreate and thunkyWorldPermuteSources against the
 * per-rank calls they stand for: the same success, the same groups, in
 * the same order, and the same sources. */
static void testWorldAtOnce(void) {
  int before = failures;
  uint64_t rng = 1;
  uint32_t agreedFailing = 0, agreedSucceeding = 0;
  for (int trial = 0; trial < 20000; trial++) {
    uint32_t ranks = 1 + (uint32_t)(nextRandom(&rng) % MAX_RANKS), partitions;
    do
      partitions = 1 + (uint32_t)(nextRandom(&rng) % ranks);
    while (ranks % partitions);
    uint8_t mode = (uint8_t)(nextRandom(&rng) % 5); /* 4: no such mode */
    bool permute = nextRandom(&rng) % 3 == 0;
    int64_t count = mode == 1 ? partitions : mode == 3 ? ranks : ranks / partitions;
    Setup s;
    setup(&s, ranks, partitions, permute ? THUNKY_COLLECTIVE_PERMUTE : THUNKY_COLLECTIVE_ALL_REDUCE,
          0);
    ThunkyCollective *c = current(&s);
    c->groupMode = mode;
    if (nextRandom(&rng) % 8)
      randomIds(&s, &rng, count, permute);
    ThunkyError error = {{0}};
    bool everyRank = true;
    uint32_t members[MAX_RANKS][MAX_RANKS], sizes[MAX_RANKS], positions[MAX_RANKS],
        sources[MAX_RANKS];
    uint8_t seen[MAX_RANKS] = {0};
    for (uint32_t r = 0; r < ranks && everyRank; r++)
      everyRank = permute ? thunkyPermuteSource(&s.plan, c, ranks, partitions, r, &sources[r],
                                                &error)
                          : thunkyReplicaGroup(&s.plan, c, ranks, partitions, r, members[r], seen,
                                               &sizes[r], &positions[r], &error);
    if (permute) {
      uint32_t world[MAX_RANKS];
      bool ok = thunkyWorldPermuteSources(&s.plan, c, ranks, partitions, world, &error);
      CHECK(ok == everyRank, "trial %d: permute, world %d, every rank %d: %s", trial, ok,
            everyRank, error.message);
      for (uint32_t r = 0; ok && everyRank && r < ranks; r++)
        CHECK(world[r] == sources[r], "trial %d: rank %u's source %u, not %u", trial, r,
              world[r], sources[r]);
      ok ? agreedSucceeding++ : agreedFailing++;
      continue;
    }
    ThunkyWorldGroups world;
    bool ok = thunkyWorldGroupsCreate(&s.plan, c, ranks, partitions, &world, &error);
    CHECK(ok == everyRank, "trial %d: groups, world %d, every rank %d: %s", trial, ok, everyRank,
          error.message);
    if (ok && everyRank) {
      CHECK(world.starts[world.numGroups] == ranks, "trial %d: %u ranks listed", trial,
            world.starts[world.numGroups]);
      for (uint32_t g = 0; g < world.numGroups; g++)
        for (uint32_t i = world.starts[g]; i < world.starts[g + 1]; i++) {
          uint32_t r = world.members[i], n = world.starts[g + 1] - world.starts[g];
          CHECK(sizes[r] == n && positions[r] == i - world.starts[g] &&
                    !memcmp(members[r], &world.members[world.starts[g]], n * sizeof(uint32_t)),
                "trial %d: rank %u's group differs", trial, r);
        }
    }
    ok ? agreedSucceeding++ : agreedFailing++;
    thunkyWorldGroupsClear(&world);
  }
  /* Both outcomes must be common, or the comparison proves little. */
  CHECK(agreedFailing > 2000 && agreedSucceeding > 2000, "%u failing, %u succeeding",
        agreedFailing, agreedSucceeding);
  report("the world's groups and permute sources at once, as each rank finds them", before);
}

/*--- Errors ----------------------------------------------------------------------*/

static void testErrors(void) {
  int before = failures;
  Setup s;

  setup(&s, 2, 1, THUNKY_COLLECTIVE_ALL_REDUCE, THUNKY_REDUCE_SUM);
  addBuffer(&s, THUNKY_TYPE_F32, 4, 4);
  s.buffers[0].dst.size = 12;
  allocate(&s);
  CHECK(!run(&s) && failedWith(&s, 0,
                               "collective 0 (all-reduce): buffer 0: destination is "
                               "12 bytes, expected 16"),
        "%s", s.errors[0].message);
  release(&s);

  setup(&s, 2, 1, THUNKY_COLLECTIVE_ALL_GATHER, 0);
  addBuffer(&s, THUNKY_TYPE_S32, 4, 8);
  s.buffers[0].elementCount = 3;
  allocate(&s);
  CHECK(!run(&s) && failedWith(&s, 1, "buffer 0: source is 16 bytes, not 3 s32 elements"),
        "%s", s.errors[1].message);
  release(&s);

  setup(&s, 4, 1, THUNKY_COLLECTIVE_REDUCE_SCATTER, THUNKY_REDUCE_SUM);
  addBuffer(&s, THUNKY_TYPE_S32, 6, 1);
  allocate(&s);
  CHECK(!run(&s) && failedWith(&s, 0, "6 elements do not split among 4 ranks"), "%s",
        s.errors[0].message);
  release(&s);

  setup(&s, 4, 1, THUNKY_COLLECTIVE_ALL_REDUCE, THUNKY_REDUCE_SUM);
  GROUP(&s, 0, 1);
  GROUP(&s, 2);
  addBuffer(&s, THUNKY_TYPE_S32, 1, 1);
  allocate(&s);
  CHECK(!run(&s) && failedWith(&s, 3,
                               "collective 0 (all-reduce): rank 3 (replica 3, "
                               "partition 0) is in no replica group"),
        "%s", s.errors[3].message);
  CHECK(failedWith(&s, 0, "another rank failed"), "rank 0: %s", s.errors[0].message);
  release(&s);

  setup(&s, 2, 1, THUNKY_COLLECTIVE_ALL_REDUCE, THUNKY_REDUCE_SUM);
  GROUP(&s, 0, 1);
  GROUP(&s, 1);
  addBuffer(&s, THUNKY_TYPE_S32, 1, 1);
  allocate(&s);
  CHECK(!run(&s) && failedWith(&s, 1,
                               "rank 1 (replica 1, partition 0) is in replica group 0 "
                               "and again in 1"),
        "%s", s.errors[1].message);
  release(&s);

  setup(&s, 2, 1, THUNKY_COLLECTIVE_ALL_REDUCE, THUNKY_REDUCE_SUM);
  GROUP(&s, 0, 1, 1);
  addBuffer(&s, THUNKY_TYPE_S32, 1, 1);
  allocate(&s);
  CHECK(!run(&s) && failedWith(&s, 0, "replica group 0 names an id twice"), "%s",
        s.errors[0].message);
  release(&s);

  setup(&s, 2, 1, THUNKY_COLLECTIVE_ALL_GATHER, 0);
  GROUP(&s, 0, 2);
  addBuffer(&s, THUNKY_TYPE_S32, 1, 2);
  allocate(&s);
  CHECK(!run(&s) && failedWith(&s, 0, "replica group 0 holds id 2, outside [0, 2)"), "%s",
        s.errors[0].message);
  release(&s);

  setup(&s, 2, 1, THUNKY_COLLECTIVE_ALL_REDUCE, THUNKY_REDUCE_SUM);
  addBuffer(&s, THUNKY_TYPE_S32, 1, 1);
  s.buffers[0].elementType = THUNKY_TYPE_S4;
  allocate(&s);
  CHECK(!run(&s) && failedWith(&s, 0, "buffer 0: element type s4 is not supported"), "%s",
        s.errors[0].message);
  release(&s);

  setup(&s, 2, 1, THUNKY_COLLECTIVE_ALL_REDUCE, THUNKY_REDUCE_MAX);
  addBuffer(&s, THUNKY_TYPE_F8E4M3FNUZ, 4, 4);
  allocate(&s);
  CHECK(!run(&s) && failedWith(&s, 0, "element type f8e4m3fnuz cannot be reduced"), "%s",
        s.errors[0].message);
  release(&s);

  setup(&s, 2, 1, THUNKY_COLLECTIVE_ALL_REDUCE, THUNKY_REDUCE_MIN);
  addBuffer(&s, THUNKY_TYPE_C64, 2, 2);
  allocate(&s);
  CHECK(!run(&s) && failedWith(&s, 1,
                               "collective 0 (all-reduce): buffer 0: min of complex "
                               "element type c64 is not defined"),
        "%s", s.errors[1].message);
  release(&s);

  setup(&s, 2, 1, THUNKY_COLLECTIVE_ALL_TO_ALL, 0);
  addBuffer(&s, THUNKY_TYPE_S32, 1, 1);
  allocate(&s);
  CHECK(!run(&s) && failedWith(&s, 0, "1 buffers for a group of 2 ranks"), "%s",
        s.errors[0].message);
  release(&s);

  setup(&s, 4, 1, THUNKY_COLLECTIVE_PERMUTE, 0);
  addPair(&s, 0, 1);
  addPair(&s, 2, 1);
  addBuffer(&s, THUNKY_TYPE_S32, 1, 1);
  allocate(&s);
  CHECK(!run(&s) && failedWith(&s, 1, "id 1 is the target of two pairs"), "%s",
        s.errors[1].message);
  release(&s);

  setup(&s, 2, 1, THUNKY_COLLECTIVE_BROADCAST, 0);
  s.collectives[0].root = 2;
  addBuffer(&s, THUNKY_TYPE_S32, 1, 1);
  allocate(&s);
  CHECK(!run(&s) && failedWith(&s, 0, "root 2 is outside the group of 2 ranks"), "%s",
        s.errors[0].message);
  release(&s);

  setup(&s, 2, 1, THUNKY_COLLECTIVE_ALL_GATHER, 0);
  s.collectives[0].groupMode = 7;
  addBuffer(&s, THUNKY_TYPE_S32, 1, 2);
  allocate(&s);
  CHECK(!run(&s) && failedWith(&s, 0, "unknown group mode 7"), "%s", s.errors[0].message);
  release(&s);

  ThunkyError e = {{0}};
  CHECK(!thunkyHostWorldCreate(6, 4, &e) && strstr(e.message, "6 ranks"), "%s", e.message);
  CHECK(!thunkyHostWorldCreate(0, 1, &e), "no ranks");
  report("errors: sizes, groups, types, complex min, pairs, root, mode", before);
}

/* Ranks that call different collectives, or not at all. */
static void testDivergence(void) {
  int before = failures;
  Setup s;
  setup(&s, 2, 1, THUNKY_COLLECTIVE_ALL_REDUCE, THUNKY_REDUCE_SUM);
  addBuffer(&s, THUNKY_TYPE_S32, 1, 1);
  addCollective(&s, THUNKY_COLLECTIVE_BROADCAST, 0);
  addBuffer(&s, THUNKY_TYPE_S32, 1, 1);
  allocate(&s);

  /* Rank 0 at collective 0, rank 1 at collective 1. */
  ThunkyError e = {{0}};
  ThunkyHostWorld *world = thunkyHostWorldCreate(2, 1, &e);
  static const uint32_t second = 1;
  RankRun pattern = {.iterations = 1, .order = &second, .orderLength = 1};
  pthread_t thread;
  RankRun one = pattern;
  one.setup = &s, one.world = world, one.rank = 1;
  pthread_create(&thread, NULL, rankMain, &one);
  ThunkyError zero = {{0}};
  uint8_t *memory[2] = {s.memory[0][0], s.memory[0][1]};
  bool ok = thunkyHostCollective(world, 0, &s.plan, 0, memory, &zero);
  pthread_join(thread, NULL);
  CHECK(!ok && strstr(zero.message, "rank 1 is at collective 1 (diverging control flow)"),
        "%s", zero.message);
  CHECK(!s.ok[1] && strstr(s.errors[1].message, "rank 0 is at collective 0"), "%s",
        s.errors[1].message);

  /* The world is aborted until reset; then it works again. */
  CHECK(!thunkyHostCollective(world, 0, &s.plan, 0, memory, &zero) &&
            strstr(zero.message, "another rank failed"),
        "%s", zero.message);
  thunkyHostWorldReset(world);
  CHECK(runWith(&s, world, NULL), "after reset: %s", firstError(&s));

  /* Rank 1 never comes: rank 0 times out. */
  thunkyHostWorldSetTimeout(world, 50);
  ok = thunkyHostCollective(world, 0, &s.plan, 0, memory, &zero);
  CHECK(!ok && strstr(zero.message, "collective 0 (all-reduce): ranks did not all reach "
                                    "collective 0 within 50 ms (deadlock or diverging "
                                    "control flow)"),
        "%s", zero.message);
  thunkyHostWorldReset(world);

  /* An abort from outside releases a waiting rank. */
  thunkyHostWorldSetTimeout(world, 60000);
  pattern = (RankRun){.iterations = 1, .setup = &s, .world = world, .rank = 1};
  pthread_create(&thread, NULL, rankMain, &pattern);
  nanosleep(&(struct timespec){0, 20 * 1000000L}, NULL);
  thunkyHostWorldAbort(world, UINT32_MAX);
  pthread_join(thread, NULL);
  CHECK(!s.ok[1] && strstr(s.errors[1].message, "another rank failed"), "%s",
        s.errors[1].message);

  /* The barrier. */
  thunkyHostWorldReset(world);
  thunkyHostWorldSetTimeout(world, 50);
  CHECK(!thunkyHostWorldBarrier(world, &zero) &&
            strstr(zero.message, "barrier: ranks did not all reach the barrier"),
        "%s", zero.message);
  thunkyHostWorldDestroy(world);

  world = thunkyHostWorldCreate(1, 1, &e);
  CHECK(thunkyHostWorldBarrier(world, &zero), "one rank's barrier");
  CHECK(!thunkyHostCollective(world, 0, &s.plan, 5, memory, &zero) &&
            strstr(zero.message, "collective 5 of 2"),
        "%s", zero.message);
  thunkyHostWorldDestroy(world);
  release(&s);
  report("divergence, timeout, abort, reset, barrier", before);
}

int main(void) {
  testElementBytes();
  testSmallFloatValues();
  testSmallFloatExhaustive();
  testReduceOperators();
  testAllReduce();
  testAllReduceRoundsEachStep();
  testInPlace();
  testAllGather();
  testReduceScatter();
  testAllToAll();
  testPermute();
  testBroadcast();
  testGroupModes();
  testWorldAtOnce();
  testErrors();
  testDivergence();
  printf("%s: %d failures\n", failures ? "FAILED" : "passed", failures);
  return failures != 0;
}
