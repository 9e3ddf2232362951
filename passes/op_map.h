/*===- op_map.h - a small hash map for passes ---------------------------===*
 *
 * Passes look ops up by a key of up to three machine words (a value, an
 * offset, a size...). Open addressing, grows by doubling; keys and values
 * are plain pointers and integers, nothing is owned.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_PASSES_OP_MAP_H
#define THUNKY_PASSES_OP_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ThunkyOpMapKey {
  const void *object;
  int64_t a, b;
} ThunkyOpMapKey;

typedef struct ThunkyOpMap {
  struct ThunkyOpMapSlot *slots;
  size_t capacity, count;
} ThunkyOpMap;

/* The value stored for `key`, or NULL. */
void *thunkyOpMapGet(const ThunkyOpMap *map, ThunkyOpMapKey key);
/* Stores `value` for `key`; false when out of memory. `value` must not be
 * NULL: a NULL slot ends the probe for other keys (keys are never removed). */
bool thunkyOpMapPut(ThunkyOpMap *map, ThunkyOpMapKey key, void *value);
/* Frees the map's memory; it is empty and usable again afterwards. */
void thunkyOpMapClear(ThunkyOpMap *map);

#endif /* THUNKY_PASSES_OP_MAP_H */
