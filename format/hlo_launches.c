/*===- hlo_launches.c - the HLO instruction a launch runs, by its name --===*
 *
 * XLA names a kernel after the instruction it emits, every character other
 * than a letter, digit or '_' turned into '_' (llvm_ir::SanitizeFunctionName
 * in openxla/xla: xla/service/llvm_ir/llvm_util.cc). The instructions are
 * hashed once by that kernel name, and those whose name differs from it by
 * their own name too, so that finding many launches stays linear.
 *
 *===--------------------------------------------------------------------===*/
#include "hlo_launches.h"
#include "thunky-c/base/HashMap.h"
#include "thunky-c/format/HloText.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef Xla__HloInstructionProto Instr;

static const char *str(const char *s) { return s ? s : ""; }

static void sanitize(char *out, const char *name, size_t length) {
  for (size_t i = 0; i < length; i++)
    out[i] = isalnum((unsigned char)name[i]) ? name[i] : '_';
}

/* Whether `name` is `kernel` once sanitized. */
static bool sanitizesTo(const char *name, const char *kernel, size_t length) {
  if (strlen(name) != length)
    return false;
  for (size_t i = 0; i < length; i++)
    if ((isalnum((unsigned char)name[i]) ? name[i] : '_') != kernel[i])
      return false;
  return true;
}

static bool named(const Instr *in, const char *name, size_t length) {
  return strlen(str(in->name)) == length && !memcmp(str(in->name), name, length);
}

/* Maps `key` to entry `e` unless an entry already holds it (a name given
 * twice: the first wins, as a scan would find it), except that an
 * instruction named exactly `kernel` wins over one that only sanitizes to
 * it. */
static bool add(ThunkyHloLaunches *l, ThunkyHashMap *map, uint64_t key, uint32_t e,
                const char *kernel, size_t length) {
  uint32_t held;
  if (thunkyHashMapGet(map, key, &held) &&
      (named(l->instructions[held], kernel, length) || !named(l->instructions[e], kernel, length)))
    return true;
  return thunkyHashMapPut(map, key, e);
}

ThunkyHloLaunches *thunkyHloLaunchesCreate(const Xla__HloModuleProto *module) {
  ThunkyHloLaunches *l = calloc(1, sizeof *l);
  if (!l)
    return NULL;
  l->module = module;
  size_t total = 0;
  for (size_t c = 0; c < module->n_computations; c++) {
    const Xla__HloComputationProto *comp = module->computations[c];
    total += comp->is_fusion_computation ? 0 : comp->n_instructions;
    for (size_t i = 0; i < comp->n_instructions; i++) {
      size_t n = strlen(str(comp->instructions[i]->name));
      l->longest = n > l->longest ? n : l->longest;
    }
  }
  char *kernel = malloc(l->longest + 1);
  bool ok = kernel && total < UINT32_MAX && module->n_computations < UINT32_MAX &&
            (l->instructions = malloc((total ? total : 1) * sizeof *l->instructions));
  uint32_t e = 0;
  for (size_t c = 0; ok && c < module->n_computations; c++) {
    const Xla__HloComputationProto *comp = module->computations[c];
    ok = thunkyHashMapPut(&l->computations, (uint64_t)comp->id, (uint32_t)c);
    for (size_t i = 0; ok && !comp->is_fusion_computation && i < comp->n_instructions; i++, e++) {
      const char *name = str(comp->instructions[i]->name);
      size_t n = strlen(name);
      l->instructions[e] = comp->instructions[i];
      sanitize(kernel, name, n);
      ok = add(l, &l->byKernel, thunkyHashBytes(kernel, n), e, kernel, n) &&
           (!memcmp(kernel, name, n) ||
            add(l, &l->byName, thunkyHashBytes(name, n), e, name, n));
    }
  }
  free(kernel);
  if (!ok) {
    thunkyHloLaunchesDestroy(l);
    return NULL;
  }
  return l;
}

void thunkyHloLaunchesDestroy(ThunkyHloLaunches *l) {
  if (!l)
    return;
  thunkyHashMapDestroy(&l->byKernel);
  thunkyHashMapDestroy(&l->byName);
  thunkyHashMapDestroy(&l->computations);
  free(l->instructions);
  free(l->work);
  free(l);
}

const Xla__HloInstructionProto *thunkyHloLaunchFind(const ThunkyHloLaunches *l, const char *name,
                                                    size_t length, const char **computation) {
  const Instr *found = NULL;
  uint32_t e;
  if (length <= l->longest) {
    if (thunkyHashMapGet(&l->byName, thunkyHashBytes(name, length), &e) &&
        named(l->instructions[e], name, length))
      found = l->instructions[e];
    else if (thunkyHashMapGet(&l->byKernel, thunkyHashBytes(name, length), &e) &&
             sanitizesTo(str(l->instructions[e]->name), name, length))
      found = l->instructions[e];
  }
  uint32_t callee;
  if (computation)
    *computation = found && found->n_called_computation_ids == 1 &&
                           thunkyHashMapGet(&l->computations,
                                            (uint64_t)found->called_computation_ids[0], &callee)
                       ? str(l->module->computations[callee]->name)
                       : NULL;
  return found;
}
