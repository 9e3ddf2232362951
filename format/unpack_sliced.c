/*===- unpack_sliced.c - protobuf-c's unpack, with no copy of long bytes ===*
 *
 * protobuf-c copies every bytes field it unpacks. A real executable is
 * mostly kernel code (cubins of a few KB to tens of MB), so a plain unpack
 * copied most of the input, and its page faults cost more than the copy.
 * Here the long bytes and string fields are cut out of the wire first: each
 * leaves an empty value of its field in its place, the lengths of the
 * messages around it shrink, and protobuf-c unpacks the small remainder.
 * Then each cut bytes value is pointed at its bytes in the input, and each
 * cut string (which protobuf-c hands out NUL-terminated) at its one copy in
 * a block of strings the caller may take over (thunkyExecutableTakeStrings).
 *
 * The input must have passed thunkyValidateWire for the same message. Where
 * the wire does something a cut could not reproduce exactly (a singular
 * message field given twice, which protobuf-c merges), the plain unpack
 * runs instead.
 *
 *===--------------------------------------------------------------------===*/
#include "executable_internal.h"

#include "thunky-c/format/Wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Bytes fields shorter than this are copied as protobuf-c copies them:
 * cutting costs more than it saves below a page or so. */
#define CUT_MIN 1024

/* A message that holds a cut, or holds one that does, in the order the
 * wire gives them (a parent before its children). */
typedef struct Node {
  uint32_t parent;                      /* NO_NODE for the top message */
  const ProtobufCFieldDescriptor *field; /* the parent's field holding it */
  uint32_t index;                       /* which value of it, when repeated */
  size_t lengthAt, payload, end;       /* its length prefix and bytes in the input */
  size_t removed;                       /* how much shorter they get */
} Node;

/* A long bytes value: where it lies in the input, and where it goes; or a
 * value of the field left out, which goes nowhere. */
typedef struct Cut {
  uint32_t node;
  const ProtobufCFieldDescriptor *field;
  uint32_t index;
  size_t begin, lengthAt;   /* its tag and length prefix in the input */
  size_t payload, length;
  bool superseded; /* a later value of the same singular field wins */
  bool leftOut;    /* the whole field goes, tag and all */
} Cut;

#define NO_NODE UINT32_MAX

typedef struct Slicer {
  const uint8_t *data;
  const ThunkyLeftOut *leave;
  Node *nodes;
  size_t numNodes, nodesCapacity;
  Cut *cuts;
  size_t numCuts, cutsCapacity;
  size_t stringBytes; /* the cut strings' lengths, each + 1 */
  bool inexact; /* the plain unpack must run */
  bool failed;  /* out of memory */
} Slicer;

/* One message being scanned; its node is made when a cut is found in it. */
typedef struct Frame {
  struct Frame *parent;
  const ProtobufCFieldDescriptor *field;
  uint32_t index;
  size_t lengthAt, payload, end;
  uint32_t node;
} Frame;

/* The node of the message `f` scans (NO_NODE for the top message, which
 * has none), made with its ancestors' on first use. */
static uint32_t nodeOf(Slicer *s, Frame *f) {
  if (f->node != NO_NODE || !f->parent || s->failed)
    return f->node;
  uint32_t parent = nodeOf(s, f->parent);
  if (s->failed ||
      !thunkyArrayGrow((void **)&s->nodes, &s->nodesCapacity, s->numNodes, sizeof *s->nodes)) {
    s->failed = true;
    return NO_NODE;
  }
  s->nodes[s->numNodes] = (Node){parent, f->field, f->index, f->lengthAt, f->payload, f->end, 0};
  return f->node = (uint32_t)s->numNodes++;
}

static bool addCut(Slicer *s, Cut cut) {
  if (s->failed ||
      !thunkyArrayGrow((void **)&s->cuts, &s->cutsCapacity, s->numCuts, sizeof *s->cuts))
    return !(s->failed = true);
  s->cuts[s->numCuts++] = cut;
  return true;
}

static size_t varintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80)
    v >>= 7, ++n;
  return n;
}

/* Where a length-prefixed field's length starts (a length need not be
 * written in its fewest bytes). */
static size_t lengthPrefix(const uint8_t *data, const ThunkyWireField *f) {
  size_t pos = f->begin;
  uint64_t tag;
  thunkyReadVarint(data, f->payload, &pos, &tag);
  return pos;
}

/* Finds the cuts in the message at data[begin, end); returns how many bytes
 * they take out of it. */
