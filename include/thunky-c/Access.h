/*===- thunky-c/Access.h - which bytes an op reads and writes -----------===*
 *
 * The byte-range alias analysis thunky's rewrite passes share, for passes
 * of your own (docs/writing-a-pass.md). Every buffer value
 * resolves to (root, offset, size): its allocation (a @main argument or a
 * constant) and the bytes of it. Distinct roots never overlap, since XLA's
 * allocations are disjoint. An op's accesses are its operands' effects as
 * the dialect declares them (thunkyOpGetOperandEffects in thunky-c/Ops.h).
 * An op with regions accesses what its regions do;
 * async_done accesses what its async region does, since that region is in
 * flight until then.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_ACCESS_H
#define THUNKY_C_ACCESS_H

#include "thunky-c/Dialect.h"

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

/* Whether `op` is a func.func, whose arguments are allocations. */
MLIR_CAPI_EXPORTED bool thunkyIsFunction(MlirOperation op);

/* The attribute `name` (thunky.role, thunky.shape...) that `v`, a function
 * argument, carries in its function's arg_attrs; null when it has none. */
MLIR_CAPI_EXPORTED MlirAttribute thunkyArgumentAttribute(MlirValue v,
                                                         const char *name);

/* What a function argument holds, by the role import gives it
 * (docs/formats.md): a parameter, an output, both (an output XLA aliases to
 * its parameter), scratch or thread-local scratch. Passes read roles only
 * through this or thunkyValueGetAllocation, so the vocabulary has one
 * reader here. */
typedef enum ThunkyRole {
  THUNKY_ROLE_NONE, /* no role: export takes it for a parameter */
  THUNKY_ROLE_PARAMETER,
  THUNKY_ROLE_PARAMETER_OUTPUT,
  THUNKY_ROLE_OUTPUT,
  THUNKY_ROLE_SCRATCH,
  THUNKY_ROLE_THREAD_LOCAL_SCRATCH,
  THUNKY_ROLE_OTHER, /* a thunky.role string that is none of the above */
} ThunkyRole;

/* The older role text, a thunky.role string: "parameter N", "output {i}"
 * ("output i" for short, "output {}" for a result that is no tuple), both
 * ("parameter 0, output {0}"), "scratch" or "thread-local scratch". Sets
 * a's parameter, output index and role flags (thread-local: also
 * THUNKY_ALLOCATION_THREAD_LOCAL) of `a`, which starts as
 * thunkyAllocationEmpty() or more; false when `text` is none of them. */
MLIR_CAPI_EXPORTED bool thunkyRoleTextParse(MlirStringRef text, ThunkyAllocation *a);

/* What `v`, an @main argument or a thunky.constant's result, says about its
 * allocation: its #thunky.allocation whole, or what the older separate
 * attributes say (a thunky.role string, read as above and ignored when
 * unreadable; a thunky.shape type; a dictionary thunky.allocation's index,
 * its other fields left unread). False, and *out empty, when it carries
 * none of them. Borrowed as thunkyAllocationAttrGetValue's. */
MLIR_CAPI_EXPORTED bool thunkyValueGetAllocation(MlirValue v, ThunkyAllocation *out);

/* The role `a` declares. */
MLIR_CAPI_EXPORTED ThunkyRole thunkyAllocationRole(const ThunkyAllocation *a);

/* The role of `v` (as thunkyValueGetAllocation reads it) in the older
 * text ("parameter 0, output {1}", "thread-local scratch"), or a thunky.role
 * string that is none of the roles as written, into `text` (`size` bytes,
 * NUL-terminated, cut short if need be); false, and "", when it has none. */
MLIR_CAPI_EXPORTED bool thunkyValueGetRoleText(MlirValue v, char *text, size_t size);

/* The role of `v`, a function argument; THUNKY_ROLE_NONE for anything
 * else. */
MLIR_CAPI_EXPORTED ThunkyRole thunkyArgumentRole(MlirValue v);

/* Whether `v` is a function argument that import marked as scratch:
 * nothing reads it after the program ends. Any other argument may be an
 * output. */
MLIR_CAPI_EXPORTED bool thunkyIsScratchArgument(MlirValue v);

/* The kernel `op` (a ptx_kernel or call_thunk_proto) launches, or an empty
 * string: import names a call_thunk_proto of any other thunk "thunk". */
MLIR_CAPI_EXPORTED MlirStringRef thunkyKernelName(MlirOperation op);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_ACCESS_H */
