/*===- thunky-c/dialect/Dialect.h - the thunky dialect from C -------------------===*
 *
 * Registration handle, the two types and the allocation attribute of the
 * thunky dialect. Every getter
 * loads the dialect into the context first, so it is safe on a fresh context.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_DIALECT_H
#define THUNKY_C_DIALECT_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* thunky.call_thunk_proto attribute: the kind of thunk it holds, as
 * ThunkProto's impl field names it ("all_gather_thunk"). Import sets it and
 * export ignores it, so passes know the kind without reading thunk_proto
 * (thunkyThunkKindIsCollective in thunky-c/format/Executable.h). */
#define THUNKY_ATTR_THUNK_KIND "thunky.thunk_kind"

/* thunky.launch attribute: the HLO the launch runs, as
 * {instruction = "loop_select_fusion", computation = "fused_select"}: the
 * instruction of the executable's HLO module its kernel is named after and
 * the computation that instruction calls (absent when it calls none or
 * several). Import sets it when asked (THUNKY_IMPORT_HLO_NAMES in
 * thunky-c/translate/Translate.h), export ignores it, thunky-stats lists it. */
#define THUNKY_ATTR_HLO "thunky.hlo"

/* mlirGetDialectHandle__thunky__(): insert or load the dialect with it. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Thunky, thunky);

/* Loads the thunky dialect (and func, which @main lives in) into ctx. */
MLIR_CAPI_EXPORTED void thunkyContextLoadDialects(MlirContext ctx);

/* !thunky.buffer<size>: a device buffer of `size` bytes. */
MLIR_CAPI_EXPORTED MlirType thunkyBufferTypeGet(MlirContext ctx, int64_t size);
/* Whether `type` is a !thunky.buffer. */
MLIR_CAPI_EXPORTED bool thunkyTypeIsABuffer(MlirType type);
/* The byte size of a !thunky.buffer type. */
MLIR_CAPI_EXPORTED int64_t thunkyBufferTypeGetSize(MlirType type);
/* TypeID of the buffer type, for fast comparisons. */
MLIR_CAPI_EXPORTED MlirTypeID thunkyBufferTypeGetTypeID(void);

/* !thunky.token: an in-flight asynchronous region. */
MLIR_CAPI_EXPORTED MlirType thunkyTokenTypeGet(MlirContext ctx);
/* Whether `type` is a !thunky.token. */
MLIR_CAPI_EXPORTED bool thunkyTypeIsAToken(MlirType type);

/* #thunky.allocation (docs/formats.md): what an @main argument or a
 * thunky.constant is. The role is `parameter`, the OUTPUT flag with
 * outputIndex, or the SCRATCH flag; the other flags, `color`,
 * `parameterShapeIndex` and `assigned` are the BufferAllocationProto's own
 * fields, and need an index (a recorded allocation). Export writes each
 * field of a recorded allocation when it is not zero, as XLA does. */
enum { THUNKY_MAX_OUTPUT_DEPTH = 16 };

typedef enum ThunkyAllocationFlag {
  THUNKY_ALLOCATION_OUTPUT = 1 << 0,       /* role: an output, at outputIndex */
  THUNKY_ALLOCATION_SCRATCH = 1 << 1,      /* role: scratch */
  THUNKY_ALLOCATION_THREAD_LOCAL = 1 << 2, /* is_thread_local */
  THUNKY_ALLOCATION_LIVE_OUT = 1 << 3,     /* maybe_live_out */
  THUNKY_ALLOCATION_TUPLE = 1 << 4,        /* is_tuple */
  THUNKY_ALLOCATION_CONSTANT = 1 << 5,     /* is_constant */
  THUNKY_ALLOCATION_ALIASED = 1 << 6,      /* is_parameter_aliased_with_output */
  THUNKY_ALLOCATION_FLAGS = (1 << 7) - 1,
} ThunkyAllocationFlag;

/* One BufferAllocationProto.Assigned: a logical buffer's bytes. */
typedef struct ThunkyAllocationAssigned {
  int64_t logicalBuffer, offset, size;
  int32_t elementType; /* xla.PrimitiveType */
} ThunkyAllocationAssigned;

