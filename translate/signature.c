/*===- signature.c - the program shape and outputs @main's arguments give -===*
 *
 * XLA lists every subshape of the result in output_info_map: each array
 * output, and for a tuple result the tuple itself at {}, in the live-out
 * allocation that holds its index table (xla/service/gpu/gpu_executable.cc
 * in openxla/xla reads it so). Parameters and outputs are arrays here; a
 * nested tuple or a tuple parameter is not derived, and import then keeps
 * what XLA wrote.
 *
 *===--------------------------------------------------------------------===*/
#include "signature.h"

#include "shape_type.h"

#include "thunky-c/dialect/Roles.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

ThunkySignatureArg thunkySignatureArgOf(const ThunkyAllocation *a) {
  ThunkySignatureArg s = {.parameter = thunkyAllocationRole(a) == THUNKY_ROLE_NONE || a->parameter >= 0,
                          .output = (a->flags & THUNKY_ALLOCATION_OUTPUT) != 0,
                          .number = a->parameter,
                          .name = a->name,
                          .depth = a->outputDepth,
                          .shape = a->shape};
  memcpy(s.index, a->outputIndex, sizeof s.index);
  return s;
}

void thunkySignatureArgsOf(MlirBlock entry, const Xla__BufferAllocationProto *const *allocations,
                           size_t n, ThunkySignatureArg *out) {
  for (size_t i = 0; i < n; ++i) {
    ThunkyAllocation declared;
    thunkyValueGetAllocation(mlirBlockGetArgument(entry, (intptr_t)i), &declared);
    out[i] = thunkySignatureArgOf(&declared);
    out[i].allocation = allocations[i]->index;
    out[i].tupleTable = allocations[i]->is_tuple && allocations[i]->maybe_live_out;
  }
}

/* The ShapeProto of a tensor type or a scalar element type. */
static Xla__ShapeProto *shapeOf(ThunkyArena *arena, MlirType type) {
  if (!mlirTypeIsARankedTensor(type))
    type = mlirRankedTensorTypeGet(0, NULL, type, mlirAttributeGetNull());
  return thunkyShapeFromType(arena, type, NULL);
}

bool thunkySignatureParameterNames(ThunkyArena *arena, const ThunkySignatureArg *args,
                                   size_t n, Xla__ProgramShapeProto *ps) {
  char **names = NULL;
  for (size_t i = 0; !ps->n_parameter_names && i < n; ++i) {
    const ThunkySignatureArg *a = &args[i];
    if (!a->parameter || !a->name.length || a->number < 0 || (uint64_t)a->number >= ps->n_parameters)
      continue;
    if (!names) {
      char *empty = thunkyArenaCopy(arena, "", 1);
      if (!empty || !(names = thunkyArenaAlloc(arena, (ps->n_parameters + 1) * sizeof *names)))
        return false;
      for (size_t p = 0; p <= ps->n_parameters; ++p)
        names[p] = empty;
    }
    if (!(names[a->number] = thunkyArenaCopy(arena, a->name.data, a->name.length + 1)))
      return false;
    names[a->number][a->name.length] = 0;
  }
  if (names)
    ps->n_parameter_names = ps->n_parameters, ps->parameter_names = names;
  return true;
}

