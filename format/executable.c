/*===- executable.c - the structure of a GpuExecutableProto, read once --===*
 *
 * Import and the planner both start here. Reading is linear in the input:
 * parameters and outputs are sorted, constants find their HLO literals
 * through a map of symbols, async ids through a map of ids.
 *
 *===--------------------------------------------------------------------===*/
#include "executable_internal.h"

#include "thunky-c/format/Wire.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*--- reading the bytes -----------------------------------------------------*/

/* Whether the top level holds only the golden wrapper's two fields: a bare
 * executable has more, and unpacking it as the wrapper first would copy
 * all of it as unknown fields. */
static bool onlyWrapperFields(ThunkyBytes bytes) {
  size_t pos = 0;
  ThunkyWireField f;
  while (pos < bytes.size)
    if (!thunkyNextWireField(bytes.data, bytes.size, &pos, &f, NULL) || f.number > 2)
      return false;
  return true;
}

static Xla__Gpu__GpuExecutableProto *golden(Xla__HumanReadableAotExecutable *w,
                                             bool thunksLeftOut) {
  /* The oneof's members share storage: gpu_executable is only read as one
   * when the case says so. */
  if (!w || w->backend_executable_case !=
                XLA__HUMAN_READABLE_AOT_EXECUTABLE__BACKEND_EXECUTABLE_GPU_EXECUTABLE)
    return NULL;
  Xla__Gpu__GpuExecutableProto *exe = w->gpu_executable;
  if (!exe || w->base.n_unknown_fields ||
      !(exe->n_thunks || thunksLeftOut || exe->buffer_allocations))
    return NULL;
  return exe;
}

Xla__Gpu__GpuExecutableProto *thunkyGoldenExecutable(Xla__HumanReadableAotExecutable *w) {
  return golden(w, false);
}

/* The executable in the container: XLA's golden wrapper (only where no
 * container was around it) or a bare executable, unpacked into the arena. */
static bool unpack(ThunkyExecutable *exe, ThunkyLeftOut *thunks, ThunkyError *error) {
  ProtobufCAllocator *alloc = thunkyArenaAllocator(internalOf(exe)->arena);
  ThunkyBytes bytes = exe->container.executable;
  ThunkyError asExecutable;
  if (exe->container.layering == THUNKY_LAYERING_EXECUTABLE && onlyWrapperFields(bytes) &&
      thunkyValidateWire(&xla__human_readable_aot_executable__descriptor, bytes.data, bytes.size,
                      NULL)) {
    Xla__HumanReadableAotExecutable *w = (Xla__HumanReadableAotExecutable *)thunkyUnpackSliced(
        &xla__human_readable_aot_executable__descriptor, alloc, bytes.data, bytes.size,
        &internalOf(exe)->strings, thunks);
    if ((exe->proto = golden(w, thunks && thunks->count))) {
      exe->wrapper = w;
      return true;
    }
  }
  /* Strings and thunks of a wrapper that was none. */
  internalOf(exe)->strings.size = 0;
  if (thunks) {
    free(thunks->values);
    thunks->values = NULL, thunks->count = 0;
  }
  /* Bare bytes that are neither were refused with the container. */
  if (!exe->container.wireChecked &&
      !thunkyValidateWire(&xla__gpu__gpu_executable_proto__descriptor, bytes.data, bytes.size,
                       &asExecutable))
    return thunkyErrorf(error, "not a GpuExecutableProto: %s", asExecutable.message);
  exe->proto = (Xla__Gpu__GpuExecutableProto *)thunkyUnpackSliced(
      &xla__gpu__gpu_executable_proto__descriptor, alloc, bytes.data, bytes.size,
      &internalOf(exe)->strings, thunks);
  return exe->proto ||
         thunkyErrorf(error, "not a GpuExecutableProto: protobuf-c could not unpack it");
}

/*--- allocations -------------------------------------------------------------*/

