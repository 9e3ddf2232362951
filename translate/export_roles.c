/*===- export_roles.c - what a hand-written argument declares ----------===*
 *
 * An argument without a recorded allocation (written by hand, or stripped)
 * is described by its role: a #thunky.allocation without an index, or the
 * older thunky.role string (thunkyRoleTextParse in thunky-c/Access.h). An
 * argument with no role is an entry parameter, as before roles were read.
 * Outputs go into output_info_map; with a shape on every parameter and
 * output (#thunky.allocation's type, or thunky.shape), the program shape is
 * written too, so that thunky-run checks inputs and prints outputs by type.
 *
 *===--------------------------------------------------------------------===*/
#include "export.h"

#include "thunky-c/Access.h"
#include "thunky-c/Dialect.h"
#include "thunky-c/ElementTypes.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct Role {
  bool declared; /* it has a role */
  bool parameter, output, threadLocal;
  int64_t number;
  size_t depth; /* of the output's shape index */
  int64_t index[THUNKY_MAX_OUTPUT_DEPTH];
} Role;

/* The role an argument's allocation declares; with none, an entry
 * parameter numbered later. */
static Role roleOf(const ThunkyAllocation *a) {
  ThunkyRole kind = thunkyAllocationRole(a);
  Role r = {.declared = kind != THUNKY_ROLE_NONE,
            .parameter = kind == THUNKY_ROLE_NONE || a->parameter >= 0,
            .output = (a->flags & THUNKY_ALLOCATION_OUTPUT) != 0,
            .threadLocal = (a->flags & THUNKY_ALLOCATION_THREAD_LOCAL) != 0,
            .number = a->parameter,
            .depth = a->outputDepth};
  memcpy(r.index, a->outputIndex, sizeof r.index);
  return r;
}

typedef Xla__Gpu__GpuExecutableProto__OutputInfoMapEntry OutputEntry;

static int compareEntries(const void *x, const void *y) {
  const Xla__ShapeIndexProto *a = (*(OutputEntry *const *)x)->shape_index,
                             *b = (*(OutputEntry *const *)y)->shape_index;
  size_t na = a ? a->n_indexes : 0, nb = b ? b->n_indexes : 0;
  for (size_t i = 0; i < na && i < nb; ++i)
    if (a->indexes[i] != b->indexes[i])
      return a->indexes[i] < b->indexes[i] ? -1 : 1;
  return (na > nb) - (na < nb);
}

static OutputEntry *outputEntry(Exporter *ex, const Role *r, int64_t allocation) {
  OutputEntry *e = thunkyExportNewMessage(
      ex, &xla__gpu__gpu_executable_proto__output_info_map_entry__descriptor);
  if (!e || !(e->shape_index = thunkyExportNewMessage(ex, &xla__shape_index_proto__descriptor)) ||
      !(e->output_info = thunkyExportNewMessage(
            ex, &xla__gpu__gpu_executable_proto__output_info_proto__descriptor)) ||
      !(e->shape_index->indexes = thunkyArenaCopy(ex->arena, r->index,
                                                  (r->depth + 1) * sizeof *r->index)))
    return NULL;
  e->shape_index->n_indexes = r->depth;
  e->output_info->allocation_index = allocation;
  e->output_info->has_allocation_index = allocation != 0;
  return e;
}

/* Whether `type` is an XLA array, and its bytes in *bytes. */
static bool arrayBytes(MlirType type, uint64_t *bytes) {
  bool tensor = mlirTypeIsARankedTensor(type);
  int primitive = thunkyElementTypeFromMlir(tensor ? mlirShapedTypeGetElementType(type) : type);
  uint64_t bits = thunkyElementBits(primitive);
  if (primitive == THUNKY_TYPE_PRED)
    bits = 8;
  uint64_t count = 1;
  for (intptr_t d = 0; tensor && d < mlirShapedTypeGetRank(type); ++d)
    count *= (uint64_t)mlirShapedTypeGetDimSize(type, d);
  *bytes = (count * bits + 7) / 8;
  return bits != 0;
}

/* The program shape, when every parameter and output has a thunky.shape
 * and the outputs are one array ({}) or a tuple of arrays {0}..{k-1}. */
static bool programShape(Exporter *ex, MlirOperation main, Executable *exe, size_t numArgs,
                         const Role *roles, const MlirType *shapes, size_t numParameters) {
  size_t outputs = 0, flat = 0, roots = 0;
  for (size_t i = 0; i < numArgs; ++i) {
    if ((roles[i].parameter || roles[i].output) && mlirTypeIsNull(shapes[i]))
      return true;
    outputs += roles[i].output;
    roots += roles[i].output && roles[i].depth == 0;
    flat += roles[i].output && roles[i].depth == 1;
  }
  bool single = outputs == 1 && roots == 1;
  if ((!numParameters && !outputs) || (!single && flat != outputs))
    return true;
  Xla__ProgramShapeProto *ps = thunkyExportNewMessage(ex, &xla__program_shape_proto__descriptor);
  Xla__ShapeProto **params = thunkyArenaAlloc(ex->arena, (numParameters + 1) * sizeof *params);
  Xla__ShapeProto **elements = thunkyArenaAlloc(ex->arena, (outputs + 1) * sizeof *elements);
  if (!ps || !params || !elements)
    return opError(main, "out of memory");
  memset(params, 0, (numParameters + 1) * sizeof *params);
  memset(elements, 0, (outputs + 1) * sizeof *elements);
  for (size_t i = 0; i < numArgs; ++i) {
    if (roles[i].parameter && !thunkyExportShape(ex, main, shapes[i], &params[roles[i].number]))
      return false;
    if (!roles[i].output)
      continue;
    if (!single && (uint64_t)roles[i].index[0] >= outputs)
      return true; /* not a dense tuple: no program shape */
    Xla__ShapeProto **slot = single ? &ps->result : &elements[roles[i].index[0]];
    if (!thunkyExportShape(ex, main, shapes[i], slot))
      return false;
  }
  if (!single) {
    if (!(ps->result = thunkyExportNewMessage(ex, &xla__shape_proto__descriptor)))
      return opError(main, "out of memory");
    ps->result->element_type = XLA__PRIMITIVE_TYPE__TUPLE, ps->result->has_element_type = 1;
    ps->result->n_tuple_shapes = outputs, ps->result->tuple_shapes = elements;
  }
  ps->n_parameters = numParameters, ps->parameters = params;
  exe->program_shape = ps;
  return true;
}