typedef struct ThunkyAllocation {
  int64_t index;     /* the allocation's index; -1: not recorded */
  int64_t parameter; /* entry parameter number; -1: none */
  MlirStringRef name; /* the parameter's name (ProgramShapeProto.parameter_names);
                         borrowed; empty: none */
  uint32_t flags;    /* ThunkyAllocationFlag bits */
  size_t outputDepth;
  int64_t outputIndex[THUNKY_MAX_OUTPUT_DEPTH]; /* with THUNKY_ALLOCATION_OUTPUT */
  MlirType shape; /* the logical array it holds; null: not said */
  int64_t color;
  /* Borrowed: from the attribute (GetValue) or the caller (Get). */
  size_t numParameterShapeIndex;
  const int64_t *parameterShapeIndex;
  size_t numAssigned;
  const ThunkyAllocationAssigned *assigned;
} ThunkyAllocation;

/* The attribute holding `a`; a null attribute, with an error at `loc`,
 * when `a` breaks the rules above (thunkyAllocationVerify). */
MLIR_CAPI_EXPORTED MlirAttribute thunkyAllocationAttrGet(MlirContext ctx, MlirLocation loc,
                                                        const ThunkyAllocation *a);
/* Whether `attr` is a #thunky.allocation. */
MLIR_CAPI_EXPORTED bool thunkyAttributeIsAAllocation(MlirAttribute attr);
/* What the #thunky.allocation `attr` holds, its arrays borrowed from it. */
MLIR_CAPI_EXPORTED void thunkyAllocationAttrGetValue(MlirAttribute attr, ThunkyAllocation *out);
/* An allocation that says nothing: no index, role, shape or field. */
MLIR_CAPI_EXPORTED ThunkyAllocation thunkyAllocationEmpty(void);
/* Why `a` cannot be an attribute, or NULL when it can: a static string. */
MLIR_CAPI_EXPORTED const char *thunkyAllocationVerify(const ThunkyAllocation *a);

/* The raw bytes `attr` holds: a string's value, or the blob of a byte
 * resource (`dense_resource<NAME> : tensor<Nxi8>`, how import keeps big
 * byte fields, docs/formats.md), in one piece and without a copy. Borrowed:
 * valid as long as the context holds the attribute and its resource. False
 * (and *bytes untouched) for any other attribute, and for a resource the
 * module names but holds no data for. */
MLIR_CAPI_EXPORTED bool thunkyAttributeGetBytes(MlirAttribute attr, MlirStringRef *bytes);

/* Byte size of `value` if it is a buffer, -1 otherwise. */
MLIR_CAPI_EXPORTED int64_t thunkyValueGetBufferSize(MlirValue value);

/* MLIR's builtin type for an xla.PrimitiveType (XLA's signed integers are
 * signless, PRED is i1), or a null type when MLIR has none. Parses the
 * spelling for floats: callers that map many ops cache the result. */
MLIR_CAPI_EXPORTED MlirType thunkyElementTypeToMlir(MlirContext ctx, int32_t elementType);
/* The xla.PrimitiveType of an MLIR builtin type; 0 when it is none. */
MLIR_CAPI_EXPORTED int32_t thunkyElementTypeFromMlir(MlirType type);

/*--- #thunky.info: what an op says of the thunk it came from -------------*/

/* Discardable attribute on every op import made from a thunk: its
 * ThunkInfoProto as #thunky.info<id = 5, "annotation">. Export writes the
 * thunk's thunk_info from it. */
#define THUNKY_ATTR_INFO "thunky.info"

/* #thunky.info<id = ID, "ANNOTATION", concurrent_region = R>; 0 and an empty
 * annotation are absent, as in XLA's proto3. The context copies the string. */
MLIR_CAPI_EXPORTED MlirAttribute thunkyThunkInfoAttrGet(MlirContext ctx, int64_t id,
                                                        MlirStringRef annotation,
                                                        int64_t concurrentRegion);
/* Whether `attr` is a #thunky.info. */
MLIR_CAPI_EXPORTED bool thunkyAttributeIsAThunkInfo(MlirAttribute attr);
/* The parts of a #thunky.info (the string borrowed from the context). */
MLIR_CAPI_EXPORTED int64_t thunkyThunkInfoAttrGetId(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirStringRef thunkyThunkInfoAttrGetAnnotation(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t thunkyThunkInfoAttrGetConcurrentRegion(MlirAttribute attr);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_DIALECT_H */