static bool readAllocations(ThunkyExecutable *exe, const ThunkyLimits *limits,
                            ThunkyError *error) {
  size_t n = exe->proto->buffer_allocations ? exe->proto->buffer_allocations->n_values : 0;
  if (n > limits->maxAllocations)
    return thunkyErrorf(error, "%zu allocations, more than the max-allocations limit (%" PRIu64 ")",
                        n, limits->maxAllocations);
  exe->allocations = arrayOf(exe, n, sizeof *exe->allocations);
  if (!exe->allocations)
    return thunkyErrorf(error, "out of memory");
  exe->numAllocations = (uint32_t)n;
  for (size_t i = 0; i < n; i++) {
    const Xla__BufferAllocationProto *a = exe->proto->buffer_allocations->values[i];
    if (a->index != (int64_t)i)
      return thunkyErrorf(error,
                          "allocation %zu has index %" PRId64
                          "; XLA requires each allocation at the position of its index",
                          i, a->index);
    if (a->size < 0)
      return thunkyErrorf(error, "allocation %zu has negative size %" PRId64, i, a->size);
    if ((uint64_t)a->size > limits->maxAllocationBytes)
      return thunkyErrorf(error, "allocation %zu has %" PRId64 " bytes, more than the "
                          "max-allocation-bytes limit (%" PRIu64 ")", i, a->size,
                          limits->maxAllocationBytes);
    if (a->is_entry_computation_parameter && a->parameter_number < 0)
      return thunkyErrorf(error, "allocation %zu is entry parameter %" PRId64, i,
                          a->parameter_number);
    exe->allocations[i] = (ThunkyExecutableAllocation){
        .proto = a,
        .size = (uint64_t)a->size,
        .parameter = a->is_entry_computation_parameter ? a->parameter_number : -1,
        .constant = -1};
  }
  return true;
}

/* Lexicographic order of shape indices. */
static int compareIndex(size_t na, const int64_t *a, size_t nb, const int64_t *b) {
  for (size_t i = 0; i < na && i < nb; i++)
    if (a[i] != b[i])
      return a[i] < b[i] ? -1 : 1;
  return (na > nb) - (na < nb);
}

static const Xla__ShapeProto *subshape(const Xla__ShapeProto *s, size_t n, const int64_t *index) {
  for (size_t i = 0; s && i < n; i++)
    s = index[i] >= 0 && (size_t)index[i] < s->n_tuple_shapes ? s->tuple_shapes[index[i]] : NULL;
  return s;
}

/* What parameters are ordered by, copied out so qsort needs no context. */
typedef struct ParameterKey {
  int64_t number;
  const int64_t *index;
  size_t indexLength;
  uint32_t allocation;
} ParameterKey;

static int compareParameters(const void *x, const void *y) {
  const ParameterKey *a = x, *b = y;
  if (a->number != b->number)
    return a->number < b->number ? -1 : 1;
  int c = compareIndex(a->indexLength, a->index, b->indexLength, b->index);
  return c ? c : (a->allocation > b->allocation) - (a->allocation < b->allocation);
}

static bool readParameters(ThunkyExecutable *exe, ThunkyError *error) {
  ParameterKey *keys = arrayOf(exe, exe->numAllocations, sizeof *keys);
  exe->parameters = arrayOf(exe, exe->numAllocations, sizeof *exe->parameters);
  if (!keys || !exe->parameters)
    return thunkyErrorf(error, "out of memory");
  for (uint32_t a = 0; a < exe->numAllocations; a++) {
    const ThunkyExecutableAllocation *alloc = &exe->allocations[a];
    if (alloc->parameter >= 0)
      keys[exe->numParameters++] =
          (ParameterKey){alloc->parameter, alloc->proto->parameter_shape_index,
                         alloc->proto->n_parameter_shape_index, a};
  }
  qsort(keys, exe->numParameters, sizeof *keys, compareParameters);
  for (uint32_t p = 0; p < exe->numParameters; p++)
    exe->parameters[p] = keys[p].allocation;
  const Xla__ProgramShapeProto *ps = exe->proto->program_shape;
  for (uint32_t p = 0; p < exe->numParameters; p++) {
    ThunkyExecutableAllocation *a = &exe->allocations[exe->parameters[p]];
    if (ps && (uint64_t)a->parameter < ps->n_parameters)
      a->shape = subshape(ps->parameters[a->parameter], a->proto->n_parameter_shape_index,
                          a->proto->parameter_shape_index);
  }
  return true;
}

