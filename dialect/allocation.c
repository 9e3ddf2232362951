/*===- allocation.c - what a #thunky.allocation may hold ----------------===*/
#include "thunky-c/dialect/Dialect.h"

ThunkyAllocation thunkyAllocationEmpty(void) {
  return (ThunkyAllocation){.index = -1, .parameter = -1};
}

/* A role contradicting itself would export as something else than it
 * reads; fields of the proto without an index have no allocation to go
 * into (export makes a fresh one from the role alone). */
const char *thunkyAllocationVerify(const ThunkyAllocation *a) {
  const uint32_t recordedOnly = THUNKY_ALLOCATION_LIVE_OUT | THUNKY_ALLOCATION_TUPLE |
                                THUNKY_ALLOCATION_CONSTANT | THUNKY_ALLOCATION_ALIASED;
  if (a->index < -1)
    return "index must be >= 0";
  if (a->parameter < -1)
    return "parameter number must be >= 0";
  if (a->name.length && a->parameter < 0)
    return "a name is a parameter's";
  if (a->flags & ~(uint32_t)THUNKY_ALLOCATION_FLAGS)
    return "unknown flag bits";
  if ((a->flags & THUNKY_ALLOCATION_SCRATCH) &&
      (a->parameter >= 0 || (a->flags & THUNKY_ALLOCATION_OUTPUT)))
    return "scratch is neither a parameter nor an output";
  if (a->outputDepth > THUNKY_MAX_OUTPUT_DEPTH)
    return "an output index is at most 16 deep";
  if (a->outputDepth && !(a->flags & THUNKY_ALLOCATION_OUTPUT))
    return "an output index needs an output";
  if (a->index < 0 && ((a->flags & recordedOnly) || a->color || a->numParameterShapeIndex ||
                       a->numAssigned))
    return "live_out, tuple, constant, aliased, color, parameter_shape_index and assigned "
           "are fields of a recorded allocation: they need its index";
  return NULL;
}
