/*===- constant_bytes.c - where a constant's bytes are --------------------===*/
#include "constant_bytes.h"

#include <stdlib.h>
#include <string.h>

/* XLA's symbol for a constant instruction: "buffer_for_" + its name with
 * '.', '-' and ';' made '_'. */
static bool symbolMatches(const char *symbol, const char *instruction) {
  static const char prefix[] = "buffer_for_";
  if (strncmp(symbol, prefix, sizeof prefix - 1) != 0)
    return false;
  symbol += sizeof prefix - 1;
  for (; *symbol && *instruction; ++symbol, ++instruction) {
    char c = *instruction == '.' || *instruction == '-' || *instruction == ';'
                 ? '_'
                 : *instruction;
    if (c != *symbol)
      return false;
  }
  return !*symbol && !*instruction;
}

static const Xla__LiteralProto *findLiteral(const Xla__Gpu__GpuExecutableProto *exe,
                                            const char *symbol) {
  const Xla__HloModuleProto *m =
      exe->hlo_module_with_config ? exe->hlo_module_with_config->hlo_module : NULL;
  for (size_t c = 0; m && symbol && c < m->n_computations; ++c)
    for (size_t i = 0; i < m->computations[c]->n_instructions; ++i) {
      const Xla__HloInstructionProto *inst = m->computations[c]->instructions[i];
      if (inst->opcode && strcmp(inst->opcode, "constant") == 0 && inst->name &&
          inst->literal && symbolMatches(symbol, inst->name))
        return inst->literal;
    }
  return NULL;
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

bool thunkyConstantBytes(const Xla__Gpu__GpuExecutableProto *exe,
                         const Xla__Gpu__GpuExecutableProto__ConstantInfoProto *c,
                         const void **data, size_t *size, bool *inProto,
                         unsigned char **owned, ThunkyError *error) {
  *owned = NULL;
  *inProto = c->content && c->content->has_data && c->content->data.len;
  if (*inProto) {
    *data = c->content->data.data, *size = c->content->data.len;
    return true;
  }
  const Xla__LiteralProto *l = findLiteral(exe, c->symbol_name);
  if (!l)
    return thunkyErrorf(error, "has no bytes and no HLO constant instruction");
  if (!literalBytes(l, data, size))
    return thunkyErrorf(error, "has a literal whose element type is not supported");
  if (l->shape->element_type != XLA__PRIMITIVE_TYPE__PRED)
    return true;
  /* protobuf-c keeps each bool as an int; the device uses one byte. */
  if (!(*owned = malloc(*size + 1)))
    return thunkyErrorf(error, "out of memory");
  for (size_t i = 0; i < *size; ++i)
    (*owned)[i] = l->preds[i] != 0;
  *data = *owned;
  return true;
}
