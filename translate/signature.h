/*===- signature.h - the program shape and outputs @main's arguments give -===*
 *
 * Export writes the executable's program shape (its parameters and result)
 * and output_info_map from @main's arguments when thunky.executable does
 * not hold them (export_roles.c); import leaves them out of
 * thunky.executable exactly when this gives them back byte for byte
 * (import_executable.c). One derivation serves both, so they cannot drift.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TRANSLATE_SIGNATURE_H
#define THUNKY_TRANSLATE_SIGNATURE_H

#include "thunky-c/base/Arena.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/format/Executable.h"

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What one argument of @main says of the signature. */
typedef struct ThunkySignatureArg {
  bool parameter, output;
  int64_t number; /* the parameter's number */
  MlirStringRef name; /* the parameter's name; empty: none */
  size_t depth;   /* of the output's shape index */
  int64_t index[THUNKY_MAX_OUTPUT_DEPTH];
  MlirType shape;     /* the array it holds (shape_type.h); may be null */
  int64_t allocation; /* its allocation index */
  bool tupleTable;    /* a live-out tuple allocation that is no output: the result's index table */
} ThunkySignatureArg;

typedef Xla__Gpu__GpuExecutableProto__OutputInfoMapEntry ThunkyOutputEntry;

/* What allocation `a` declares: an entry parameter when it has no role,
 * its index and table flag left for the caller. */
ThunkySignatureArg thunkySignatureArgOf(const ThunkyAllocation *a);

/* What each argument of `entry` declares (thunkyValueGetAllocation), with
 * the index and flags of `allocations[i]`, its allocation, into out[i]. */
void thunkySignatureArgsOf(MlirBlock entry, const Xla__BufferAllocationProto *const *allocations,
                           size_t n, ThunkySignatureArg *out);

/* Writes the program shape's parameters (named when any of them has a
 * name) and result into *ps (made in
 * `arena` when null) when every parameter and output has a shape, the
 * parameters are numbered 0..n-1 once each, and the outputs are one array
 * ({}) or a tuple of arrays {0}..{k-1} (no result without outputs); else
 * leaves *ps as it is. False
 * only when out of memory or a shape has no XLA form (*why says which). */
bool thunkySignatureProgramShape(ThunkyArena *arena, const ThunkySignatureArg *args, size_t n,
                                 Xla__ProgramShapeProto **ps, const char **why);

/* XLA names every parameter or none: when `ps` has no names and some
 * parameter of `args` has one, gives ps->parameters their names ("" for one
 * without). False only when out of memory. */
bool thunkySignatureParameterNames(ThunkyArena *arena, const ThunkySignatureArg *args,
                                   size_t n, Xla__ProgramShapeProto *ps);

/* The output_info_map entry of an output at `depth`/`index` in `allocation`. */
ThunkyOutputEntry *thunkySignatureOutputEntry(ThunkyArena *arena, size_t depth,
                                              const int64_t *index, int64_t allocation);

/* Orders entries by shape index, as XLA lists them (for qsort). */
int thunkySignatureCompareEntries(const void *x, const void *y);

/* The output_info_map of `args`: each output's entry and, for a tuple
 * result, the root {} in its one index table; sorted, into *entries (from
 * `arena`, room for n + 1) and *count. False when out of memory. */
bool thunkySignatureOutputs(ThunkyArena *arena, const ThunkySignatureArg *args, size_t n,
                            ThunkyOutputEntry ***entries, size_t *count);

#endif /* THUNKY_TRANSLATE_SIGNATURE_H */
