/*===- constant_bytes.c - where a constant's bytes are --------------------===*
 *
 * XLA leaves a constant's bytes out of the executable when it carries its
 * HLO module: they are the literal of the HLO constant instruction whose
 * name the constant's symbol encodes.
 *
 *===--------------------------------------------------------------------===*/
#include "executable_internal.h"

#include <stdlib.h>
#include <string.h>

/* The symbol XLA gives the buffer of constant instruction `name`:
 * "buffer_for_" + the name with '.', '-' and ';' made '_'. NULL when out
 * of memory. */
static const char *symbolOf(const char *name, ThunkyArena *arena) {
  static const char prefix[] = "buffer_for_";
  size_t n = strlen(name), p = sizeof prefix - 1;
  char *symbol = thunkyArenaAlloc(arena, p + n + 1);
  if (!symbol)
    return NULL;
  memcpy(symbol, prefix, p);
  for (size_t i = 0; i < n; i++)
    symbol[p + i] = name[i] == '.' || name[i] == '-' || name[i] == ';' ? '_' : name[i];
  return symbol;
}

static bool isConstant(const Xla__HloInstructionProto *inst) {
  return inst->opcode && strcmp(inst->opcode, "constant") == 0 && inst->name && inst->literal;
}

/* Indexes every constant instruction of the HLO module once. */
static bool buildIndex(ThunkyExecutable *exe, ConstantLiterals *l) {
  const Xla__Gpu__GpuExecutableProto *p = exe->proto;
  const Xla__HloModuleProto *m =
      p->hlo_module_with_config ? p->hlo_module_with_config->hlo_module : NULL;
  size_t total = 0;
  for (size_t c = 0; m && c < m->n_computations; ++c)
    total += m->computations[c]->n_instructions;
  if (total >= UINT32_MAX || !(l->instructions = arrayOf(exe, total, sizeof *l->instructions)) ||
      !(l->symbolNames = arrayOf(exe, total, sizeof *l->symbolNames)))
    return false;
  uint32_t count = 0;
  for (size_t c = 0; m && c < m->n_computations; ++c)
    for (size_t i = 0; i < m->computations[c]->n_instructions; ++i) {
      const Xla__HloInstructionProto *inst = m->computations[c]->instructions[i];
      uint32_t earlier;
      if (!isConstant(inst))
        continue;
      const char *symbol = symbolOf(inst->name, internalOf(exe)->arena);
      if (!symbol)
        return false;
      uint64_t key = thunkyHashBytes(symbol, strlen(symbol));
      /* The first instruction of a symbol wins, as a scan would find it. */
      if (thunkyHashMapGet(&l->symbols, key, &earlier))
        continue;
      l->symbolNames[count] = symbol;
      l->instructions[count] = inst;
      if (!thunkyHashMapPut(&l->symbols, key, count++))
        return false;
    }
  l->built = true;
  return true;
}

/* The literal of the constant instruction whose buffer is `symbol`, or
 * NULL; false only when out of memory. */
static bool findLiteral(ThunkyExecutable *exe, ConstantLiterals *l, const char *symbol,
                        const Xla__LiteralProto **literal) {
  uint32_t i;
  *literal = NULL;
  if (!symbol)
    return true;
  if (!l->built && !buildIndex(exe, l))
    return false;
  if (thunkyHashMapGet(&l->symbols, thunkyHashBytes(symbol, strlen(symbol)), &i) &&
      strcmp(symbol, l->symbolNames[i]) == 0)
    *literal = l->instructions[i]->literal;
  return true;
}

/* The device bytes of a dense literal in its own layout. */
static bool literalBytes(const Xla__LiteralProto *l, const void **data,
                         size_t *size) {
  int type = l->shape ? l->shape->element_type : 0;
  switch (type) {
#define ARRAY(T, field, width)                                                 \
  case XLA__PRIMITIVE_TYPE__##T:                                               \
    *data = l->field, *size = l->n_##field * (width);                          \
    return true;
#define BYTES(T, field)                                                        \
  case XLA__PRIMITIVE_TYPE__##T:                                               \
    *data = l->field.data, *size = l->field.len;                               \
    return true;
    ARRAY(S32, s32s, 4) ARRAY(U32, u32s, 4) ARRAY(S64, s64s, 8)
    ARRAY(U64, u64s, 8) ARRAY(F32, f32s, 4) ARRAY(F64, f64s, 8)
    ARRAY(C64, c64s, 4) ARRAY(C128, c128s, 8)
    BYTES(S8, s8s) BYTES(U8, u8s) BYTES(S16, s16s) BYTES(U16, u16s)
    BYTES(F16, f16s) BYTES(BF16, bf16s) BYTES(F8E5M2, f8e5m2s)
    BYTES(F8E4M3FN, f8e4m3fns) BYTES(F8E4M3, f8e4m3s) BYTES(F8E3M4, f8e3m4s)
    BYTES(F8E4M3B11FNUZ, f8e4m3b11fnuzs) BYTES(F8E5M2FNUZ, f8e5m2fnuzs)
    BYTES(F8E4M3FNUZ, f8e4m3fnuzs) BYTES(F8E8M0FNU, f8e8m0fnus)
#undef ARRAY
#undef BYTES
  case XLA__PRIMITIVE_TYPE__PRED:
    *data = l->preds, *size = l->n_preds; /* widened by the caller */
    return true;
  default:
    return false;
  }
}

bool thunkyConstantBytesOf(ThunkyExecutable *exe, ConstantLiterals *literals,
                           const Xla__Gpu__GpuExecutableProto__ConstantInfoProto *c,
                           bool mayBeEmpty, ThunkyBytes *bytes, bool *inProto,
                           ThunkyError *error) {
  const char *name = c->symbol_name ? c->symbol_name : "(unnamed)";
  *inProto = c->content && c->content->has_data && c->content->data.len;
  if (*inProto) {
    *bytes = (ThunkyBytes){c->content->data.data, c->content->data.len};
    return true;
  }
  const Xla__LiteralProto *l;
  const void *data;
  size_t size;
  if (!findLiteral(exe, literals, c->symbol_name, &l))
    return thunkyErrorf(error, "out of memory");
  /* XLA fills a module global from the content alone; without it, the
   * module's own initializer holds the bytes, which thunky needs only for
   * an allocation. */
  if (mayBeEmpty && (!l || !literalBytes(l, &data, &size)))
    return *bytes = (ThunkyBytes){0}, true;
  if (!l)
    return thunkyErrorf(error, "constant %s has no bytes and no HLO constant instruction", name);
  if (!literalBytes(l, &data, &size))
    return thunkyErrorf(error, "constant %s has a literal whose element type is not supported",
                        name);
  if (l->shape->element_type != XLA__PRIMITIVE_TYPE__PRED) {
    *bytes = (ThunkyBytes){data, size};
    return true;
  }
  /* protobuf-c keeps each bool as an int; the device uses one byte. */
  uint8_t *widened = arrayOf(exe, size, 1);
  if (!widened)
    return thunkyErrorf(error, "out of memory");
  for (size_t i = 0; i < size; ++i)
    widened[i] = l->preds[i] != 0;
  *bytes = (ThunkyBytes){widened, size};
  return true;
}
