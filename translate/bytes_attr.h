/*===- bytes_attr.h - raw bytes import writes into a module -------------===*
 *
 * Import writes raw bytes (kernel binaries, the module's cubin and PTX, the
 * serialized HLO module and buffer assignment, big constants, any long
 * bytes or string field) as a string attribute when they are short, and as
 * an MLIR resource otherwise: `dense_resource<NAME> : tensor<Nxi8>`, its
 * bytes printed once in the `{-# dialect_resources: ... #-}` trailer of the
 * text and kept as a blob in bytecode, which MLIR reads back without a
 * copy. Export reads either form (thunkyAttributeGetBytes, thunky-c/dialect/Dialect.h).
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TRANSLATE_BYTES_ATTR_H
#define THUNKY_TRANSLATE_BYTES_ATTR_H

#include "thunky-c/base/HashMap.h"

#include "mlir-c/IR.h"

#include <stddef.h>

/* Values of at most this many bytes stay strings: a name, a shape, a small
 * thunk read best inline; anything longer is code or a payload nobody reads
 * as escaped text. docs/formats.md says the same. */
#define THUNKY_INLINE_BYTES_MAX 256

/* Names given out once each: "k", then "k_1", "k_2"... for the same base,
 * in a probe or two each however many share it. Zero-initialize. */
typedef struct ThunkyUniqueNames {
  ThunkyHashMap used; /* a given name's StringAttr -> 0 */
  ThunkyHashMap next; /* a base's StringAttr -> the last N given as base_N */
} ThunkyUniqueNames;

/* A name not given before, as a StringAttr; null when out of memory. */
MlirAttribute thunkyUniqueName(MlirContext ctx, ThunkyUniqueNames *names, MlirStringRef base);
void thunkyUniqueNamesDestroy(ThunkyUniqueNames *names);

/* The resources of one import: each distinct value becomes one resource,
 * however many fields hold it. Zero-initialize with its context; free with
 * thunkyBytesPoolDestroy (the resources stay: their context owns them). */
typedef struct ThunkyBytesPool {
  MlirContext ctx;
  ThunkyHashMap byContent; /* a value's hash (+ probes) -> its place in attrs */
  MlirAttribute *attrs;
  size_t count, capacity;
  ThunkyUniqueNames names;
  /* Values lying in [borrowBegin, borrowEnd) are used in place, not copied:
   * their owner keeps them for as long as the context lives. */
  const void *borrowBegin, *borrowEnd;
  struct ThunkyBytesBlock *block; /* see thunkyBytesPoolAdopt */
} ThunkyBytesPool;

/* The attribute for data[0, size): a string when short, else a resource
 * named after `name` (unique in the module) holding a copy the context
 * owns (or data itself, when it lies in the borrowed range). Null when out
 * of memory. */
MlirAttribute thunkyBytesAttr(ThunkyBytesPool *pool, const char *name, const void *data,
                              size_t size);
/* The same for `owned`, a malloc'd buffer the pool takes (and frees). */
MlirAttribute thunkyBytesAttrTake(ThunkyBytesPool *pool, const char *name, void *owned,
                                  size_t size);
/* Values lying in `block` (malloc'd, taken) are used in place too: the
 * block lives until the pool and every resource in it are gone. False
 * (the block freed) when out of memory. */
bool thunkyBytesPoolAdopt(ThunkyBytesPool *pool, void *block, size_t size);
void thunkyBytesPoolDestroy(ThunkyBytesPool *pool);

#endif /* THUNKY_TRANSLATE_BYTES_ATTR_H */
