/*===- thunky-c/Dialect.h - the thunky dialect from C -------------------===*
 *
 * Registration handle and the two types of the thunky dialect. Every getter
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

/* Module attribute: the kernel binaries thunky.launch ops refer to by name
 * (`binary = "k"`), each {cubin = ...} or {ptx = ...}, the code a string or
 * a byte resource (thunkyAttributeGetBytes). */
#define THUNKY_KERNEL_BINARIES "thunky.kernel_binaries"

/* thunky.call_thunk_proto attribute: the kind of thunk it holds, as
 * ThunkProto's impl field names it ("all_gather_thunk"). Import sets it and
 * export ignores it, so passes know the kind without reading thunk_proto
 * (thunkyThunkKindIsCollective in thunky-c/Executable.h). */
#define THUNKY_ATTR_THUNK_KIND "thunky.thunk_kind"

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
