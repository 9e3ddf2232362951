/*===- arena.c - bump allocator for translations -------------------------===*/
#include "thunky-c/base/Arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNK_SIZE = 64 * 1024, ALIGN = 16 };

typedef struct Chunk {
  struct Chunk *next;
  size_t used, capacity;
  _Alignas(16) unsigned char data[];
} Chunk;

struct ThunkyArena {
  ProtobufCAllocator allocator;
  Chunk *chunks;
};

static void *bump(ThunkyArena *arena, size_t size);

/* protobuf-c initializes or fills all it allocates: no zeroing, which for
 * the bytes of cubins would double the work. */
static void *allocatorAlloc(void *data, size_t size) { return bump(data, size); }

static void allocatorFree(void *data, void *pointer) {}

ThunkyArena *thunkyArenaCreate(void) {
  ThunkyArena *arena = calloc(1, sizeof *arena);
  if (!arena)
    return NULL;
  arena->allocator = (ProtobufCAllocator){allocatorAlloc, allocatorFree, arena};
  return arena;
}

void thunkyArenaDestroy(ThunkyArena *arena) {
  if (!arena)
    return;
  for (Chunk *c = arena->chunks, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  free(arena);
}

void thunkyArenaReset(ThunkyArena *arena) {
  if (!arena)
    return;
  Chunk *kept = NULL;
  for (Chunk *c = arena->chunks, *next; c; c = next) {
    next = c->next;
    if (!kept && c->capacity == CHUNK_SIZE)
      kept = c;
    else
      free(c);
  }
  if (kept)
    kept->used = 0, kept->next = NULL;
  arena->chunks = kept;
}

static void *bump(ThunkyArena *arena, size_t size) {
  if (size > SIZE_MAX - ALIGN - sizeof(Chunk))
    return NULL;
  size_t rounded = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
  Chunk *c = arena->chunks;
  if (!c || c->capacity - c->used < rounded) {
    /* Big requests get a chunk of their own, placed behind the current one
     * so that its free space keeps serving small requests. */
    size_t capacity = rounded > CHUNK_SIZE / 4 ? rounded : CHUNK_SIZE;
    Chunk *fresh = malloc(sizeof *fresh + capacity);
    if (!fresh)
      return NULL;
    fresh->used = 0;
    fresh->capacity = capacity;
    if (c && capacity != CHUNK_SIZE) {
      fresh->next = c->next;
      c->next = fresh;
    } else {
      fresh->next = c;
      arena->chunks = fresh;
    }
    c = fresh;
  }
  void *p = c->data + c->used;
  c->used += rounded;
  return p;
}

void *thunkyArenaAlloc(ThunkyArena *arena, size_t size) {
  void *p = bump(arena, size);
  if (p)
    memset(p, 0, size);
  return p;
}

void *thunkyArenaCopy(ThunkyArena *arena, const void *data, size_t size) {
  void *p = bump(arena, size ? size : 1);
  if (p && size)
    memcpy(p, data, size);
  return p;
}

char *thunkyArenaString(ThunkyArena *arena, const char *data, size_t length) {
  if (length == SIZE_MAX)
    return NULL;
  char *copy = bump(arena, length + 1);
  if (copy) {
    if (length)
      memcpy(copy, data, length);
    copy[length] = 0;
  }
  return copy;
}

ProtobufCAllocator *thunkyArenaAllocator(ThunkyArena *arena) {
  return &arena->allocator;
}
