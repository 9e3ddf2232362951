/*===- symbolic_memory.h - allocations as maps from bytes to terms -------===*
 *
 * A symbolic run keeps no byte of any allocation. Each allocation of each
 * rank is a map from byte ranges to pieces of terms: bytes [at, at + size)
 * hold bytes [offset, offset + size) of a term. A term is named by a 128-bit
 * hash of how it was made (which thunk, from which contents), interned once.
 * Maps are treaps keyed by start, so a write or a read costs O(log n) plus
 * the pieces it touches, however large the allocation.
 *
 * Pieces are kept canonical: two neighbours never continue one term, and
 * offsets in a fill are taken modulo its period, so equal contents have
 * equal piece lists and equal digests however they were assembled (a
 * buffer copied in halves and one copied whole).
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_RUNTIME_SYMBOLIC_MEMORY_H
#define THUNKY_RUNTIME_SYMBOLIC_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct SymHash {
  uint64_t lo, hi;
} SymHash;

/* A hash of `tag`, to absorb words into. */
SymHash symHashStart(uint64_t tag);
void symHashAdd(SymHash *h, uint64_t word);
void symHashAddHash(SymHash *h, SymHash other);

typedef enum SymTermKind {
  SYM_UNKNOWN, /* a thunk's output, a parameter, a formal: no byte is known */
  SYM_FILL1,   /* every byte is `value` */
  SYM_FILL4,   /* the 4-byte word `value`, repeated */
  SYM_BYTES,   /* `bytes` (a constant's), zeros past them */
  SYM_ANY1,    /* one unknown byte, repeated: what scratch holds before a write */
} SymTermKind;

typedef struct SymTerm {
  SymHash hash;
  uint8_t kind;     /* SymTermKind */
  uint32_t value;   /* SYM_FILL1, SYM_FILL4 */
  const uint8_t *bytes;
  uint64_t size;    /* SYM_BYTES: how many are known */
  uint32_t thunk;   /* the thunk that made it, for messages; UINT32_MAX: none */
  uint32_t parameter; /* a parameter's leaf: its number; UINT32_MAX: none */
  bool read;        /* set by every read, digest or concrete read of a piece of it */
  bool undefined;   /* bytes no thunk wrote: what the allocator left */
} SymTerm;

/* Bytes [offset, offset + size) of term `term`. */
typedef struct SymPiece {
  uint32_t term;
  uint64_t offset, size;
} SymPiece;

typedef struct SymPieces {
  SymPiece *items;
  size_t count, capacity;
} SymPieces;

bool symPiecesAdd(SymPieces *list, SymPiece piece);
void symPiecesFree(SymPieces *list);

typedef struct SymMemory SymMemory;

/* `maps` empty maps (numbered 0 .. maps - 1), or NULL when out of memory. */
SymMemory *symMemoryCreate(uint32_t maps);
void symMemoryDestroy(SymMemory *memory);

/* The term of hash `term.hash`, interned: a second call with the same hash
 * returns the first one's index. UINT32_MAX when out of memory. */
uint32_t symTerm(SymMemory *memory, SymTerm term);
SymTerm *symTermGet(SymMemory *memory, uint32_t term);
/* A fill of `byte`, interned. */
uint32_t symFill(SymMemory *memory, uint8_t byte);

/* Makes bytes [at, at + total) of map `map` the pieces given, in order
 * (their sizes add up to the range's). False when out of memory. */
bool symWrite(SymMemory *memory, uint32_t map, uint64_t at, const SymPiece *pieces,
              size_t count);
/* Appends the pieces of bytes [at, at + size) of map `map` to `out`;
 * false when out of memory. Bytes never written are no piece: maps start
 * with one written over every allocation. */
bool symRead(SymMemory *memory, uint32_t map, uint64_t at, uint64_t size, SymPieces *out);
/* A digest of bytes [at, at + size) of map `map`: equal contents, equal
 * digests. */
SymHash symDigest(SymMemory *memory, uint32_t map, uint64_t at, uint64_t size);
/* Bytes [at, at + size) into out when every one is known (fills and
 * constants); false otherwise. */
bool symConcrete(SymMemory *memory, uint32_t map, uint64_t at, uint64_t size, uint8_t *out);
/* Pieces held by all maps. */
size_t symMemoryPieces(const SymMemory *memory);

#endif /* THUNKY_RUNTIME_SYMBOLIC_MEMORY_H */