static size_t scan(Slicer *s, const ProtobufCMessageDescriptor *desc, Frame *frame,
                   size_t begin, size_t end) {
  /* Per field of desc: how many values were seen (repeated fields), or the
   * last cut + 1 (singular bytes) or whether it was seen (singular
   * messages). */
  uint32_t *seen = calloc(desc->n_fields + 1, sizeof *seen);
  if (!seen) {
    s->failed = true;
    return 0;
  }
  size_t removed = 0, pos = begin;
  ThunkyWireField w;
  while (pos < end && !s->failed && !s->inexact &&
         thunkyNextWireField(s->data, end, &pos, &w, NULL)) {
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(desc, w.number);
    if (!f || w.wireType != PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED)
      continue;
    size_t length = w.end - w.payload, lengthAt = lengthPrefix(s->data, &w);
    size_t i = (size_t)(f - desc->fields);
    bool repeated = f->label == PROTOBUF_C_LABEL_REPEATED;
    if (s->leave && desc == s->leave->message && w.number == s->leave->field && repeated) {
      uint32_t node = nodeOf(s, frame);
      if (!addCut(s, (Cut){node, f, 0, w.begin, lengthAt, w.payload, length, false, true}))
        break;
      removed += w.end - w.begin;
    } else if (f->type == PROTOBUF_C_TYPE_MESSAGE) {
      if (!repeated && seen[i]++) {
        s->inexact = true; /* protobuf-c merges the two; a cut could not */
        break;
      }
      Frame child = {frame, f, repeated ? seen[i]++ : 0, lengthAt, w.payload, w.end, NO_NODE};
      /* A message shorter than a cut holds none. */
      size_t less = length < CUT_MIN ? 0 : scan(s, f->descriptor, &child, w.payload, w.end);
      if (less) {
        s->nodes[child.node].removed = less;
        removed += less + (w.payload - lengthAt) - varintSize(length - less);
      }
    } else if (f->type == PROTOBUF_C_TYPE_BYTES || f->type == PROTOBUF_C_TYPE_STRING) {
      uint32_t index = repeated ? seen[i]++ : 0;
      if (!repeated && seen[i])
        s->cuts[seen[i] - 1].superseded = true;
      if (!repeated)
        seen[i] = 0;
      if (length < CUT_MIN)
        continue;
      uint32_t node = nodeOf(s, frame);
      if (!addCut(s, (Cut){node, f, index, w.begin, lengthAt, w.payload, length, false, false}))
        break;
      if (f->type == PROTOBUF_C_TYPE_STRING)
        s->stringBytes += length + 1;
      if (!repeated)
        seen[i] = (uint32_t)s->numCuts;
      /* The value becomes empty: its length is one byte. */
      removed += length + (w.payload - lengthAt) - 1;
    }
  }
  free(seen);
  return removed;
}

typedef struct Writer {
  const uint8_t *data;
  uint8_t *out;
  size_t at, copied; /* written to out; read from data */
  const Slicer *s;
  size_t nextNode, nextCut;
} Writer;

static void put(Writer *w, size_t upTo) {
  memcpy(w->out + w->at, w->data + w->copied, upTo - w->copied);
  w->at += upTo - w->copied;
  w->copied = upTo;
}

