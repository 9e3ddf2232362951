/*===- export.h - what the exporter's files share -----------------------===*
 *
 * Export builds the executable from @main: export_executable.c makes the
 * allocations, constants and the outer layers; export_thunks.c a thunk of
 * each first-class op (export_kernels.c those of launches, GEMMs and device
 * ids); export_opaque.c puts thunky.call_thunk_proto's thunks back;
 * export_sequential.c rebuilds the sequentials import flattened;
 * export_builder.c holds what all of them build with.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TRANSLATE_EXPORT_H
#define THUNKY_TRANSLATE_EXPORT_H

#include "executable_attrs.h"

#include "thunky-c/base/Arena.h"
#include "thunky-c/dialect/Diagnostics.h"
#include "thunky-c/format/Executable.h"
#include "thunky-c/base/HashMap.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef Xla__Gpu__GpuExecutableProto Executable;
typedef Xla__Gpu__ThunkProto Thunk;
typedef Xla__BufferAllocationProto Allocation;

/* Where a buffer value lives. */
typedef struct Place {
  int64_t allocation, offset, size;
} Place;

typedef struct Holder {
  MlirOperation op; /* a thunky.constant or an async_start */
  int64_t number;   /* its allocation index, or its async execution id */
} Holder;

typedef struct List {
  void **items;
  size_t count, capacity;
} List;

typedef struct Exporter {
  MlirContext ctx;
  ThunkyArena *arena;
  MlirBlock entry;
  int64_t *argAllocation;
  Holder *constants, *asyncs;
  size_t numConstants, numAsyncs, asyncCapacity;
  ThunkyHashMap constantOf, asyncOf; /* an op -> its position in constants / asyncs */
  ThunkyHashMap startsInFlight; /* an async execution id -> 1 from its start to its done */
  List allocations;
  uint64_t nextAsyncId;
  MlirSymbolTable symbols; /* the module's, for the launches' thunky.kernel_binary */
  const Executable *exe;   /* as the module's residual gave it: kernel_specs */
  /* The sequentials import flattened (THUNKY_ATTR_IN_SEQUENTIAL), by the
   * number of their group; see export_sequential.c. */
  struct ExportGroup *groups;
  size_t numGroups, groupCapacity;
  ThunkyHashMap groupOf;
} Exporter;

static inline MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static inline bool opError(MlirOperation op, const char *message) {
  thunkyEmitOpError(op, "%s", message);
  return false;
}

static inline MlirAttribute discardable(MlirOperation op, const char *name) {
  return mlirOperationGetDiscardableAttributeByName(op, str(name));
}

static inline MlirAttribute inherent(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, str(name));
}

/* Writes t's thunk_info from `info`, an op's THUNKY_ATTR_INFO (nothing when
 * null; an error at `op` when it is not a #thunky.info). */
bool thunkyExportThunkInfo(Exporter *ex, MlirOperation op, MlirAttribute info, Thunk *t);

/* A new message from the arena; NULL when out of memory. */
void *thunkyExportNewMessage(Exporter *ex, const ProtobufCMessageDescriptor *desc);
/* Appends `item` to `list`, growing it by doubling; false when out of memory. */
bool thunkyExportAppend(Exporter *ex, List *list, void *item);
/* Where buffer value `v`, used by `user`, lives: an allocation and bytes. */
bool thunkyExportPlaceOf(Exporter *ex, MlirOperation user, MlirValue v, Place *out);
/* Writes `v`'s place into *slot (a BufferAllocationSliceProto or a
 * ShapedSliceProto), creating it when absent. */
bool thunkyExportSetSlice(Exporter *ex, MlirOperation op, MlirValue v, ThunkySlice **slot);
bool thunkyExportSetShapedSlice(Exporter *ex, MlirOperation op, MlirValue v,
                                Xla__ShapedSliceProto **slot);
/* The ShapeProto of `type` (a ranked tensor or a scalar element type) into
 * *slot, creating it when absent and keeping its other fields (a layout). */
bool thunkyExportShape(Exporter *ex, MlirOperation op, MlirType type, Xla__ShapeProto **slot);
/* What each argument without THUNKY_ATTR_ALLOCATION (`fresh`) declares in
 * its THUNKY_ATTR_ROLE and THUNKY_ATTR_SHAPE, written into its allocation,
 * the output_info_map and the program shape (export_roles.c). */
bool thunkyExportDeclaredRoles(Exporter *ex, MlirOperation main, Executable *exe,
                               Allocation *const *args, const bool *fresh, size_t numArgs);
/* The thunks of `block` / region `index` of `op`, appended to `out` or as
 * a ThunkSequenceProto in *slot. */
bool thunkyExportBlock(Exporter *ex, MlirBlock block, List *out);
bool thunkyExportRegion(Exporter *ex, MlirOperation op, intptr_t index, size_t *n,
                        Thunk ***thunks);
bool thunkyExportSequence(Exporter *ex, MlirOperation op, intptr_t index,
                          Xla__Gpu__ThunkSequenceProto **slot);
/* The thunk of `op`, from what import kept on it, with its impl message of
 * field `implField` in *impl; NULL on failure (reported). */
Thunk *thunkyExportStartThunk(Exporter *ex, MlirOperation op, const char *implField,
                              ProtobufCMessage **impl);
/* The thunks of launch, gemm, cublaslt_matmul, replica_id and partition_id
 * (export_kernels.c). */
Thunk *thunkyExportLaunch(Exporter *ex, MlirOperation op);
Thunk *thunkyExportGemm(Exporter *ex, MlirOperation op);
Thunk *thunkyExportCublasLtMatmul(Exporter *ex, MlirOperation op);
Thunk *thunkyExportDeviceId(Exporter *ex, MlirOperation op, bool replica);
/* A Dim3DProto from a 3-element dense array (the verifier checked it). */
StreamExecutor__Dim3DProto *thunkyExportDim3(Exporter *ex, MlirAttribute dims);
/* The thunk a thunky.call_thunk_proto holds, its slices put back. */
Thunk *thunkyExportCallThunkProto(Exporter *ex, MlirOperation op);
/* Finds the groups of THUNKY_ATTR_IN_SEQUENTIAL in `main` (once, before
 * any block is written); false on a malformed one (reported). */
bool thunkyExportScanGroups(Exporter *ex, MlirOperation main);
/* thunkyExportBlock when the module has groups: each op's thunk by
 * `exportOp`, and each group still together wrapped in its sequential_thunk. */
bool thunkyExportGroupedBlock(Exporter *ex, MlirBlock block, List *out,
                              bool (*exportOp)(Exporter *, MlirOperation, List *));

#endif /* THUNKY_TRANSLATE_EXPORT_H */
