/*===- plan_keys.c - what a thunk computes, as one 64-bit key ------------===*
 *
 * A fingerprint run replaces a thunk the host cannot run by a keyed hash
 * of the bytes it reads, so the key must change with anything that changes
 * the computation (kind, kernel name, launch dimensions, shapes, config,
 * binary, target, opaque bytes) and with nothing a correct rewrite may
 * change: where the buffers are (allocation and offset) and the thunk's id,
 * annotation and stream. The thunk's own message is walked through its
 * protobuf-c descriptor, so every kind of the schema is covered without a
 * list of fields.
 *
 *===--------------------------------------------------------------------===*/
#include "plan_builder.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdu;
  return h ^ (h >> 33);
}

static uint64_t mixBytes(uint64_t h, const void *data, size_t size) {
  return mix(mix(h, size), size ? thunkyHashBytes(data, size) : 0);
}

static uint64_t scalar(const ProtobufCFieldDescriptor *f, const void *p) {
  switch (f->type) {
  case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32: case PROTOBUF_C_TYPE_SFIXED32:
  case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_ENUM:
  case PROTOBUF_C_TYPE_FLOAT: {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  case PROTOBUF_C_TYPE_BOOL:
    return *(const protobuf_c_boolean *)p != 0;
  default: { /* 64-bit integers and doubles */
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
  }
  }
}

static size_t elementSize(const ProtobufCFieldDescriptor *f) {
  switch (f->type) {
  case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
  case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE:
    return 8;
  case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
  case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_MESSAGE: return sizeof(void *);
  case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
  default: return 4;
  }
}

static uint64_t message(uint64_t h, const ProtobufCMessage *m, unsigned depth);

/* A protobuf map is a repeated field of entries whose order means nothing
 * (export writes an FFI attribute map sorted by key): its entries count as
 * a set. */
static bool isMapEntry(const ProtobufCFieldDescriptor *f) {
  if (f->type != PROTOBUF_C_TYPE_MESSAGE)
    return false;
  const ProtobufCMessageDescriptor *d = f->descriptor;
  size_t n = strlen(d->name);
  return d->n_fields == 2 && n > 5 && !strcmp(d->name + n - 5, "Entry") &&
         !strcmp(d->fields[0].name, "key") && !strcmp(d->fields[1].name, "value");
}

static uint64_t value(uint64_t h, const ProtobufCFieldDescriptor *f, const void *p,
                      unsigned depth) {
  switch (f->type) {
  case PROTOBUF_C_TYPE_STRING: {
    const char *s = *(const char *const *)p;
    return s ? mixBytes(h, s, strlen(s)) : mix(h, 1);
  }
  case PROTOBUF_C_TYPE_BYTES: {
    const ProtobufCBinaryData *d = p;
    return mixBytes(h, d->data, d->len);
  }
  case PROTOBUF_C_TYPE_MESSAGE: {
    const ProtobufCMessage *m = *(const ProtobufCMessage *const *)p;
    return m ? message(h, m, depth + 1) : mix(h, 2);
  }
  default:
    return mix(h, scalar(f, p));
  }
}

/* The model bounds nesting at 64 thunks; messages inside one are shallow,
 * and the depth bound keeps a crafted one from exhausting the stack. */
static uint64_t message(uint64_t h, const ProtobufCMessage *m, unsigned depth) {
  const ProtobufCMessageDescriptor *d = m->descriptor;
  if (d == &xla__buffer_assignment__buffer_allocation_slice_proto__descriptor)
    return mix(h, (uint64_t)((const SliceProto *)m)->size);
  if (depth > 256)
    return mix(h, 3);
  h = mixBytes(h, d->name, strlen(d->name));
  /* Fields newer than the schema, which import keeps as bytes: an XLA
   * that sets one computes something this schema cannot name. */
  for (unsigned i = 0; i < m->n_unknown_fields; i++) {
    const ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
    h = mixBytes(mix(mix(h, u->tag), u->wire_type), u->data, u->len);
  }
  for (unsigned i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    const char *field = (const char *)m + f->offset;
    const char *quantifier = (const char *)m + f->quantifier_offset;
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t n = *(const size_t *)quantifier;
      const char *items = *(const char *const *)field;
      h = mix(mix(h, f->id), n);
      bool set = isMapEntry(f);
      uint64_t sum = 0;
      for (size_t k = 0; k < n; k++) {
        if (set)
          sum += value(0, f, items + k * elementSize(f), depth);
        else
          h = value(h, f, items + k * elementSize(f), depth);
      }
      h = set ? mix(h, sum) : h;
      continue;
    }
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
      if (*(const uint32_t *)quantifier != f->id)
        continue;
    } else if (f->quantifier_offset && f->type != PROTOBUF_C_TYPE_MESSAGE &&
               f->type != PROTOBUF_C_TYPE_STRING && !*(const protobuf_c_boolean *)quantifier) {
      continue; /* an optional scalar that is not set */
    }
    h = value(mix(h, f->id), f, field, depth);
  }
  return h;
}