bool thunkyExportDeclaredRoles(Exporter *ex, MlirOperation main, Executable *exe,
                               Allocation *const *args, const bool *fresh, size_t numArgs) {
  Role *roles = thunkyArenaAlloc(ex->arena, (numArgs + 1) * sizeof *roles);
  MlirType *shapes = thunkyArenaAlloc(ex->arena, (numArgs + 1) * sizeof *shapes);
  bool *taken = calloc(numArgs + 1, sizeof *taken);
  OutputEntry **entries = thunkyArenaAlloc(
      ex->arena, (exe->n_output_info_map + numArgs + 1) * sizeof *entries);
  if (!roles || !shapes || !taken || !entries) {
    free(taken);
    return opError(main, "out of memory");
  }
  size_t numEntries = exe->n_output_info_map, numParameters = 0, described = 0;
  if (numEntries)
    memcpy(entries, exe->output_info_map, numEntries * sizeof *entries);
  bool ok = true;
  /* The declared roles, and which parameter numbers they take. */
  for (size_t i = 0; ok && i < numArgs; ++i) {
    MlirValue arg = mlirBlockGetArgument(ex->entry, (intptr_t)i);
    MlirLocation loc = mlirValueGetLocation(arg);
    ThunkyAllocation declared;
    uint64_t bytes;
    thunkyValueGetAllocation(arg, &declared);
    shapes[i] = declared.shape;
    roles[i] = fresh[i] ? roleOf(&declared) : (Role){.number = -1};
    if (!fresh[i])
      continue;
    described++;
    if (thunkyArgumentRole(arg) == THUNKY_ROLE_OTHER) {
      thunkyEmitError(loc, "argument %zu: " THUNKY_ATTR_ROLE " must read \"parameter N\", "
                           "\"output {i}\", \"parameter N, output {i}\", \"scratch\" or "
                           "\"thread-local scratch\"", i);
      ok = false;
    } else if (!mlirTypeIsNull(shapes[i]) &&
               (!arrayBytes(shapes[i], &bytes) || bytes > (uint64_t)args[i]->size)) {
      thunkyEmitError(loc, "argument %zu: " THUNKY_ATTR_SHAPE " is no array of at most the "
                           "buffer's %" PRId64 " bytes", i, args[i]->size);
      ok = false;
    } else if (roles[i].number >= 0) {
      if ((uint64_t)roles[i].number < numArgs && !taken[roles[i].number])
        taken[roles[i].number] = true;
      else {
        thunkyEmitError(loc, "argument %zu: parameter %" PRId64 " is declared twice, or is "
                             "past the %zu arguments", i, roles[i].number, numArgs);
        ok = false;
      }
    }
  }
  /* Arguments without a number take the lowest free ones, in order. */
  size_t next = 0;
  for (size_t i = 0; ok && i < numArgs; ++i) {
    if (!fresh[i] || !roles[i].parameter)
      continue;
    if (roles[i].number < 0) {
      while (taken[next])
        next++;
      taken[next] = true, roles[i].number = (int64_t)next;
    }
    numParameters++;
  }
  for (size_t p = 0; ok && p < numParameters; ++p)
    if (!taken[p]) {
      thunkyEmitError(mlirOperationGetLocation(main),
                      "@main declares %zu parameters but none numbered %zu: parameter "
                      "numbers are 0..%zu", numParameters, p, numParameters - 1);
      ok = false;
    }
  free(taken);
  for (size_t i = 0; ok && i < numArgs; ++i) {
    Allocation *a = args[i];
    const Role *r = &roles[i];
    if (!fresh[i])
      continue;
    if (r->parameter) {
      a->is_entry_computation_parameter = a->has_is_entry_computation_parameter = 1;
      a->parameter_number = r->number, a->has_parameter_number = r->number != 0;
    }
    /* With no role, a parameter may be an output too, as before roles. */
    if (r->output || !r->declared)
      a->maybe_live_out = a->has_maybe_live_out = 1;
    a->is_thread_local = a->has_is_thread_local = r->threadLocal;
    if (r->output && !(entries[numEntries++] = outputEntry(ex, r, a->index)))
      ok = opError(main, "out of memory");
  }
  if (ok && numEntries > exe->n_output_info_map) {
    qsort(entries, numEntries, sizeof *entries, compareEntries);
    for (size_t k = 1; ok && k < numEntries; ++k)
      if (!compareEntries(&entries[k - 1], &entries[k]))
        ok = opError(main, "two outputs of @main have the same index (thunky.role, or the "
                           "output_info_map of " THUNKY_ATTR_EXECUTABLE ")");
    exe->output_info_map = entries, exe->n_output_info_map = numEntries;
  }
  if (ok && described == numArgs && !exe->program_shape)
    ok = programShape(ex, main, exe, numArgs, roles, shapes, numParameters);
  return ok;
}
