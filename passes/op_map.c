/*===- op_map.c - open-addressing hash map ------------------------------===*/
#include "op_map.h"

#include <stdlib.h>

struct ThunkyOpMapSlot {
  ThunkyOpMapKey key;
  void *value; /* NULL: empty slot */
};

static size_t hashKey(ThunkyOpMapKey k) {
  uint64_t h = (uint64_t)(uintptr_t)k.object * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t)k.a + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
  h ^= (uint64_t)k.b + 0x8CB92BA72F3D8DD7ull + (h << 6) + (h >> 2);
  return (size_t)(h ^ (h >> 29));
}

static bool equal(ThunkyOpMapKey x, ThunkyOpMapKey y) {
  return x.object == y.object && x.a == y.a && x.b == y.b;
}

static struct ThunkyOpMapSlot *find(struct ThunkyOpMapSlot *slots, size_t capacity,
                                    ThunkyOpMapKey key) {
  size_t i = hashKey(key) & (capacity - 1);
  while (slots[i].value && !equal(slots[i].key, key))
    i = (i + 1) & (capacity - 1);
  return &slots[i];
}

void *thunkyOpMapGet(const ThunkyOpMap *map, ThunkyOpMapKey key) {
  return map->capacity ? find(map->slots, map->capacity, key)->value : NULL;
}

bool thunkyOpMapPut(ThunkyOpMap *map, ThunkyOpMapKey key, void *value) {
  if (2 * (map->count + 1) > map->capacity) {
    size_t capacity = map->capacity ? 2 * map->capacity : 64;
    struct ThunkyOpMapSlot *slots = calloc(capacity, sizeof *slots);
    if (!slots)
      return false;
    for (size_t i = 0; i < map->capacity; ++i)
      if (map->slots[i].value)
        *find(slots, capacity, map->slots[i].key) = map->slots[i];
    free(map->slots);
    map->slots = slots;
    map->capacity = capacity;
  }
  struct ThunkyOpMapSlot *slot = find(map->slots, map->capacity, key);
  map->count += slot->value == NULL;
  *slot = (struct ThunkyOpMapSlot){key, value};
  return true;
}

void thunkyOpMapClear(ThunkyOpMap *map) {
  free(map->slots);
  *map = (ThunkyOpMap){0};
}
