/*===- thunky-c/base/Arena.h - one lifetime for many small allocations -----===*
 *
 * Import and export build and take apart many small protobuf-c messages.
 * They all come from one arena and are freed together, so code that clears
 * a field never has to free what it drops.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_ARENA_H
#define THUNKY_C_ARENA_H

#include "thunky-c/Export.h"

#include "thunky-c/base/Error.h"
#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ThunkyArena ThunkyArena;

/* A new empty arena, or NULL when out of memory. */
THUNKY_EXPORT ThunkyArena *thunkyArenaCreate(void);
/* Frees the arena and everything allocated from it. */
THUNKY_EXPORT void thunkyArenaDestroy(ThunkyArena *arena);
/* Frees everything allocated from the arena, which stays usable and keeps
 * one block of its memory: reading many messages one at a time does not
 * ask the system for fresh memory each time. */
THUNKY_EXPORT void thunkyArenaReset(ThunkyArena *arena);
/* size bytes, 16-aligned, zeroed; NULL when out of memory. */
THUNKY_EXPORT void *thunkyArenaAlloc(ThunkyArena *arena, size_t size);
/* A copy of data[0, size) in the arena (NULL when out of memory). */
THUNKY_EXPORT void *thunkyArenaCopy(ThunkyArena *arena, const void *data, size_t size);
/* A NUL-terminated copy of data[0, length) (data may be NULL when length is
 * 0, as an empty MLIR string's is); NULL when out of memory. */
THUNKY_EXPORT char *thunkyArenaString(ThunkyArena *arena, const char *data, size_t length);
/* The arena as a protobuf-c allocator (its free does nothing). */
THUNKY_EXPORT ProtobufCAllocator *thunkyArenaAllocator(ThunkyArena *arena);

/* Makes room for element `count` of an array of `size`-byte elements that
 * holds *capacity (a malloc'd *items, or NULL and 0), growing it
 * geometrically, as many steps as it takes: to add n elements to an array
 * of `used`, ask for element used + n - 1. Large arrays move to memory
 * asked to sit on huge pages. False, with nothing changed, when out of
 * memory. What the array held is kept; the new room is not zeroed. */
THUNKY_EXPORT bool thunkyArrayGrow(void **items, size_t *capacity, size_t count, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_ARENA_H */
