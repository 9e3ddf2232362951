/*===- bytes_attr.c - raw bytes as strings or resources -----------------===*/
#include "bytes_attr.h"

#include "thunky-c/base/Arena.h"
#include "thunky-c/dialect/Dialect.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t keyOf(MlirAttribute a) { return (uint64_t)(uintptr_t)a.ptr; }

MlirAttribute thunkyUniqueName(MlirContext ctx, ThunkyUniqueNames *names, MlirStringRef base) {
  MlirAttribute baseAttr = mlirStringAttrGet(ctx, base), name = baseAttr;
  uint32_t unused;
  if (thunkyHashMapGet(&names->used, keyOf(name), &unused)) {
    /* Go on from the last base_N given, so that many values of one name
     * cost a probe or two each. */
    uint32_t next = 0;
    thunkyHashMapGet(&names->next, keyOf(baseAttr), &next);
    do {
      char candidate[320];
      snprintf(candidate, sizeof candidate, "%.*s_%" PRIu32,
               (int)(base.length < 256 ? base.length : 256), base.data, ++next);
      name = mlirStringAttrGet(ctx, mlirStringRefCreateFromCString(candidate));
    } while (thunkyHashMapGet(&names->used, keyOf(name), &unused));
    if (!thunkyHashMapPut(&names->next, keyOf(baseAttr), next))
      return mlirAttributeGetNull();
  }
  return thunkyHashMapPut(&names->used, keyOf(name), 0) ? name : mlirAttributeGetNull();
}

void thunkyUniqueNamesDestroy(ThunkyUniqueNames *names) {
  thunkyHashMapDestroy(&names->used);
  thunkyHashMapDestroy(&names->next);
}

static void freeBlob(void *userData, const void *data, size_t size, size_t align) {
  free(userData);
}

/* An adopted block, freed when the last of the pool and its resources
 * lets go of it. */
typedef struct ThunkyBytesBlock {
  char *data;
  size_t size, refs;
} ThunkyBytesBlock;

static void releaseBlock(ThunkyBytesBlock *b) {
  if (b && !--b->refs) {
    free(b->data);
    free(b);
  }
}

static void releaseBlob(void *userData, const void *data, size_t size, size_t align) {
  releaseBlock(userData);
}

bool thunkyBytesPoolAdopt(ThunkyBytesPool *pool, void *block, size_t size) {
  ThunkyBytesBlock *b = block ? malloc(sizeof *b) : NULL;
  if (!b) {
    free(block);
    return !block;
  }
  *b = (ThunkyBytesBlock){block, size, 1};
  pool->block = b;
  return true;
}

static bool inside(const void *data, size_t size, const void *begin, const void *end) {
  uintptr_t at = (uintptr_t)data;
  return begin && at >= (uintptr_t)begin && at <= (uintptr_t)end &&
         size <= (uintptr_t)end - at;
}

/* A key from the size and 16 samples of 8 bytes spread over the value:
 * hashing whole cubins cost import more than the rest of it. Distinct
 * values that agree there are told apart by a compare, and a value whose
 * sampled key has been taken SAMPLED_PROBES times goes on under the hash of
 * all its bytes, so no crafted input makes a lookup cost more than a few
 * compares. */
#define SAMPLES 16
#define SAMPLED_PROBES 4

static uint64_t sampledKey(const unsigned char *data, size_t size) {
  unsigned char samples[8 + SAMPLES * 8];
  uint64_t n = size;
  memcpy(samples, &n, 8);
  for (size_t i = 0; i < SAMPLES; ++i)
    memcpy(samples + 8 + 8 * i, data + (size - 8) / (SAMPLES - 1) * i, 8);
  return thunkyHashBytes(samples, sizeof samples);
}

/* The attribute already made for these bytes, or the key to enter them
 * under in *key. Each value has one path of keys, tried in order; values
 * are only ever added, so an equal one entered before lies on the path
 * before its first free key. */