static void putVarint(Writer *w, uint64_t v) {
  while (v >= 0x80) {
    w->out[w->at++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  w->out[w->at++] = (uint8_t)v;
}

/* Writes the input up to `end` less its cuts. Scan listed the nodes and
 * cuts in the order of the input, with where each lies, so nothing
 * between them is read again. */
static void writeHollow(Writer *w, size_t end) {
  const Slicer *s = w->s;
  for (;;) {
    /* By where each field's length is: an empty value's payload may be
     * the very end of its message. */
    const Node *n = w->nextNode < s->numNodes && s->nodes[w->nextNode].lengthAt < end
                        ? &s->nodes[w->nextNode] : NULL;
    const Cut *c = w->nextCut < s->numCuts && s->cuts[w->nextCut].lengthAt < end
                       ? &s->cuts[w->nextCut] : NULL;
    if (n && c && c->lengthAt < n->lengthAt)
      n = NULL;
    if (n) {
      ++w->nextNode;
      put(w, n->lengthAt);
      putVarint(w, n->end - n->payload - n->removed);
      w->copied = n->payload;
      writeHollow(w, n->end);
    } else if (c) {
      ++w->nextCut;
      put(w, c->leftOut ? c->begin : c->lengthAt);
      if (!c->leftOut)
        putVarint(w, 0);
      w->copied = c->payload + c->length;
    } else {
      put(w, end);
      return;
    }
  }
}

/* The value `index` of field `f` of `msg`, or NULL where protobuf-c kept
 * another (a later member of the same oneof). */
static void *member(ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f, uint32_t index) {
  char *base = (char *)msg;
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF &&
      *(uint32_t *)(base + f->quantifier_offset) != f->id)
    return NULL;
  size_t size = f->type == PROTOBUF_C_TYPE_BYTES ? sizeof(ProtobufCBinaryData) : sizeof(void *);
  if (f->label != PROTOBUF_C_LABEL_REPEATED)
    return base + f->offset;
  if (index >= *(size_t *)(base + f->quantifier_offset))
    return NULL;
  return *(char **)(base + f->offset) + (size_t)index * size;
}

/* Points each cut value of `top` at its bytes: in the input, or for a
 * string, its copy in `strings`. */
static bool patch(const Slicer *s, ProtobufCMessage *top, char *strings) {
  ProtobufCMessage **messages = malloc((s->numNodes + 1) * sizeof *messages);
  if (!messages)
    return false;
  for (size_t n = 0; n < s->numNodes; ++n) {
    const Node *node = &s->nodes[n];
    ProtobufCMessage *parent = node->parent == NO_NODE ? top : messages[node->parent];
    void *slot = parent ? member(parent, node->field, node->index) : NULL;
    messages[n] = slot ? *(ProtobufCMessage **)slot : NULL;
  }
  for (size_t c = 0; c < s->numCuts; ++c) {
    const Cut *cut = &s->cuts[c];
    ProtobufCMessage *msg = cut->node == NO_NODE ? top : messages[cut->node];
    void *value = msg && !cut->superseded && !cut->leftOut
                      ? member(msg, cut->field, cut->index)
                      : NULL;
    const uint8_t *bytes = s->data + cut->payload;
    if (!value)
      continue;
    if (cut->field->type == PROTOBUF_C_TYPE_BYTES) {
      *(ProtobufCBinaryData *)value = (ProtobufCBinaryData){cut->length, (uint8_t *)(uintptr_t)bytes};
    } else {
      memcpy(strings, bytes, cut->length);
      strings[cut->length] = 0;
      *(char **)value = strings;
      strings += cut->length + 1;
    }
  }
  free(messages);
  return true;
}

/* The values of the field left out, in the order of the wire. */
static bool keepLeftOut(const Slicer *s, ThunkyLeftOut *leave) {
  size_t n = 0;
  for (size_t c = 0; c < s->numCuts; ++c)
    n += s->cuts[c].leftOut;
  if (!n)
    return true;
  if (!(leave->values = malloc(n * sizeof *leave->values)))
    return false;
  for (size_t c = 0; c < s->numCuts; ++c)
    if (s->cuts[c].leftOut)
      leave->values[leave->count++] = (ThunkyBytes){s->data + s->cuts[c].payload,
                                                     s->cuts[c].length};
  return true;
}

ProtobufCMessage *thunkyUnpackSliced(const ProtobufCMessageDescriptor *desc,
                                     ProtobufCAllocator *alloc, const uint8_t *data,
                                     size_t size, ThunkyBuffer *strings, ThunkyLeftOut *leave) {
  Slicer s = {.data = data, .leave = leave};
  if (leave)
    leave->values = NULL, leave->count = 0;
  Frame top = {NULL, NULL, 0, 0, 0, size, NO_NODE};
  size_t removed = scan(&s, desc, &top, 0, size);
  ProtobufCMessage *msg = NULL;
  if (s.failed) {
    /* out of memory: NULL */
  } else if (s.inexact || !s.numCuts) {
    msg = protobuf_c_message_unpack(desc, alloc, size, data);
  } else {
    Writer w = {.data = data, .out = malloc(size - removed + 1), .s = &s};
    uint8_t *block = s.stringBytes ? thunkyBufferExtend(strings, s.stringBytes) : NULL;
    if (w.out && (block || !s.stringBytes)) {
      writeHollow(&w, size);
      msg = protobuf_c_message_unpack(desc, alloc, w.at, w.out);
      if (msg && (!patch(&s, msg, (char *)block) || (leave && !keepLeftOut(&s, leave))))
        msg = NULL;
    }
    free(w.out);
  }
  free(s.nodes);
  free(s.cuts);
  return msg;
}
