/*===- executable_internal.h - what the model's files share -------------===*/
#ifndef THUNKY_FORMAT_EXECUTABLE_INTERNAL_H
#define THUNKY_FORMAT_EXECUTABLE_INTERNAL_H

#include "thunky-c/base/Arena.h"
#include "thunky-c/format/Executable.h"
#include "thunky-c/base/HashMap.h"

typedef struct ExecutableInternal {
  ThunkyArena *arena;        /* the unpacked messages and every array */
  ThunkyHashMap asyncSlots;  /* async execution id -> slot */
  ThunkyBuffer strings;      /* long strings of the executable (thunkyUnpackSliced) */
  ThunkyLimits limits;
  /* thunkyExecutableOpen: the top-level thunks still in the wire (none
   * where the executable was too short to leave them out), and whether a
   * whole pass over the thunks has checked them. */
  ThunkyBytes *wireThunks;
  size_t numWireThunks;
  bool thunksChecked;
} ExecutableInternal;

static inline ExecutableInternal *internalOf(const ThunkyExecutable *exe) {
  return (ExecutableInternal *)exe->internal;
}

/* `count` + 1 zeroed elements of `size` bytes in the executable's arena;
 * NULL when out of memory. */
void *thunkyExecutableAlloc(ThunkyExecutable *exe, size_t count, size_t size);
#define arrayOf(exe, count, size) thunkyExecutableAlloc((exe), (count), (size))

/* A repeated message field left in the wire by thunkyUnpackSliced, to be
 * unpacked a value at a time later. */
typedef struct ThunkyLeftOut {
  const ProtobufCMessageDescriptor *message; /* in messages of this type */
  uint32_t field;                            /* this field's number */
  ThunkyBytes *values; /* out: each value's bytes in the input, in order (malloc'd) */
  size_t count;
} ThunkyLeftOut;

/* protobuf-c's unpack of data[0, size) (which passed thunkyValidateWire as a
 * `desc`) into `alloc`, except that long values are not copied
 * (unpack_sliced.c): bytes point into `data`, which must outlive the
 * message, and strings into one copy appended to `strings`, which must not
 * grow again while the message lives. `leave` (or NULL) names a field to
 * leave out where the message holding it was long enough to be looked into;
 * its values, if any were, come back in it and the message has none. NULL
 * when protobuf-c fails or memory runs out. */
ProtobufCMessage *thunkyUnpackSliced(const ProtobufCMessageDescriptor *desc,
                                     ProtobufCAllocator *alloc, const uint8_t *data,
                                     size_t size, ThunkyBuffer *strings, ThunkyLeftOut *leave);

/* HLO constant instructions by the hash of the symbol XLA gives their
 * buffers, built on first use. */
typedef struct ConstantLiterals {
  ThunkyHashMap symbols; /* hash of "buffer_for_<name>" -> instruction number */
  const Xla__HloInstructionProto **instructions;
  const char **symbolNames; /* per instruction: its buffer's symbol */
  bool built;
} ConstantLiterals;

/* The bytes of constant `c`: its content, else its HLO literal's (in the
 * literal's layout; predicates widened to a byte each, in the arena).
 * Having neither (or a literal of a type thunky does not read) is an error
 * unless `mayBeEmpty` (a module global only, which XLA fills from the
 * content alone): then no bytes. Out of memory is always an error. */
bool thunkyConstantBytesOf(ThunkyExecutable *exe, ConstantLiterals *literals,
                           const Xla__Gpu__GpuExecutableProto__ConstantInfoProto *c,
                           bool mayBeEmpty, ThunkyBytes *bytes, bool *inProto,
                           ThunkyError *error);

/* Walks every thunk: counts them against max-thunks, bounds nesting,
 * checks every slice against its allocation, pairs async starts and dones
 * and checks control-flow predicates. */
bool thunkyExecutableReadThunks(ThunkyExecutable *exe, const ThunkyLimits *limits,
                                ThunkyError *error);
/* The same for one more top-level thunk, numbered after those read. */
bool thunkyExecutableReadThunk(ThunkyExecutable *exe, const ThunkyLimits *limits,
                               ThunkyThunkProto *thunk, ThunkyError *error);

#endif /* THUNKY_FORMAT_EXECUTABLE_INTERNAL_H */
