/*===- registry.c - kernels, custom calls and globals by name --------------===*
 *
 * Entries in registration order, and a hash table over them: backends look
 * every kernel name up once when they are created, and an executable can
 * launch tens of thousands of distinct kernels.
 *
 *===--------------------------------------------------------------------===*/
#include "registry.h"

#include "thunky-c/base/Arena.h"

#include <stdlib.h>
#include <string.h>

struct ThunkyRegistry {
  ThunkyRegistryEntry *entries;
  size_t count, capacity;
  uint32_t *slots; /* entry index + 1, or 0 for empty; a power of two of them */
  size_t numSlots;
};

static uint64_t hashKey(const char *backend, bool isKernel, ThunkyBytes name) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)isKernel; /* FNV-1a */
  for (const char *c = backend; *c; c++)
    h = (h ^ (uint8_t)*c) * 1099511628211ull;
  for (size_t i = 0; i < name.size; i++)
    h = (h ^ name.data[i]) * 1099511628211ull;
  return h;
}

static bool matches(const ThunkyRegistryEntry *e, const char *backend, bool isKernel,
                    ThunkyBytes name) {
  return e->isKernel == isKernel && !strcmp(e->backend, backend) &&
         strlen(e->name) == name.size && !memcmp(e->name, name.data, name.size);
}

static ThunkyBytes nameOf(const ThunkyRegistryEntry *e) {
  return (ThunkyBytes){(const uint8_t *)e->name, strlen(e->name)};
}

/* The slot holding the key, or the empty slot where it would go. */
static size_t probe(const ThunkyRegistry *r, const char *backend, bool isKernel,
                    ThunkyBytes name) {
  size_t mask = r->numSlots - 1, i = (size_t)hashKey(backend, isKernel, name) & mask;
  while (r->slots[i] && !matches(&r->entries[r->slots[i] - 1], backend, isKernel, name))
    i = (i + 1) & mask;
  return i;
}

/* Points the table at entry `index`; a later entry with the same key
 * replaces the earlier one, so the last registration wins. */
static bool insertSlot(ThunkyRegistry *r, size_t index) {
  if (2 * (r->count + 1) > r->numSlots) {
    size_t numSlots = r->numSlots ? 2 * r->numSlots : 64;
    uint32_t *slots = calloc(numSlots, sizeof *slots);
    if (!slots)
      return false;
    free(r->slots);
    r->slots = slots, r->numSlots = numSlots;
    for (size_t i = 0; i < index; i++) {
      const ThunkyRegistryEntry *e = &r->entries[i];
      r->slots[probe(r, e->backend, e->isKernel, nameOf(e))] = (uint32_t)i + 1;
    }
  }
  const ThunkyRegistryEntry *e = &r->entries[index];
  r->slots[probe(r, e->backend, e->isKernel, nameOf(e))] = (uint32_t)index + 1;
  return true;
}

ThunkyRegistry *thunkyRegistryCreate(void) { return calloc(1, sizeof(ThunkyRegistry)); }

void thunkyRegistryDestroy(ThunkyRegistry *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->count; i++)
    free(r->entries[i].name);
  free(r->entries);
  free(r->slots);
  free(r);
}

static ThunkyRegistryEntry *add(ThunkyRegistry *r, const char *backend, const char *name,
                                bool isKernel) {
  if (strlen(backend) >= sizeof r->entries[0].backend)
    return NULL;
  if (!thunkyArrayGrow((void **)&r->entries, &r->capacity, r->count, sizeof *r->entries))
    return NULL;
  ThunkyRegistryEntry *e = &r->entries[r->count];
  memset(e, 0, sizeof *e);
  size_t length = strlen(name);
  if (!(e->name = malloc(length + 1)))
    return NULL;
  memcpy(e->name, name, length + 1);
  strcpy(e->backend, backend);
  e->isKernel = isKernel; /* part of the key */
  if (r->count >= UINT32_MAX - 1 || !insertSlot(r, r->count)) {
    free(e->name);
    return NULL;
  }
  r->count++;
  return e;
}

bool thunkyRegistryAddHostKernel(ThunkyRegistry *r, const char *name, ThunkyHostKernelFn fn,
                                 void *userData) {
  ThunkyRegistryEntry *e = add(r, "host", name, true);
  if (e)
    e->kernel = fn, e->userData = userData;
  return e != NULL;
}

bool thunkyRegistryAddHostGlobal(ThunkyRegistry *r, const char *name, void *data, size_t size) {
  ThunkyRegistryEntry *e = add(r, "global", name, false);
  if (e)
    e->globalSize = size, e->userData = data;
  return e != NULL;
}

bool thunkyRegistryGetHostGlobal(const ThunkyRegistry *r, const char *name, void **data,
                                 size_t *size) {
  const ThunkyRegistryEntry *e =
      thunkyRegistryFind(r, "global", false, (ThunkyBytes){(const uint8_t *)name, strlen(name)});
  if (e)
    *data = e->userData, *size = e->globalSize;
  return e != NULL;
}

bool thunkyRegistryAddCustomCall(ThunkyRegistry *r, const char *backend, const char *target,
                                 ThunkyCustomCallFn fn, void *userData) {
  ThunkyRegistryEntry *e = add(r, backend, target, false);
  if (e)
    e->customCall = fn, e->userData = userData;
  return e != NULL;
}

const ThunkyRegistryEntry *thunkyRegistryFind(const ThunkyRegistry *r, const char *backend,
                                              bool isKernel, ThunkyBytes name) {
  if (!r || !r->numSlots)
    return NULL;
  uint32_t slot = r->slots[probe(r, backend, isKernel, name)];
  return slot ? &r->entries[slot - 1] : NULL;
}

bool thunkyRegistryGetHostKernel(const ThunkyRegistry *r, const char *name,
                                 ThunkyHostKernelFn *fn, void **userData) {
  const ThunkyRegistryEntry *e =
      thunkyRegistryFind(r, "host", true, (ThunkyBytes){(const uint8_t *)name, strlen(name)});
  if (e)
    *fn = e->kernel, *userData = e->userData;
  return e != NULL;
}