typedef Xla__Gpu__GpuExecutableProto__OutputInfoMapEntry OutputEntry;

static int indexOrder(const Xla__ShapeIndexProto *a, const Xla__ShapeIndexProto *b) {
  return compareIndex(a ? a->n_indexes : 0, a ? a->indexes : NULL, b ? b->n_indexes : 0,
                      b ? b->indexes : NULL);
}

static int compareOutputs(const void *x, const void *y) {
  const OutputEntry *a = *(OutputEntry *const *)x, *b = *(OutputEntry *const *)y;
  return indexOrder(a->shape_index, b->shape_index);
}

static bool readOutputs(ThunkyExecutable *exe, ThunkyError *error) {
  size_t n = exe->proto->n_output_info_map;
  OutputEntry **sorted = arrayOf(exe, n, sizeof *sorted);
  exe->outputs = arrayOf(exe, n, sizeof *exe->outputs);
  if (!sorted || !exe->outputs)
    return thunkyErrorf(error, "out of memory");
  if (n)
    memcpy(sorted, exe->proto->output_info_map, n * sizeof *sorted);
  qsort(sorted, n, sizeof *sorted, compareOutputs);
  const Xla__ShapeProto *result = exe->proto->program_shape ? exe->proto->program_shape->result
                                                            : NULL;
  for (size_t i = 0; i < n; i++) {
    const OutputEntry *e = sorted[i];
    /* A map: XLA writes each shape index once, and an export could not say
     * which of two entries was meant. */
    if (i && compareOutputs(&sorted[i - 1], &sorted[i]) == 0) {
      char index[64] = "{";
      size_t used = 1, count = e->shape_index ? e->shape_index->n_indexes : 0;
      for (size_t k = 0; k < count && used < sizeof index - 24; k++)
        used += (size_t)snprintf(index + used, sizeof index - used, "%s%" PRId64, k ? ", " : "",
                                 e->shape_index->indexes[k]);
      snprintf(index + used, sizeof index - used, "%s}", used < sizeof index - 24 ? "" : ", ...");
      return thunkyErrorf(error, "output_info_map names shape index %s twice", index);
    }
    /* An absent index reads as XLA reads it: allocation 0. */
    int64_t a = e->output_info ? e->output_info->allocation_index : 0;
    if (a < 0 || (uint64_t)a >= exe->numAllocations)
      return thunkyErrorf(error, "output_info_map names unknown allocation %" PRId64
                          " (the executable has %u)", a, exe->numAllocations);
    const Xla__ShapeProto *shape =
        result && e->shape_index
            ? subshape(result, e->shape_index->n_indexes, e->shape_index->indexes)
            : result;
    /* XLA lists the tuple itself too (its index table): not an array. */
    if (shape && (shape->element_type == XLA__PRIMITIVE_TYPE__TUPLE || shape->n_tuple_shapes))
      continue;
    ThunkyExecutableAllocation *alloc = &exe->allocations[a];
    exe->outputs[exe->numOutputs++] =
        (ThunkyExecutableOutput){(uint32_t)a, e->shape_index, shape};
    if (!alloc->isOutput) {
      alloc->isOutput = true;
      alloc->outputIndex = e->shape_index;
      if (alloc->parameter < 0)
        alloc->shape = shape;
    }
  }
  return true;
}

/*--- constants -----------------------------------------------------------------*/

