/*===- export_roles.c - what a hand-written argument declares ----------===*
 *
 * An argument without a recorded allocation (written by hand, or stripped)
 * is described by its role: a #thunky.allocation without an index, or the
 * older thunky.role string (thunkyRoleTextParse in thunky-c/dialect/Roles.h). An
 * argument with no role is an entry parameter, as before roles were read.
 * Outputs go into output_info_map; with a shape on every parameter and
 * output (#thunky.allocation's type, or thunky.shape), the program shape is
 * written too, so that thunky-run checks inputs and prints outputs by type.
 *
 *===--------------------------------------------------------------------===*/
#include "export.h"
#include "signature.h"

#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/base/ElementTypes.h"
#include "thunky-c/dialect/Roles.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct Role {
  ThunkySignatureArg sig;
  bool declared; /* it has a role */
  bool threadLocal;
} Role;

/* The role an argument's allocation declares; with none, an entry
 * parameter numbered later. */
static Role roleOf(const ThunkyAllocation *a) {
  return (Role){.sig = thunkySignatureArgOf(a),
                .declared = thunkyAllocationRole(a) != THUNKY_ROLE_NONE,
                .threadLocal = (a->flags & THUNKY_ALLOCATION_THREAD_LOCAL) != 0};
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

typedef ThunkyOutputEntry OutputEntry;

/* Whether thunky.executable left the program shape's arrays to @main. */
static bool lacksShapes(const Xla__ProgramShapeProto *ps) {
  return !ps || (!ps->n_parameters && !ps->result);
}

/* The output_info_map: the one kept, and the outputs of the arguments it
 * does not cover (all of them when none was kept; else the fresh ones). */
static bool outputInfoMap(Exporter *ex, MlirOperation main, Executable *exe, const Role *roles,
                          const bool *fresh, size_t numArgs) {
  bool derive = exe->n_output_info_map == 0;
  ThunkySignatureArg *chosen = thunkyArenaAlloc(ex->arena, (numArgs + 1) * sizeof *chosen);
  if (!chosen)
    return opError(main, "out of memory");
  size_t n = 0;
  for (size_t i = 0; i < numArgs; ++i)
    if (derive || fresh[i])
      chosen[n++] = roles[i].sig;
  OutputEntry **made, **entries;
  size_t numMade;
  if (!thunkySignatureOutputs(ex->arena, chosen, n, &made, &numMade) ||
      !(entries = thunkyArenaAlloc(ex->arena,
                                   (exe->n_output_info_map + numMade + 1) * sizeof *entries)))
    return opError(main, "out of memory");
  if (!numMade)
    return true;
  size_t numEntries = exe->n_output_info_map;
  if (numEntries)
    memcpy(entries, exe->output_info_map, numEntries * sizeof *entries);
  memcpy(entries + numEntries, made, numMade * sizeof *made);
  numEntries += numMade;
  qsort(entries, numEntries, sizeof *entries, thunkySignatureCompareEntries);
  for (size_t k = 1; k < numEntries; ++k)
    if (!thunkySignatureCompareEntries(&entries[k - 1], &entries[k]))
      return opError(main, "two outputs of @main have the same index (thunky.role, or the "
                           "output_info_map of " THUNKY_ATTR_EXECUTABLE ")");
  exe->output_info_map = entries, exe->n_output_info_map = numEntries;
  return true;
}

bool thunkyExportDeclaredRoles(Exporter *ex, MlirOperation main, Executable *exe,
                               Allocation *const *args, const bool *fresh, size_t numArgs) {
  Role *roles = thunkyArenaAlloc(ex->arena, (numArgs + 1) * sizeof *roles);
  bool *taken = calloc(numArgs + 1, sizeof *taken);
  if (!roles || !taken) {
    free(taken);
    return opError(main, "out of memory");
  }
  size_t numParameters = 0;
  bool ok = true;
  /* The declared roles, and which parameter numbers the fresh ones take. */
  for (size_t i = 0; ok && i < numArgs; ++i) {
    MlirValue arg = mlirBlockGetArgument(ex->entry, (intptr_t)i);
    MlirLocation loc = mlirValueGetLocation(arg);
    ThunkyAllocation declared;
    uint64_t bytes;
    thunkyValueGetAllocation(arg, &declared);
    roles[i] = roleOf(&declared);
    roles[i].sig.allocation = args[i]->index;
    roles[i].sig.tupleTable = !fresh[i] && args[i]->is_tuple && args[i]->maybe_live_out;
    if (!fresh[i])
      continue;
    MlirType shape = roles[i].sig.shape;
    int64_t number = roles[i].sig.number;
    if (thunkyArgumentRole(arg) == THUNKY_ROLE_OTHER) {
      thunkyEmitError(loc, "argument %zu: " THUNKY_ATTR_ROLE " must read \"parameter N\", "
                           "\"output {i}\", \"parameter N, output {i}\", \"scratch\" or "
                           "\"thread-local scratch\"", i);
      ok = false;
    } else if (!mlirTypeIsNull(shape) &&
               (!arrayBytes(shape, &bytes) || bytes > (uint64_t)args[i]->size)) {
      thunkyEmitError(loc, "argument %zu: " THUNKY_ATTR_SHAPE " is no array of at most the "
                           "buffer's %" PRId64 " bytes", i, args[i]->size);
      ok = false;
    } else if (number >= 0) {
      if ((uint64_t)number < numArgs && !taken[number])
        taken[number] = true;
      else {
        thunkyEmitError(loc, "argument %zu: parameter %" PRId64 " is declared twice, or is "
                             "past the %zu arguments", i, number, numArgs);
        ok = false;
      }
    }
  }
  /* Arguments without a number take the lowest free ones, in order. */
  size_t next = 0;
  for (size_t i = 0; ok && i < numArgs; ++i) {
    if (!fresh[i] || !roles[i].sig.parameter)
      continue;
    if (roles[i].sig.number < 0) {
      while (taken[next])
        next++;
      taken[next] = true, roles[i].sig.number = (int64_t)next;
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
    if (r->sig.parameter) {
      a->is_entry_computation_parameter = a->has_is_entry_computation_parameter = 1;
      a->parameter_number = r->sig.number, a->has_parameter_number = r->sig.number != 0;
    }
    /* With no role, a parameter may be an output too, as before roles. */
    if (r->sig.output || !r->declared)
      a->maybe_live_out = a->has_maybe_live_out = 1;
    a->is_thread_local = a->has_is_thread_local = r->threadLocal;
  }
  ok = ok && outputInfoMap(ex, main, exe, roles, fresh, numArgs);
  ThunkySignatureArg *sigs = ok ? thunkyArenaAlloc(ex->arena, (numArgs + 1) * sizeof *sigs) : NULL;
  if (ok && !sigs)
    return opError(main, "out of memory");
  for (size_t i = 0; ok && i < numArgs; ++i)
    sigs[i] = roles[i].sig;
  const char *why = "out of memory";
  if (ok && lacksShapes(exe->program_shape) &&
      !thunkySignatureProgramShape(ex->arena, sigs, numArgs, &exe->program_shape, &why))
    ok = opError(main, why);
  /* Kept shapes, names on the arguments. */
  if (ok && exe->program_shape &&
      !thunkySignatureParameterNames(ex->arena, sigs, numArgs, exe->program_shape))
    ok = opError(main, why);
  return ok;
}