bool thunkySignatureProgramShape(ThunkyArena *arena, const ThunkySignatureArg *args, size_t n,
                                 Xla__ProgramShapeProto **ps, const char **why) {
  size_t outputs = 0, flat = 0, roots = 0, parameters = 0;
  for (size_t i = 0; i < n; ++i) {
    if ((args[i].parameter || args[i].output) && mlirTypeIsNull(args[i].shape))
      return true;
    parameters += args[i].parameter;
    outputs += args[i].output;
    roots += args[i].output && args[i].depth == 0;
    flat += args[i].output && args[i].depth == 1;
  }
  bool single = outputs == 1 && roots == 1;
  if ((!parameters && !outputs) || (!single && flat != outputs))
    return true;
  Xla__ShapeProto **params = thunkyArenaAlloc(arena, (parameters + 1) * sizeof *params);
  Xla__ShapeProto **elements = thunkyArenaAlloc(arena, (outputs + 1) * sizeof *elements);
  *why = "out of memory";
  if (!params || !elements)
    return false;
  memset(params, 0, (parameters + 1) * sizeof *params);
  memset(elements, 0, (outputs + 1) * sizeof *elements);
  Xla__ShapeProto *result = NULL;
  for (size_t i = 0; i < n; ++i) {
    const ThunkySignatureArg *a = &args[i];
    Xla__ShapeProto *shape = a->parameter || a->output ? shapeOf(arena, a->shape) : NULL;
    if ((a->parameter || a->output) && !shape) {
      *why = "a parameter's or output's shape has no XLA form: " THUNKY_SHAPE_TYPE_FORM;
      return false;
    }
    if (a->parameter) {
      if (a->number < 0 || (uint64_t)a->number >= parameters || params[a->number])
        return true; /* not numbered 0..n-1 once each */
      params[a->number] = shape;
    }
    if (!a->output)
      continue;
    if (single)
      result = shape;
    else if ((uint64_t)a->index[0] >= outputs || elements[a->index[0]])
      return true; /* not a dense tuple */
    else
      elements[a->index[0]] = shape;
  }
  /* No outputs, no result: XLA writes an empty tuple there, which import
   * then keeps as written. */
  if (!single && outputs) {
    if (!(result = thunkyArenaAlloc(arena, sizeof *result)))
      return false;
    xla__shape_proto__init(result);
    result->element_type = XLA__PRIMITIVE_TYPE__TUPLE, result->has_element_type = 1;
    result->n_tuple_shapes = outputs, result->tuple_shapes = elements;
  }
  if (!*ps) {
    if (!(*ps = thunkyArenaAlloc(arena, sizeof **ps)))
      return false;
    xla__program_shape_proto__init(*ps);
  }
  (*ps)->n_parameters = parameters, (*ps)->parameters = params;
  if (!thunkySignatureParameterNames(arena, args, n, *ps))
    return false;
  (*ps)->result = result;
  return true;
}

ThunkyOutputEntry *thunkySignatureOutputEntry(ThunkyArena *arena, size_t depth,
                                              const int64_t *index, int64_t allocation) {
  ThunkyOutputEntry *e = thunkyArenaAlloc(arena, sizeof *e);
  Xla__ShapeIndexProto *at = thunkyArenaAlloc(arena, sizeof *at);
  Xla__Gpu__GpuExecutableProto__OutputInfoProto *info = thunkyArenaAlloc(arena, sizeof *info);
  int64_t *indexes = thunkyArenaAlloc(arena, (depth + 1) * sizeof *indexes);
  if (!e || !at || !info || !indexes)
    return NULL;
  xla__gpu__gpu_executable_proto__output_info_map_entry__init(e);
  xla__shape_index_proto__init(at);
  xla__gpu__gpu_executable_proto__output_info_proto__init(info);
  if (depth)
    memcpy(indexes, index, depth * sizeof *indexes);
  at->n_indexes = depth, at->indexes = indexes;
  info->allocation_index = allocation, info->has_allocation_index = allocation != 0;
  e->shape_index = at, e->output_info = info;
  return e;
}

int thunkySignatureCompareEntries(const void *x, const void *y) {
  const Xla__ShapeIndexProto *a = (*(ThunkyOutputEntry *const *)x)->shape_index,
                             *b = (*(ThunkyOutputEntry *const *)y)->shape_index;
  size_t na = a ? a->n_indexes : 0, nb = b ? b->n_indexes : 0;
  for (size_t i = 0; i < na && i < nb; ++i)
    if (a->indexes[i] != b->indexes[i])
      return a->indexes[i] < b->indexes[i] ? -1 : 1;
  return (na > nb) - (na < nb);
}

bool thunkySignatureOutputs(ThunkyArena *arena, const ThunkySignatureArg *args, size_t n,
                            ThunkyOutputEntry ***entries, size_t *count) {
  ThunkyOutputEntry **list = thunkyArenaAlloc(arena, (n + 1) * sizeof *list);
  if (!list)
    return false;
  size_t k = 0, tables = 0, table = 0;
  bool tuple = false;
  for (size_t i = 0; i < n; ++i) {
    const ThunkySignatureArg *a = &args[i];
    if (a->tupleTable && !a->output && !a->parameter)
      tables++, table = i;
    if (!a->output)
      continue;
    tuple |= a->depth > 0;
    if (!(list[k++] = thunkySignatureOutputEntry(arena, a->depth, a->index, a->allocation)))
      return false;
  }
  if (tuple && tables == 1 &&
      !(list[k++] = thunkySignatureOutputEntry(arena, 0, NULL, args[table].allocation)))
    return false;
  qsort(list, k, sizeof *list, thunkySignatureCompareEntries);
  *entries = list, *count = k;
  return true;
}
