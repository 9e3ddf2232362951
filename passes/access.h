/*===- access.h - which bytes an op reads and writes --------------------===*
 *
 * The byte-range alias analysis the rewrite passes share. Every buffer value
 * resolves to (root, offset, size): its allocation (a @main argument or a
 * constant) and the bytes of it. Distinct roots never overlap, since XLA's
 * allocations are disjoint. An op's accesses are its operands' effects as
 * the dialect declares them (thunkyOpGetOperandEffects in thunky-c/Ops.h).
 * An op with regions accesses what its regions do;
 * async_done accesses what its async region does, since that region is in
 * flight until then.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_PASSES_ACCESS_H
#define THUNKY_PASSES_ACCESS_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ThunkyBytes {
  MlirValue root; /* a block argument or an op result that is not a slice */
  int64_t offset, size;
} ThunkyBytes;

typedef struct ThunkyAccess {
  ThunkyBytes bytes;
  bool write; /* else a read */
} ThunkyAccess;

typedef struct ThunkyAccesses {
  ThunkyAccess *items;
  size_t count, capacity;
  bool outOfMemory;
} ThunkyAccesses;

/* The bytes a buffer value names. */
ThunkyBytes thunkyResolveBytes(MlirValue buffer);

/* Whether two byte ranges share a byte. */
bool thunkyBytesOverlap(ThunkyBytes a, ThunkyBytes b);

/* Whether `outer` contains all of `inner`. */
bool thunkyBytesContain(ThunkyBytes outer, ThunkyBytes inner);

/* Appends the accesses of `op` (and of everything nested in it). */
void thunkyCollectAccesses(MlirOperation op, ThunkyAccesses *out);

void thunkyAccessesClear(ThunkyAccesses *accesses);

typedef void (*ThunkyAccessVisitor)(ThunkyBytes bytes, bool write, void *userData);

/* Calls `visit` on each access of `op`, its writes before its reads, so that
 * what a kernel writes (and may read in place) counts as written at that
 * step; false when out of memory. */
bool thunkyVisitAccesses(MlirOperation op, ThunkyAccessVisitor visit, void *userData);

/* Whether `op` is a func.func, whose arguments are allocations. */
bool thunkyIsFunction(MlirOperation op);

/* The attribute `name` (thunky.role, thunky.shape...) that `v`, a function
 * argument, carries in its function's arg_attrs; null when it has none. */
MlirAttribute thunkyArgumentAttribute(MlirValue v, const char *name);

/* Whether `v` is a function argument that import marked as scratch
 * (thunky.role): nothing reads it after the program ends. Any other argument
 * may be an output. */
bool thunkyIsScratchArgument(MlirValue v);

/* The kernel `op` (a ptx_kernel or call_thunk_proto) launches, or an empty
 * string: import names a call_thunk_proto of any other thunk "thunk". */
MlirStringRef thunkyKernelName(MlirOperation op);

#endif /* THUNKY_PASSES_ACCESS_H */
