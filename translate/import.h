/*===- import.h - what the importer's files share -----------------------===*
 *
 * Import reads an executable through the model (thunky-c/format/Executable.h) and
 * builds the module op by op: import_executable.c makes @main's signature,
 * the constants and the module; import_thunks.c the first-class ops, one
 * kind at a time; import_opaque.c thunky.call_thunk_proto for every other
 * kind; import_flatten.c inlines the sequentials an async token must leave;
 * import_builder.c the helpers all of them build with.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TRANSLATE_IMPORT_H
#define THUNKY_TRANSLATE_IMPORT_H

#include "executable_attrs.h"
#include "proto_attr.h"

#include "thunky-c/base/Arena.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/base/ElementTypes.h"
#include "thunky-c/format/Executable.h"
#include "thunky-c/base/HashMap.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef Xla__Gpu__GpuExecutableProto Executable;
typedef Xla__Gpu__ThunkProto Thunk;

/* The module's thunky.kernel_binary ops, gathered as custom kernels import. */
typedef struct KernelBinary {
  MlirAttribute name; /* its symbol, unique among them */
  MlirAttribute code; /* a string or byte resource */
  bool cubin;         /* else PTX */
} KernelBinary;

typedef struct KernelBinaries {
  KernelBinary *items;
  size_t count, capacity;
  ThunkyHashMap entryOf;   /* code attribute and kind -> position */
  ThunkyUniqueNames names; /* the symbols given */
} KernelBinaries;

typedef struct Importer {
  MlirContext ctx;
  ThunkyArena *arena;
  MlirLocation fileLoc; /* the input, for errors not tied to a thunk */
  MlirLocation loc;     /* the thunk being imported */
  char thunk[256];      /* its name for messages: "thunk 7 zero_tail" */
  ThunkyExecutable *model;
  Executable *exe;      /* model->proto; what import takes out is cleared from it */
  size_t numAllocations;
  MlirValue *allocationValue;
  MlirBlock block; /* where ops go */
  MlirValue *tokens; /* per async slot: its start's token */
  int64_t nextGroup; /* the next flattened sequential's number (import_flatten.c) */
  ThunkyLimits limits;
  MlirType elementTypes[THUNKY_TYPE_COUNT]; /* parsed once each */
  ThunkyProtoCache protoCache; /* for thunkyProtoToAttr */
  ThunkyBytesPool bytes;       /* every long value, as one resource each */
  KernelBinaries binaries;
} Importer;

static inline MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static inline MlirNamedAttribute named(Importer *im, const char *name, MlirAttribute a) {
  return mlirNamedAttributeGet(mlirIdentifierGet(im->ctx, str(name)), a);
}

static inline MlirAttribute i64Attr(Importer *im, int64_t v) {
  return mlirIntegerAttrGet(mlirIntegerTypeGet(im->ctx, 64), v);
}

static inline MlirAttribute stringAttr(Importer *im, const char *data, size_t size) {
  return mlirStringAttrGet(im->ctx, mlirStringRefCreate(data, size));
}

/* Raw bytes: a string when short, else a resource named after `name`. */
static inline MlirAttribute bytesAttr(Importer *im, const char *name, const void *data,
                                      size_t size) {
  return thunkyBytesAttr(&im->bytes, name, data, size);
}

/* Reports an error at the thunk being imported (printf-style); false. */
bool thunkyImportError(Importer *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* MLIR's type for an xla.PrimitiveType (cached), null when there is none. */
MlirType thunkyImportElementType(Importer *im, int32_t type);
/* The tensor type of an array shape; null for tuples and unknown types. */
MlirType thunkyImportTensorType(Importer *im, const Xla__ShapeProto *shape);
/* Appends a new op to the current block, with `nRegions` one-block regions. */
MlirOperation thunkyImportEmit(Importer *im, const char *name, intptr_t nOperands,
                               const MlirValue *operands, intptr_t nResults,
                               const MlirType *results, intptr_t nAttrs,
                               const MlirNamedAttribute *attrs, intptr_t nRegions);
void thunkyImportEmitYield(Importer *im);

/* Whether `s` names bytes of an allocation that has a value. */
bool thunkyImportCheckSlice(Importer *im, const ThunkySlice *s);
/* The value for a slice: its allocation, or a thunky.slice_buffer of it. */
bool thunkyImportSliceValue(Importer *im, const ThunkySlice *s, MlirValue *out);
/* Take what became SSA values out of the messages (see import_builder.c). */
void thunkyImportConsumeSlice(ThunkySlice **slot);
void thunkyImportConsumeShapedSlice(Xla__ShapedSliceProto **slot);
void thunkyImportConsumeSequence(Xla__Gpu__ThunkSequenceProto **slot);

/* Imports `thunks` into the current block / region `index` of `op`. */
bool thunkyImportThunks(Importer *im, size_t n, Thunk **thunks);
bool thunkyImportRegion(Importer *im, MlirOperation op, intptr_t index, size_t n,
                        Thunk **thunks);
/* Takes `t`'s thunk_info out as the #thunky.info for THUNKY_ATTR_INFO when
 * it has the form XLA writes (proto3 presence, no unknown fields); else
 * leaves it in `t` and returns null. */
MlirAttribute thunkyImportTakeThunkInfo(Importer *im, Thunk *t);
/* Attaches what is left of `t` after the op took its fields, as a
 * dictionary that reads like the message, and its thunk_info as
 * #thunky.info where that holds it exactly. */
bool thunkyImportAttachResidual(Importer *im, MlirOperation op, Thunk *t,
                                ProtobufCMessage *impl, const char *implName);
/* Kernel launches, GEMMs and device ids (import_kernels.c): whether a thunk
 * of that kind fits its op exactly, and its import. */
bool thunkyImportKernelFits(const ThunkyExecutable *model, const Thunk *t);
bool thunkyImportKernel(Importer *im, Thunk *t);
bool thunkyImportMatmulFits(const Thunk *t);
bool thunkyImportGemm(Importer *im, Thunk *t);
bool thunkyImportCublasLtMatmul(Importer *im, Thunk *t);
bool thunkyImportDeviceIdFits(const Thunk *t);
bool thunkyImportDeviceId(Importer *im, Thunk *t);
/* Puts the module's thunky.kernel_binary ops before its first op. */
void thunkyImportFinishKernelBinaries(Importer *im, MlirOperation module);
void thunkyImportFreeKernelBinaries(Importer *im);

/* Any thunk as thunky.call_thunk_proto, its slices renumbered over its
 * operands, with what the thunk kind table says each operand is written. */
bool thunkyImportOpaque(Importer *im, Thunk *t);
/* Makes the token of async execution `id` usable in the current block,
 * flattening the thunky.sequential ops between its start and here (each
 * op that was in one records it in THUNKY_ATTR_IN_SEQUENTIAL); fails,
 * reported, when something other than a sequential is in the way. */
bool thunkyImportReachToken(Importer *im, MlirValue token, uint64_t id);
/* Gives every thunky.launch in `main` whose kernel names an instruction of
 * the executable's HLO module its THUNKY_ATTR_HLO (import_hlo.c); nothing
 * when the executable keeps no HLO module. False, reported, when out of
 * memory. */
bool thunkyImportHloNames(Importer *im, MlirOperation main);

#endif /* THUNKY_TRANSLATE_IMPORT_H */
