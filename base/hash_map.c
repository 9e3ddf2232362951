/*===- hash_map.c - open addressing over 64-bit keys --------------------===*/
#include "thunky-c/base/HashMap.h"

#include <stdlib.h>

/* Keys are often small dense integers: mixing spreads them over the table. */
static size_t slotOf(uint64_t key, size_t capacity) {
  key ^= key >> 33;
  key *= UINT64_C(0xff51afd7ed558ccd);
  key ^= key >> 33;
  return (size_t)key & (capacity - 1);
}

bool thunkyHashMapGet(const ThunkyHashMap *map, uint64_t key, uint32_t *value) {
  if (!map->capacity)
    return false;
  for (size_t i = slotOf(key, map->capacity);; i = (i + 1) & (map->capacity - 1)) {
    if (map->values[i] == UINT32_MAX)
      return false;
    if (map->keys[i] == key)
      return *value = map->values[i], true;
  }
}

static void insert(uint64_t *keys, uint32_t *values, size_t capacity, uint64_t key,
                   uint32_t value, bool *added) {
  size_t i = slotOf(key, capacity);
  while (values[i] != UINT32_MAX && keys[i] != key)
    i = (i + 1) & (capacity - 1);
  *added = values[i] == UINT32_MAX;
  keys[i] = key, values[i] = value;
}

bool thunkyHashMapPut(ThunkyHashMap *map, uint64_t key, uint32_t value) {
  bool added;
  /* At most half full, so probes stay short. */
  if (2 * (map->count + 1) > map->capacity) {
    size_t capacity = map->capacity ? 2 * map->capacity : 16;
    uint64_t *keys = malloc(capacity * sizeof *keys);
    uint32_t *values = malloc(capacity * sizeof *values);
    if (!keys || !values) {
      free(keys), free(values);
      return false;
    }
    for (size_t i = 0; i < capacity; i++)
      values[i] = UINT32_MAX;
    for (size_t i = 0; i < map->capacity; i++)
      if (map->values[i] != UINT32_MAX)
        insert(keys, values, capacity, map->keys[i], map->values[i], &added);
    free(map->keys), free(map->values);
    map->keys = keys, map->values = values, map->capacity = capacity;
  }
  insert(map->keys, map->values, map->capacity, key, value, &added);
  map->count += added;
  return true;
}

void thunkyHashMapDestroy(ThunkyHashMap *map) {
  free(map->keys), free(map->values);
  *map = (ThunkyHashMap){0};
}
