/*===- thunky-c/format/Executable.h - what a GpuExecutableProto holds ----------===*
 *
 * Import and the runtime's planner read the same structure out of an
 * executable: its allocations, the entry parameters in order, the outputs
 * and their subshapes, the constants and their bytes, the async regions and
 * how their starts and dones pair, and which slices every thunk reads and
 * writes. This is that one reading, with one set of checks and one wording
 * for each error, so the two can never disagree about a program.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_EXECUTABLE_H
#define THUNKY_C_EXECUTABLE_H

#include "thunky-c/Export.h"

#include "thunky-c/format/Container.h"
#include "thunky-c/base/Error.h"
#include "thunky-c/base/Limits.h"
#include "thunky-c/base/ThunkName.h"
#include "xla/backends/gpu/runtime/thunk.pb-c.h"
#include "xla/service/gpu/gpu_executable.pb-c.h"
#include "xla/util/split_proto/human_readable_aot_executable.pb-c.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef Xla__Gpu__GpuExecutableProto ThunkyExecutableProto;
typedef Xla__Gpu__ThunkProto ThunkyThunkProto;
typedef Xla__BufferAssignment__BufferAllocationSliceProto ThunkySlice;

/*--- what each thunk reads and writes ------------------------------------*/

typedef enum ThunkyAccess {
  THUNKY_ACCESS_READ = 1,
  THUNKY_ACCESS_WRITE = 2,
  THUNKY_ACCESS_READ_WRITE = 3, /* also: what the table does not know */
} ThunkyAccess;

typedef bool (*ThunkySliceVisitor)(ThunkySlice *slice, ThunkyAccess access, void *userData);

/* Visits every buffer slice of `msg` (a ThunkProto or a part of one) in
 * field order, with what the thunk does to its bytes: one table for every
 * thunk kind of the schema (a kernel's `written` flags, GEMM's beta, ...).
 * Thunks nested in control flow are visited when `nested`; allocation
 * tables of embedded executables never are. Stops at the first false. */
THUNKY_EXPORT bool thunkyForEachSlice(ProtobufCMessage *msg, bool nested, ThunkySliceVisitor visit,
                                      void *userData);

/*--- the executable ------------------------------------------------------*/

typedef struct ThunkyExecutableAllocation {
  const Xla__BufferAllocationProto *proto;
  uint64_t size;
  int64_t parameter;   /* entry parameter number, or -1 */
  bool isOutput;       /* an array output of the program lives here */
  int32_t constant;    /* index into constants[] of the constant placed here, or -1 */
  /* The first output's shape index, when isOutput; NULL otherwise. */
  const Xla__ShapeIndexProto *outputIndex;
  /* The logical array: the parameter's (sub)shape or the first output's
   * subshape, as the program shape says; NULL when it says nothing. */
  const Xla__ShapeProto *shape;
} ThunkyExecutableAllocation;

typedef struct ThunkyExecutableOutput {
  uint32_t allocation;
  const Xla__ShapeIndexProto *index; /* NULL: the result itself */
  const Xla__ShapeProto *shape;      /* NULL when the program shape says nothing */
} ThunkyExecutableOutput;

/* The allocation of a constant XLA placed in none (allocation_index -1):
 * it lives only in the module's global of its symbol_name, which XLA fills
 * anyway (gpu_executable.cc: ResolveConstantGlobals), for a kernel that
 * reads the global directly. */
#define THUNKY_NO_ALLOCATION UINT32_MAX

typedef struct ThunkyExecutableConstant {
  Xla__Gpu__GpuExecutableProto__ConstantInfoProto *proto;
  uint32_t allocation; /* or THUNKY_NO_ALLOCATION */
  ThunkyBytes bytes; /* its content, or its HLO literal's bytes (pred widened) */
  bool inProto;      /* the bytes are the proto's own content */
} ThunkyExecutableConstant;

typedef struct ThunkyExecutable {
  ThunkyContainer container;               /* the layers around the executable */
  ThunkyExecutableProto *proto;            /* owned; callers may clear its fields */
  Xla__HumanReadableAotExecutable *wrapper; /* XLA's golden wrapper around it, or NULL */

  ThunkyExecutableAllocation *allocations;
  uint32_t numAllocations;
  /* Allocations of entry parameters in (parameter number, parameter shape
   * index, allocation index) order. */
  uint32_t *parameters, numParameters;
  /* Array outputs in shape-index order (the result tuple's own entries are
   * left out). */
  ThunkyExecutableOutput *outputs;
  uint32_t numOutputs;
  /* Constants placed in an allocation, in the executable's order. */
  ThunkyExecutableConstant *constants;
  uint32_t numConstants;

  /* Distinct async execution ids; each start has a slot (dense, in order
   * of first start), and its done the same one. */
  uint32_t numAsyncSlots;
  uint64_t numThunks; /* nested ones counted */
  /* Deepest nesting of thunk lists (the entry is 1); a sequential thunk's
   * thunks are part of the list around it, as the plan flattens them. */
  uint32_t maxDepth;

  void *internal;
} ThunkyExecutable;