static bool readConstants(ThunkyExecutable *exe, ThunkyError *error) {
  size_t n = exe->proto->n_constants;
  exe->constants = arrayOf(exe, n, sizeof *exe->constants);
  if (!exe->constants)
    return thunkyErrorf(error, "out of memory");
  ConstantLiterals literals = {0};
  bool ok = true;
  for (size_t i = 0; ok && i < n; i++) {
    Xla__Gpu__GpuExecutableProto__ConstantInfoProto *c = exe->proto->constants[i];
    const char *name = c->symbol_name ? c->symbol_name : "(unnamed)";
    bool placed = c->allocation_index != -1; /* else a module global only */
    if (placed &&
        (c->allocation_index < 0 || (uint64_t)c->allocation_index >= exe->numAllocations)) {
      ok = thunkyErrorf(error, "constant %s names unknown allocation %" PRId64
                        " (the executable has %u)", name, c->allocation_index, exe->numAllocations);
      break;
    }
    ThunkyExecutableAllocation *a = placed ? &exe->allocations[c->allocation_index] : NULL;
    ThunkyExecutableConstant *k = &exe->constants[exe->numConstants];
    *k = (ThunkyExecutableConstant){
        .proto = c, .allocation = placed ? (uint32_t)c->allocation_index : THUNKY_NO_ALLOCATION};
    ok = thunkyConstantBytesOf(exe, &literals, c, !placed, &k->bytes, &k->inProto, error);
    if (ok && a && k->bytes.size > a->size)
      ok = thunkyErrorf(error, "constant %s holds %zu bytes, more than its allocation %u (%" PRIu64
                        " bytes)", name, k->bytes.size, k->allocation, a->size);
    if (ok && a && a->constant < 0)
      a->constant = (int32_t)exe->numConstants;
    exe->numConstants += ok;
  }
  thunkyHashMapDestroy(&literals.symbols);
  return ok;
}

/*--- the whole -----------------------------------------------------------------*/

static bool create(const void *data, size_t size, const ThunkyLimits *limits, bool whole,
                   ThunkyExecutable **out, ThunkyError *error) {
  ThunkyExecutable *exe = calloc(1, sizeof *exe);
  ExecutableInternal *in = calloc(1, sizeof *in);
  *out = NULL;
  if (!exe || !in || !(in->arena = thunkyArenaCreate())) {
    free(exe), free(in);
    return thunkyErrorf(error, "out of memory");
  }
  exe->internal = in;
  in->limits = limits ? *limits : thunkyLimitsDefault();
  ThunkyLeftOut thunks = {&xla__gpu__gpu_executable_proto__descriptor,
                          protobuf_c_message_descriptor_get_field_by_name(
                              &xla__gpu__gpu_executable_proto__descriptor, "thunks")
                              ->id,
                          NULL, 0};
  bool opened = thunkyContainerCreate(data, size, &in->limits, &exe->container, error);
  bool ok = opened && unpack(exe, whole ? NULL : &thunks, error);
  in->wireThunks = thunks.values, in->numWireThunks = thunks.count;
  ok = ok && readAllocations(exe, &in->limits, error) && readParameters(exe, error) &&
       readOutputs(exe, error) && readConstants(exe, error) &&
       (!whole || thunkyExecutableReadThunks(exe, &in->limits, error));
  in->thunksChecked = whole;
  if (!opened)
    exe->container = (ThunkyContainer){0};
  if (!ok) {
    thunkyExecutableDestroy(exe);
    return false;
  }
  *out = exe;
  return true;
}

bool thunkyExecutableCreate(const void *data, size_t size, const ThunkyLimits *limits,
                            ThunkyExecutable **out, ThunkyError *error) {
  return create(data, size, limits, true, out, error);
}

bool thunkyExecutableOpen(const void *data, size_t size, const ThunkyLimits *limits,
                          ThunkyExecutable **out, ThunkyError *error) {
  return create(data, size, limits, false, out, error);
}