static bool find(ThunkyBytesPool *pool, const void *data, size_t size, uint64_t *key,
                 MlirAttribute *found) {
  uint32_t at;
  *key = sampledKey(data, size);
  for (unsigned probes = 0; thunkyHashMapGet(&pool->byContent, *key, &at); ++probes) {
    MlirStringRef held;
    if (thunkyAttributeGetBytes(pool->attrs[at], &held) && held.length == size &&
        memcmp(held.data, data, size) == 0) {
      *found = pool->attrs[at];
      return true;
    }
    *key = probes == SAMPLED_PROBES ? thunkyHashBytes(data, size) : *key + 1;
  }
  return false;
}

/* How a new resource holds its bytes. */
typedef enum Holding { OWNED /* malloc'd, taken */, BORROWED, IN_BLOCK } Holding;

/* A new resource over `data`, entered under `key`. */
static MlirAttribute enter(ThunkyBytesPool *pool, const char *name, void *data, size_t size,
                           uint64_t key, Holding holding) {
  bool owned = holding == OWNED;
  if (!thunkyArrayGrow((void **)&pool->attrs, &pool->capacity, pool->count, sizeof *pool->attrs)) {
    if (owned)
      free(data);
    return mlirAttributeGetNull();
  }
  MlirAttribute unique = thunkyUniqueName(pool->ctx, &pool->names, mlirStringRefCreateFromCString(name));
  if (mlirAttributeIsNull(unique) ||
      !thunkyHashMapPut(&pool->byContent, key, (uint32_t)pool->count)) {
    if (owned)
      free(data);
    return mlirAttributeGetNull();
  }
  int64_t shape[1] = {(int64_t)size};
  MlirType type = mlirRankedTensorTypeGet(1, shape, mlirIntegerTypeGet(pool->ctx, 8),
                                          mlirAttributeGetNull());
  /* The context's resource manager owns a copy, or a hold on the block,
   * from here on. */
  if (holding == IN_BLOCK)
    ++pool->block->refs;
  MlirAttribute a = mlirUnmanagedDenseResourceElementsAttrGet(
      type, mlirStringAttrGetValue(unique), data, size, 1, false,
      owned ? freeBlob : holding == IN_BLOCK ? releaseBlob : NULL,
      owned ? data : holding == IN_BLOCK ? (void *)pool->block : NULL);
  pool->attrs[pool->count++] = a;
  return a;
}

MlirAttribute thunkyBytesAttr(ThunkyBytesPool *pool, const char *name, const void *data,
                              size_t size) {
  if (size <= THUNKY_INLINE_BYTES_MAX)
    return mlirStringAttrGet(pool->ctx, mlirStringRefCreate(data, size));
  uint64_t key;
  MlirAttribute found;
  if (find(pool, data, size, &key, &found))
    return found;
  if (inside(data, size, pool->borrowBegin, pool->borrowEnd))
    return enter(pool, name, (void *)(uintptr_t)data, size, key, BORROWED);
  if (pool->block && inside(data, size, pool->block->data, pool->block->data + pool->block->size))
    return enter(pool, name, (void *)(uintptr_t)data, size, key, IN_BLOCK);
  void *copy = malloc(size);
  if (!copy)
    return mlirAttributeGetNull();
  memcpy(copy, data, size);
  return enter(pool, name, copy, size, key, OWNED);
}

MlirAttribute thunkyBytesAttrTake(ThunkyBytesPool *pool, const char *name, void *owned,
                                  size_t size) {
  uint64_t key;
  MlirAttribute found;
  if (size > THUNKY_INLINE_BYTES_MAX && !find(pool, owned, size, &key, &found))
    return enter(pool, name, owned, size, key, OWNED);
  if (size <= THUNKY_INLINE_BYTES_MAX)
    found = mlirStringAttrGet(pool->ctx, mlirStringRefCreate(owned, size));
  free(owned);
  return found;
}

void thunkyBytesPoolDestroy(ThunkyBytesPool *pool) {
  thunkyHashMapDestroy(&pool->byContent);
  free(pool->attrs);
  thunkyUniqueNamesDestroy(&pool->names);
  releaseBlock(pool->block);
  *pool = (ThunkyBytesPool){.ctx = pool->ctx};
}