/* The code a thunk runs that its message only names: the executable's
 * module (cubin, else PTX) for a kernel and for the kernels a dynamic-slice
 * thunk or fusion embeds, and the compiled graphs for cuDNN (a set, by
 * name). Hashed once per plan: per launch would cost launches times its
 * size. */
static uint64_t codeKey(Builder *b, Xla__Gpu__ThunkProto__ImplCase kind) {
  const Executable *exe = b->exe;
  if (kind == XLA__GPU__THUNK_PROTO__IMPL_CUDNN_THUNK) {
    if (!b->hasGraphsKey) {
      uint64_t sum = 0;
      for (size_t i = 0; i < exe->n_dnn_compiled_graphs; i++) {
        const Xla__Gpu__GpuExecutableProto__DnnCompiledGraphsEntry *e =
            exe->dnn_compiled_graphs[i];
        const char *name = e->key ? e->key : "";
        sum += mixBytes(mixBytes(3, name, strlen(name)), e->value.data, e->value.len);
      }
      b->graphsKey = mix(exe->n_dnn_compiled_graphs, sum);
      b->hasGraphsKey = true;
    }
    return b->graphsKey;
  }
  if (!b->hasBinaryKey) {
    bool cubin = exe->has_binary && exe->binary.len;
    b->binaryKey = cubin ? mixBytes(1, exe->binary.data, exe->binary.len)
                   : exe->has_asm_text ? mixBytes(2, exe->asm_text.data, exe->asm_text.len)
                                       : 0;
    b->hasBinaryKey = true;
  }
  return b->binaryKey;
}

uint64_t thunkyPlanThunkKey(Builder *b, const Thunk *t) {
  const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(
      &xla__gpu__thunk_proto__descriptor, (unsigned)t->impl_case);
  uint64_t h = mix(0x7468756e6b79u, (uint64_t)t->impl_case);
  if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
    const ProtobufCMessage *impl = *(const ProtobufCMessage *const *)((const char *)t + f->offset);
    if (impl)
      h = message(h, impl, 0);
  }
  switch (t->impl_case) {
  case XLA__GPU__THUNK_PROTO__IMPL_KERNEL_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_DYNAMIC_SLICE_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_DYNAMIC_SLICE_FUSION_THUNK:
  case XLA__GPU__THUNK_PROTO__IMPL_CUDNN_THUNK:
    return mix(h, codeKey(b, t->impl_case));
  default:
    return h;
  }
}

typedef struct Span {
  uint32_t allocation, index;
  uint64_t start, end;
  bool writes;
} Span;

static int bySpan(const void *x, const void *y) {
  const Span *a = x, *b = y;
  if (a->allocation != b->allocation)
    return a->allocation < b->allocation ? -1 : 1;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* Which of a thunk's buffers overlap, and how, where one of them is
 * written: an output moved onto its own input is another computation (a
 * race on a GPU) though each slice keeps its size. Buffers that overlap
 * form runs, each named by its first buffer in the thunk's order, and each
 * member is hashed with its run's name and its offset in the run: where
 * the runs lie does not count, as moving buffers changes nothing. Buffers
 * that only read the same bytes are left out (a copy elided into a second
 * read of its source). n log n in the thunk's buffers. */
bool thunkyPlanOverlapKey(const ThunkyPlanAccess *accesses, uint32_t n, uint64_t *key) {
  if (n < 2)
    return true;
  Span *spans = malloc(n * sizeof *spans);
  uint32_t *name = malloc(n * sizeof *name);
  uint64_t *at = malloc(n * sizeof *at);
  if (!spans || !name || !at)
    return free(spans), free(name), free(at), false;
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++) {
    ThunkyPlanSlice s = accesses[i].slice;
    name[i] = UINT32_MAX;
    if (s.size)
      spans[m++] = (Span){s.allocation, i, s.offset, s.offset + s.size,
                          (accesses[i].access & THUNKY_ACCESS_WRITE) != 0};
  }
  qsort(spans, m, sizeof *spans, bySpan);
  bool any = false;
  for (uint32_t i = 0; i < m;) {
    uint32_t j = i + 1, first = spans[i].index;
    uint64_t end = spans[i].end;
    bool writes = spans[i].writes;
    for (; j < m && spans[j].allocation == spans[i].allocation && spans[j].start < end; j++) {
      end = spans[j].end > end ? spans[j].end : end;
      writes |= spans[j].writes;
      first = spans[j].index < first ? spans[j].index : first;
    }
    for (uint32_t k = i; j - i > 1 && writes && k < j; k++)
      name[spans[k].index] = first, at[spans[k].index] = spans[k].start - spans[i].start;
    any |= j - i > 1 && writes;
    i = j;
  }
  /* In the thunk's order, so the hash does not depend on the sort. */
  uint64_t h = *key;
  for (uint32_t i = 0; any && i < n; i++)
    if (name[i] != UINT32_MAX)
      h = mix(mix(mix(h, i), name[i]), at[i]);
  *key = any ? mix(h, 0x616c696173u) : *key;
  free(spans), free(name), free(at);
  return true;
}
