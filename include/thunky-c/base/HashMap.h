/*===- thunky-c/base/HashMap.h - maps from 64-bit keys, for linear time ------===*
 *
 * Whatever is looked up by id or by content (async execution ids,
 * allocation indices, kernel binaries, constants' symbols) goes through
 * one open-addressing map, so no crafted input makes a lookup cost more
 * than a few probes.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_HASH_MAP_H
#define THUNKY_C_HASH_MAP_H

#include "thunky-c/Export.h"
/* thunkyHashBytes was declared here before thunky 0.3. */
#include "thunky-c/base/Hash.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Zero-initialize; free with thunkyHashMapDestroy. */
typedef struct ThunkyHashMap {
  uint64_t *keys;
  uint32_t *values; /* UINT32_MAX: an empty slot */
  size_t count, capacity;
} ThunkyHashMap;

/* The value of `key`, or false when it has none. */
THUNKY_EXPORT bool thunkyHashMapGet(const ThunkyHashMap *map, uint64_t key, uint32_t *value);
/* Sets `key` to `value` (< UINT32_MAX), replacing any value it had; false
 * when out of memory. */
THUNKY_EXPORT bool thunkyHashMapPut(ThunkyHashMap *map, uint64_t key, uint32_t value);
/* Frees the map's memory and empties it. */
THUNKY_EXPORT void thunkyHashMapDestroy(ThunkyHashMap *map);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_HASH_MAP_H */