/* Reads `data[0, size)` in any container layering (or XLA's golden
 * wrapper), within `limits` (NULL: the defaults), and checks its
 * structure: every allocation and its size, parameters, outputs and their
 * shapes, constants and their bytes, every slice of every thunk against
 * its allocation, nesting, async pairing (each id started by one thunk,
 * each done after its start) and control-flow predicates. `data` must
 * outlive the executable. On failure *out is NULL and `error` says what
 * and where ("thunk 7 (loop_add_fusion): ..."). */
THUNKY_EXPORT bool thunkyExecutableCreate(const void *data, size_t size, const ThunkyLimits *limits,
                                          ThunkyExecutable **out, ThunkyError *error);
/* As thunkyExecutableCreate, but the top-level thunks stay in the wire
 * (proto->thunks is empty; a short executable may have them unpacked
 * anyway) until thunkyExecutableForEachThunk reads and checks them one at a
 * time, so memory stays that of the largest thunk rather than of all.
 * numThunks, numAsyncSlots and maxDepth are complete after one whole pass. */
THUNKY_EXPORT bool thunkyExecutableOpen(const void *data, size_t size, const ThunkyLimits *limits,
                                        ThunkyExecutable **out, ThunkyError *error);
THUNKY_EXPORT void thunkyExecutableDestroy(ThunkyExecutable *exe);

/* Called on each top-level thunk in order; `thunk` is borrowed and, from
 * an executable opened with thunkyExecutableOpen, lives only until the call
 * returns. Returns false, with `error` set, to stop. */
typedef bool (*ThunkyThunkVisit)(ThunkyThunkProto *thunk, void *userData, ThunkyError *error);
/* Visits the top-level thunks in order, reading each from the wire first
 * where it is still there. The first whole pass over an opened executable
 * checks every thunk as thunkyExecutableCreate does (thunks are numbered
 * depth first across the pass); false on the first failed check or visit. */
THUNKY_EXPORT bool thunkyExecutableForEachThunk(ThunkyExecutable *exe, ThunkyThunkVisit visit,
                                                void *userData, ThunkyError *error);
/* The block that holds the executable's long strings (its PTX, say), one
 * copy each; from now on the caller owns it (free it with free()) and
 * must keep it while the executable is used. Empty when there are none. */
THUNKY_EXPORT ThunkyBytes thunkyExecutableTakeStrings(ThunkyExecutable *exe);

/* The slot of async execution id `id`; false when no start has it. */
/* The code of custom kernel `c`: its own spec, or the entry of the
 * executable's kernel_specs its kernel_spec_index names (newer XLA keeps
 * each kernel's code once there); borrowed, NULL when it has none. */
THUNKY_EXPORT const StreamExecutor__KernelLoaderSpecProto *
thunkyCustomKernelSpec(const ThunkyExecutable *exe, const Xla__Gpu__CustomKernelProto *c);
THUNKY_EXPORT bool thunkyExecutableAsyncSlot(const ThunkyExecutable *exe, uint64_t id,
                                             uint32_t *slot);

/* How the bytes of a control-flow predicate read: a while loop's condition
 * is its slice's first byte, which must be a 1-byte pred or the low byte
 * of a 4-byte value (XLA reads one bool either way); a conditional's index
 * is a 1-byte pred choosing between two branches (true runs branch 0), or
 * an s32. THUNKY_PREDICATE_NONE is anything else: importable as an opaque
 * thunk, not runnable. */
typedef enum ThunkyPredicate {
  THUNKY_PREDICATE_NONE,
  THUNKY_PREDICATE_PRED, /* read byte 0 as a bool */
  THUNKY_PREDICATE_S32,  /* a conditional's branch index */
} ThunkyPredicate;
THUNKY_EXPORT ThunkyPredicate thunkyWhilePredicate(const Xla__Gpu__WhileThunkProto *w);
THUNKY_EXPORT ThunkyPredicate thunkyConditionalPredicate(const Xla__Gpu__ConditionalThunkProto *c);

/* Whether `kind`[0, length), the name of one of ThunkProto's impl fields
 * ("all_gather_thunk"), is a collective: its message carries a
 * CollectiveConfigProto, as every collective of XLA's does. False for a
 * name the schema does not have. Reads no proto, so passes may ask it of
 * the kind import records on a call_thunk_proto (thunky.thunk_kind). */
THUNKY_EXPORT bool thunkyThunkKindIsCollective(const char *kind, size_t length);

/* The executable XLA's golden-file wrapper holds, or NULL when `w` is not a
 * wrapper of a GPU executable with thunks or allocations (then the bytes
 * are better read as a bare executable). Borrowed from `w`. */
THUNKY_EXPORT Xla__Gpu__GpuExecutableProto *
thunkyGoldenExecutable(Xla__HumanReadableAotExecutable *w);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_EXECUTABLE_H */