/* Checks `t` on a pass that has not been completed before, then visits it. */
static bool visitThunk(ThunkyExecutable *exe, ThunkyThunkProto *t, ThunkyThunkVisit visit,
                       void *userData, ThunkyError *error) {
  ExecutableInternal *in = internalOf(exe);
  return (in->thunksChecked || thunkyExecutableReadThunk(exe, &in->limits, t, error)) &&
         visit(t, userData, error);
}

bool thunkyExecutableForEachThunk(ThunkyExecutable *exe, ThunkyThunkVisit visit,
                                  void *userData, ThunkyError *error) {
  ExecutableInternal *in = internalOf(exe);
  if (!in->thunksChecked) {
    /* A pass that stopped early left counts behind: this one starts over. */
    thunkyHashMapDestroy(&in->asyncSlots);
    exe->numAsyncSlots = 0, exe->numThunks = 0, exe->maxDepth = 1;
  }
  bool ok = true;
  for (size_t i = 0; ok && i < exe->proto->n_thunks; i++)
    ok = visitThunk(exe, exe->proto->thunks[i], visit, userData, error);
  /* Each thunk left in the wire lives in the arena only while it is
   * visited: memory stays that of the largest thunk, not of all of them.
   * A plain unpack: copying a thunk's kernel code into memory that is
   * reused costs less than cutting it out (unpack_sliced.c), which pays
   * where everything is unpacked at once. */
  ThunkyArena *arena = in->numWireThunks ? thunkyArenaCreate() : NULL;
  for (size_t i = 0; ok && i < in->numWireThunks; i++) {
    ThunkyThunkProto *t =
        arena ? (ThunkyThunkProto *)protobuf_c_message_unpack(
                    &xla__gpu__thunk_proto__descriptor, thunkyArenaAllocator(arena),
                    in->wireThunks[i].size, in->wireThunks[i].data)
              : NULL;
    ok = t ? visitThunk(exe, t, visit, userData, error)
           : thunkyErrorf(error, "top-level thunk %zu: out of memory, or protobuf-c could not "
                          "unpack it", i);
    thunkyArenaReset(arena);
  }
  thunkyArenaDestroy(arena);
  in->thunksChecked |= ok;
  return ok;
}

void thunkyExecutableDestroy(ThunkyExecutable *exe) {
  if (!exe)
    return;
  ExecutableInternal *in = internalOf(exe);
  thunkyContainerDestroy(&exe->container);
  thunkyHashMapDestroy(&in->asyncSlots);
  thunkyBufferDestroy(&in->strings);
  free(in->wireThunks);
  thunkyArenaDestroy(in->arena);
  free(in);
  free(exe);
}

ThunkyBytes thunkyExecutableTakeStrings(ThunkyExecutable *exe) {
  ThunkyBuffer *strings = &internalOf(exe)->strings;
  ThunkyBytes taken = {strings->data, strings->size};
  *strings = (ThunkyBuffer){0};
  return taken;
}

void *thunkyExecutableAlloc(ThunkyExecutable *exe, size_t count, size_t size) {
  if (size && count > SIZE_MAX / size - 1)
    return NULL;
  return thunkyArenaAlloc(internalOf(exe)->arena, (count + 1) * size);
}

bool thunkyThunkKindIsCollective(const char *kind, size_t length) {
  char name[64];
  if (!kind || length >= sizeof name)
    return false;
  memcpy(name, kind, length);
  name[length] = 0;
  const ProtobufCFieldDescriptor *f =
      protobuf_c_message_descriptor_get_field_by_name(&xla__gpu__thunk_proto__descriptor, name);
  if (!f || !(f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) || f->type != PROTOBUF_C_TYPE_MESSAGE)
    return false;
  return protobuf_c_message_descriptor_get_field_by_name(f->descriptor, "collective_config") != NULL;
}
