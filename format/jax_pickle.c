/*===- jax_pickle.c - the pickle jax.experimental.serialize_executable writes -===*
 *
 * Only the opcodes of pickle protocols 2 to 5 that carry their argument's
 * length are taken (Lib/pickletools.py documents each); protocol 0's
 * newline-ended ones are refused. Values are not built: the walk tracks
 * only what the last few opcodes pushed, and which memo slots hold the
 * string 'exec', to find TUPLE2 of ('exec', bytes) fed to BINPERSID.
 *
 *===--------------------------------------------------------------------===*/
#include "jax_pickle.h"

#include "thunky-c/base/HashMap.h"
#include "thunky-c/format/Wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { NO_ARG, FIXED, SIZED }; /* how an opcode's argument is laid out */

typedef struct Opcode {
  uint8_t layout, width; /* FIXED: bytes; SIZED: bytes of the length before the data */
} Opcode;

static Opcode opcodeOf(uint8_t op, bool *known) {
  *known = true;
  switch (op) {
  case '(': case '.': case '0': case '1': case '2': case 'N': case 0x88: case 0x89: case ']':
  case 'a': case 'e': case 'l': case ')': case 't': case 0x85: case 0x86: case 0x87: case '}':
  case 'd': case 's': case 'u': case 0x8f: case 0x90: case 0x91: case 0x81: case 0x92:
  case 0x93: case 0x94: case 'R': case 'b': case 'Q': case 0x97: case 0x98:
    return (Opcode){NO_ARG, 0};
  case 'K': case 'h': case 'q': case 0x80: case 0x82: return (Opcode){FIXED, 1};
  case 'M': case 0x83: return (Opcode){FIXED, 2};
  case 'J': case 'j': case 'r': case 0x84: return (Opcode){FIXED, 4};
  case 'G': case 0x95: return (Opcode){FIXED, 8};
  case 0x8c: case 'C': case 'U': case 0x8a: return (Opcode){SIZED, 1};
  case 'X': case 'B': case 'T': case 0x8b: return (Opcode){SIZED, 4};
  case 0x8d: case 0x8e: case 0x96: return (Opcode){SIZED, 8};
  default: *known = false; return (Opcode){NO_ARG, 0};
  }
}

static uint64_t little(const uint8_t *p, unsigned width) {
  uint64_t v = 0;
  for (unsigned i = width; i-- > 0;)
    v = v << 8 | p[i];
  return v;
}

static void putLittle(uint8_t *p, uint64_t v, unsigned width) {
  for (unsigned i = 0; i < width; i++, v >>= 8)
    p[i] = (uint8_t)v;
}

/* One opcode of `in` at `pos`: its argument (data of a sized one). */
typedef struct Op {
  size_t begin, end; /* the whole opcode */
  uint8_t code;
  uint64_t value;    /* FIXED: the argument */
  ThunkyBytes data;  /* SIZED: the data */
} Op;

static bool nextOp(ThunkyBytes in, size_t pos, Op *op, ThunkyError *error) {
  bool known;
  uint8_t code = in.data[pos];
  Opcode o = opcodeOf(code, &known);
  if (!known)
    return thunkyErrorf(error, "at byte %zu: opcode 0x%02x, which pickles of protocol 2 and "
                               "later as JAX writes them do not use", pos, code);
  *op = (Op){.begin = pos, .code = code};
  size_t at = pos + 1, left = in.size - at;
  if (o.layout != NO_ARG && left < o.width)
    return thunkyErrorf(error, "at byte %zu: the pickle is truncated", pos);
  if (o.layout == FIXED) {
    op->value = little(in.data + at, o.width);
    at += o.width;
  } else if (o.layout == SIZED) {
    uint64_t n = little(in.data + at, o.width);
    at += o.width;
    if (n > in.size - at)
      return thunkyErrorf(error, "at byte %zu: %llu bytes of data run past the end", pos,
                          (unsigned long long)n);
    op->data = (ThunkyBytes){in.data + at, (size_t)n};
    at += (size_t)n;
  }
  op->end = at;
  return true;
}

/* What the last opcodes pushed, as far as the search needs. */
typedef enum { OTHER, EXEC, BYTES, EXEC_TUPLE } Value;

static bool isBytes(uint8_t code) { return code == 'C' || code == 'B' || code == 0x8e; }
static bool isString(uint8_t code) { return code == 0x8c || code == 'X' || code == 0x8d; }

bool thunkyJaxPickleLooksLike(ThunkyBytes in) {
  return in.size >= 2 && in.data[0] == 0x80 && in.data[1] >= 2 && in.data[1] <= 5;
}

