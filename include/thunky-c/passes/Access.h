/*===- thunky-c/passes/Access.h - which bytes an op reads and writes -----------===*
 *
 * The byte-range alias analysis thunky's rewrite passes share, for passes
 * of your own (docs/writing-a-pass.md). Every buffer value
 * resolves to (root, offset, size): its allocation (a @main argument or a
 * constant) and the bytes of it. Distinct roots never overlap, since XLA's
 * allocations are disjoint. An op's accesses are its operands' effects as
 * the dialect declares them (thunkyOpGetOperandEffects in thunky-c/dialect/Ops.h).
 * An op with regions accesses what its regions do;
 * async_done accesses what its async region does, since that region is in
 * flight until then.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_ACCESS_H
#define THUNKY_C_ACCESS_H

#include "thunky-c/dialect/Dialect.h"
/* Roles were declared here before thunky 0.3; passes that include only this
 * header keep them. */
#include "thunky-c/dialect/Roles.h"

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ThunkyByteRange {
  MlirValue root; /* a block argument or an op result that is not a slice */
  int64_t offset, size;
} ThunkyByteRange;

typedef struct ThunkyOpAccess {
  ThunkyByteRange bytes;
  bool write; /* else a read */
} ThunkyOpAccess;

/* A growable list the caller owns: zero-initialise it, fill it with
 * thunkyCollectAccesses, free it with thunkyAccessesClear. */
typedef struct ThunkyOpAccesses {
  ThunkyOpAccess *items;
  size_t count, capacity;
  bool outOfMemory;
} ThunkyOpAccesses;

/* The bytes a buffer value names. */
MLIR_CAPI_EXPORTED ThunkyByteRange thunkyResolveBytes(MlirValue buffer);

/* Whether two byte ranges share a byte. */
MLIR_CAPI_EXPORTED bool thunkyBytesOverlap(ThunkyByteRange a,
                                           ThunkyByteRange b);

/* Whether `outer` contains all of `inner`. */
MLIR_CAPI_EXPORTED bool thunkyBytesContain(ThunkyByteRange outer,
                                           ThunkyByteRange inner);

/* Appends the accesses of `op` (and of everything nested in it). */
MLIR_CAPI_EXPORTED void thunkyCollectAccesses(MlirOperation op,
                                              ThunkyOpAccesses *out);

/* Frees what `accesses` holds and empties it, ready to be filled again. */
MLIR_CAPI_EXPORTED void thunkyAccessesClear(ThunkyOpAccesses *accesses);

typedef void (*ThunkyAccessVisitor)(ThunkyByteRange bytes, bool write,
                                    void *userData);

/* Calls `visit` on each access of `op`, its writes before its reads, so that
 * what a kernel writes (and may read in place) counts as written at that
 * step; false when out of memory. */
MLIR_CAPI_EXPORTED bool thunkyVisitAccesses(MlirOperation op,
                                            ThunkyAccessVisitor visit,
                                            void *userData);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_ACCESS_H */
