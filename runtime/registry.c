/*===- registry.c - kernels and custom calls by name ----------------------===*
 *
 * A flat array searched linearly: backends look each name up once, when
 * they are created, never while running.
 *
 *===--------------------------------------------------------------------===*/
#include "registry.h"

#include <stdlib.h>
#include <string.h>

struct ThunkyRegistry {
  ThunkyRegistryEntry *entries;
  size_t count, capacity;
};

ThunkyRegistry *thunkyRegistryCreate(void) { return calloc(1, sizeof(ThunkyRegistry)); }

void thunkyRegistryFree(ThunkyRegistry *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->count; i++)
    free(r->entries[i].name);
  free(r->entries);
  free(r);
}

static ThunkyRegistryEntry *add(ThunkyRegistry *r, const char *backend, const char *name) {
  if (strlen(backend) >= sizeof r->entries[0].backend)
    return NULL;
  if (r->count == r->capacity) {
    size_t capacity = r->capacity ? r->capacity * 2 : 16;
    ThunkyRegistryEntry *grown = realloc(r->entries, capacity * sizeof *grown);
    if (!grown)
      return NULL;
    r->entries = grown, r->capacity = capacity;
  }
  ThunkyRegistryEntry *e = &r->entries[r->count];
  memset(e, 0, sizeof *e);
  size_t length = strlen(name);
  if (!(e->name = malloc(length + 1)))
    return NULL;
  memcpy(e->name, name, length + 1);
  strcpy(e->backend, backend);
  r->count++;
  return e;
}

bool thunkyRegistryAddHostKernel(ThunkyRegistry *r, const char *name, ThunkyHostKernelFn fn,
                                 void *userData) {
  ThunkyRegistryEntry *e = add(r, "host", name);
  if (e)
    e->isKernel = true, e->kernel = fn, e->userData = userData;
  return e != NULL;
}

bool thunkyRegistryAddCustomCall(ThunkyRegistry *r, const char *backend, const char *target,
                                 ThunkyCustomCallFn fn, void *userData) {
  ThunkyRegistryEntry *e = add(r, backend, target);
  if (e)
    e->customCall = fn, e->userData = userData;
  return e != NULL;
}

const ThunkyRegistryEntry *thunkyRegistryFind(const ThunkyRegistry *r, const char *backend,
                                              bool isKernel, ThunkyBytes name) {
  /* The last registration of a name wins, so a library can override. */
  for (size_t i = r ? r->count : 0; i-- > 0;) {
    const ThunkyRegistryEntry *e = &r->entries[i];
    if (e->isKernel == isKernel && !strcmp(e->backend, backend) &&
        strlen(e->name) == name.size && !memcmp(e->name, name.data, name.size))
      return e;
  }
  return NULL;
}