bool thunkyJaxPickleRead(ThunkyBytes in, ThunkyBytes *payload, ThunkyBuffer *rest, size_t *at,
                         int64_t *frameAt, ThunkyError *error) {
  Value last[2] = {OTHER, OTHER}; /* [0] the top */
  Op bytesOp = {0}, candidate = {0}, found = {0}, frame = {0}, bytesFrame = {0},
     candidateFrame = {0}, foundFrame = {0};
  size_t foundCount = 0, memoNext = 0;
  /* Memo slots that hold 'exec'; a map, as a crafted slot number can be
   * any 32-bit value. */
  ThunkyHashMap execMemo = {0};
  uint32_t unused;
  bool ok = true, stopped = false;
  for (size_t pos = 0; ok && pos < in.size && !stopped;) {
    Op op;
    if (!(ok = nextOp(in, pos, &op, error)))
      break;
    pos = op.end;
    Value pushed = OTHER;
    bool pushes = true;
    switch (op.code) {
    case 0x95: /* FRAME: the next bytes form one */
      frame = op, pushes = false;
      break;
    case 0x94: case 'q': case 'r': { /* MEMOIZE, BINPUT, LONG_BINPUT: the top, kept */
      size_t slot = op.code == 0x94 ? memoNext++ : (size_t)op.value;
      if (last[0] == EXEC && !thunkyHashMapPut(&execMemo, slot, 1))
        ok = thunkyErrorf(error, "out of memory");
      pushes = false;
      break;
    }
    case 'h': case 'j': /* BINGET, LONG_BINGET */
      pushed = thunkyHashMapGet(&execMemo, op.value, &unused) ? EXEC : OTHER;
      break;
    case 0x86: /* TUPLE2 */
      if (last[1] == EXEC && last[0] == BYTES)
        pushed = EXEC_TUPLE, candidate = bytesOp, candidateFrame = bytesFrame;
      break;
    case 'Q': /* BINPERSID: the id is the top */
      if (last[0] == EXEC_TUPLE) {
        found = candidate, foundFrame = candidateFrame;
        foundCount++;
      }
      break;
    case '.':
      stopped = true, pushes = false;
      break;
    default:
      if (isString(op.code) && op.data.size == 4 && !memcmp(op.data.data, "exec", 4))
        pushed = EXEC;
      else if (isBytes(op.code))
        pushed = BYTES, bytesOp = op, bytesFrame = frame;
      break;
    }
    if (ok && pushes)
      last[1] = last[0], last[0] = pushed;
    if (ok && stopped && pos != in.size)
      ok = thunkyErrorf(error, "at byte %zu: %zu bytes follow the pickle's STOP", pos,
                        in.size - pos);
  }
  thunkyHashMapDestroy(&execMemo);
  if (ok && !stopped)
    ok = thunkyErrorf(error, "the pickle is truncated: no STOP at its end");
  if (ok && foundCount != 1)
    ok = thunkyErrorf(error, "%s", foundCount
                                       ? "it holds more than one ('exec', bytes) persistent "
                                         "id; thunky reads a pickle of one executable"
                                       : "no ('exec', bytes) persistent id: not what "
                                         "jax.experimental.serialize_executable.serialize "
                                         "writes");
  if (!ok)
    return false;
  *payload = found.data;
  *at = found.begin;
  size_t start = rest->size;
  thunkyBufferAppend(rest, in.data, found.begin);
  thunkyBufferAppend(rest, in.data + found.end, in.size - found.end);
  if (rest->failed)
    return thunkyErrorf(error, "out of memory");
  /* The frame that held the opcode (if one did) now holds less. */
  *frameAt = -1;
  if (foundFrame.end && foundFrame.end + foundFrame.value >= found.end) {
    putLittle(rest->data + start + foundFrame.begin + 1,
              foundFrame.value - (found.end - found.begin), 8);
    *frameAt = (int64_t)foundFrame.begin;
  }
  return true;
}

bool thunkyJaxPickleWrite(ThunkyBytes rest, size_t at, int64_t frame, ThunkyBytes payload,
                          ThunkyBuffer *out, ThunkyError *error) {
  if (at > rest.size || frame >= (int64_t)at || (frame >= 0 && rest.data[frame] != 0x95))
    return thunkyErrorf(error, "the kept pickle (%zu bytes) has no place %zu for the executable "
                               "in a frame at %lld", rest.size, at, (long long)frame);
  /* The opcode the bytes take, as Python's pickler picks it. */
  uint8_t head[9];
  size_t headSize;
  if (payload.size < 256)
    head[0] = 'C', head[1] = (uint8_t)payload.size, headSize = 2;
  else if (payload.size <= UINT32_MAX)
    head[0] = 'B', putLittle(head + 1, payload.size, 4), headSize = 5;
  else
    head[0] = 0x8e, putLittle(head + 1, payload.size, 8), headSize = 9;
  size_t start = out->size;
  thunkyBufferAppend(out, rest.data, at);
  thunkyBufferAppend(out, head, headSize);
  thunkyBufferAppend(out, payload.data, payload.size);
  thunkyBufferAppend(out, rest.data + at, rest.size - at);
  if (out->failed)
    return thunkyErrorf(error, "out of memory");
  if (frame >= 0) {
    uint8_t *p = out->data + start + frame + 1;
    putLittle(p, little(p, 8) + headSize + payload.size, 8);
  }
  return true;
}
