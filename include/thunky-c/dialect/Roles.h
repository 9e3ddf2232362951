/*===- thunky-c/dialect/Roles.h - what an @main argument holds ------------------===*
 *
 * The role import gives each allocation (docs/formats.md): a parameter, an
 * output, both, scratch or thread-local scratch, read from the argument's
 * #thunky.allocation or the older separate attributes. Part of the dialect:
 * import, export and the passes read roles only through these, so the
 * vocabulary has one reader.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_ROLES_H
#define THUNKY_C_ROLES_H

#include "thunky-c/dialect/Dialect.h"

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether `op` is a func.func, whose arguments are allocations. */
MLIR_CAPI_EXPORTED bool thunkyIsFunction(MlirOperation op);

/* The attribute `name` (thunky.role, thunky.shape...) that `v`, a function
 * argument, carries in its function's arg_attrs; null when it has none. */
MLIR_CAPI_EXPORTED MlirAttribute thunkyArgumentAttribute(MlirValue v,
                                                         const char *name);

/* What a function argument holds: a parameter, an output, both (an output
 * XLA aliases to its parameter), scratch or thread-local scratch. */
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

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_ROLES_H */
