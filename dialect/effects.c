/*===- effects.c - what each op reads and writes ------------------------===*
 *
 * One answer per op and operand, used by the ops' MemoryEffectOpInterface
 * (so MLIR's own passes see it) and by thunky's passes and checks (through
 * thunky-c/dialect/Ops.h), so that the two can never disagree.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/dialect/Ops.h"

#include "mlir-c/BuiltinAttributes.h"

#include <stdint.h>

static MlirAttribute attr(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

/* written[i] when the op has one flag per operand; `missing` otherwise
 * (a hand-written call_thunk_proto without flags may write anything). */
static bool writtenFlag(MlirOperation op, intptr_t i, bool missing) {
  MlirAttribute written = attr(op, "written");
  if (mlirAttributeIsNull(written) || !mlirAttributeIsADenseBoolArray(written) ||
      i >= mlirDenseArrayGetNumElements(written))
    return missing;
  return mlirDenseBoolArrayGetElement(written, i);
}

/* A nonzero beta in a GemmConfigProto dictionary: the output is read. */
static bool betaIsNonzero(MlirOperation op) {
  MlirAttribute config = attr(op, "config");
  MlirAttribute beta = mlirAttributeIsADictionary(config)
                           ? mlirDictionaryAttrGetElementByName(
                                 config, mlirStringRefCreateFromCString("beta"))
                           : mlirAttributeGetNull();
  return !mlirAttributeIsNull(beta) && mlirAttributeIsAFloat(beta) &&
         mlirFloatAttrGetValueDouble(beta) != 0;
}

/* The optional operands of cublaslt_matmul after a, b, c, d, in order, and
 * whether each is written. */
static const bool matmulOptionalWrites[] = {
    false /* bias */,    true /* aux */,     false /* a_scale */, false /* b_scale */,
    false /* c_scale */, false /* d_scale */, true /* d_amax */,  true /* workspace */,
};

/* Which operand group operand `i` of an AttrSizedOperandSegments op is in. */
static intptr_t segmentOf(MlirOperation op, intptr_t i) {
  MlirAttribute sizes = attr(op, "operandSegmentSizes");
  intptr_t n = mlirDenseArrayGetNumElements(sizes);
  for (intptr_t g = 0, end = 0; g < n; ++g)
    if (i < (end += mlirDenseI32ArrayGetElement(sizes, g)))
      return g;
  return n;
}

void thunkyOpGetOperandEffects(MlirOperation op, intptr_t i, bool *reads, bool *writes) {
  ThunkyOpKind kind = thunkyOpGetKind(op);
  *reads = *writes = false;
  switch (kind) {
  case THUNKY_OP_SLICE_BUFFER:
  case THUNKY_OP_CONSTANT:
  case THUNKY_OP_KERNEL_BINARY:
  case THUNKY_OP_YIELD:
  case THUNKY_OP_SEQUENTIAL:
  case THUNKY_OP_COLLECTIVE_GROUP:
  case THUNKY_OP_ASYNC_START:
  case THUNKY_OP_ASYNC_DONE:
    return;
  case THUNKY_OP_MEMZERO:
  case THUNKY_OP_MEMSET32:
  case THUNKY_OP_REPLICA_ID:
  case THUNKY_OP_PARTITION_ID:
    *writes = true;
    return;
  case THUNKY_OP_COPY:
    *reads = i == 0, *writes = i == 1;
    return;
  case THUNKY_OP_PTX_KERNEL:
  case THUNKY_OP_LAUNCH:
    /* A written argument may be updated in place, so it is read too. */
    *reads = true;
    *writes = writtenFlag(op, i, true);
    return;
  case THUNKY_OP_CALL_THUNK_PROTO:
    *reads = true;
    *writes = writtenFlag(op, i, true);
    return;
  case THUNKY_OP_CUSTOM_CALL: {
    int64_t operands = mlirIntegerAttrGetValueInt(attr(op, "num_operands"));
    *reads = i < operands, *writes = i >= operands;
    return;
  }
  case THUNKY_OP_GEMM:
    /* lhs, rhs, output, workspace */
    *reads = i < 2 || (i == 2 && betaIsNonzero(op));
    *writes = i >= 2;
    return;
  case THUNKY_OP_CUBLASLT_MATMUL: {
    intptr_t g = segmentOf(op, i);
    if (g < 4) {
      *reads = g != 3, *writes = g == 3; /* a, b, c read; d written */
      return;
    }
    g -= 4;
    bool written = g < (intptr_t)(sizeof matmulOptionalWrites / sizeof *matmulOptionalWrites) &&
                   matmulOptionalWrites[g];
    *reads = !written, *writes = written;
    return;
  }
  case THUNKY_OP_COND:
  case THUNKY_OP_WHILE:
    *reads = true;
    return;
  default:
    if (thunkyOpKindIsCollective(kind)) {
      /* Every collective lists its sources, then as many destinations. */
      intptr_t sources = mlirOperationGetNumOperands(op) / 2;
      *reads = i < sources, *writes = i >= sources;
      return;
    }
    /* Ops thunky does not know: anything may happen. */
    *reads = *writes = true;
    return;
  }
}
