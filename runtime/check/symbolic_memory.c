/*===- symbolic_memory.c - allocations as maps from bytes to terms -------===*/
#include "symbolic_memory.h"

#include "thunky-c/base/Arena.h"
#include "thunky-c/base/HashMap.h"

#include <stdlib.h>
#include <string.h>

/*--- hashes -----------------------------------------------------------------*/

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= UINT64_C(0xff51afd7ed558ccd);
  x ^= x >> 33;
  x *= UINT64_C(0xc4ceb9fe1a85ec53);
  return x ^ (x >> 33);
}

SymHash symHashStart(uint64_t tag) {
  return (SymHash){mix(tag ^ UINT64_C(0x9e3779b97f4a7c15)),
                   mix(tag + UINT64_C(0x632be59bd9b4e019))};
}

/* Two lanes with different mixing, so that a collision needs both. */
void symHashAdd(SymHash *h, uint64_t word) {
  h->lo = mix(h->lo ^ word) + UINT64_C(0x9e3779b185ebca87);
  h->hi = mix(h->hi + word * UINT64_C(0xc2b2ae3d27d4eb4f)) ^ (h->hi >> 29);
}

void symHashAddHash(SymHash *h, SymHash other) {
  symHashAdd(h, other.lo);
  symHashAdd(h, other.hi);
}

/*--- piece lists ------------------------------------------------------------*/

bool symPiecesAdd(SymPieces *list, SymPiece piece) {
  if (!thunkyArrayGrow((void **)&list->items, &list->capacity, list->count, sizeof *list->items))
    return false;
  list->items[list->count++] = piece;
  return true;
}

void symPiecesFree(SymPieces *list) {
  free(list->items);
  *list = (SymPieces){0};
}

/*--- the memory -------------------------------------------------------------*/

/* A treap node: bytes [start, start + size) hold term bytes from offset.
 * Index 0 is no node. */
typedef struct Node {
  uint64_t start, size, offset;
  uint32_t term, left, right, priority;
} Node;

struct SymMemory {
  uint32_t *roots, maps;
  Node *nodes;
  uint32_t numNodes, capacity, freeList, live;
  SymTerm *terms;
  uint32_t numTerms, termCapacity;
  ThunkyHashMap interned; /* hash.lo (perturbed on a clash) -> term */
  uint64_t random;
};

SymMemory *symMemoryCreate(uint32_t maps) {
  SymMemory *m = calloc(1, sizeof *m);
  if (!m || !(m->roots = calloc(maps + 1, sizeof *m->roots)) ||
      !(m->nodes = malloc(1024 * sizeof *m->nodes))) {
    symMemoryDestroy(m);
    return NULL;
  }
  m->maps = maps, m->capacity = 1024, m->numNodes = 1, m->random = UINT64_C(0x2545f4914f6cdd1d);
  return m;
}

void symMemoryDestroy(SymMemory *m) {
  if (!m)
    return;
  free(m->roots), free(m->nodes), free(m->terms);
  thunkyHashMapDestroy(&m->interned);
  free(m);
}

size_t symMemoryPieces(const SymMemory *m) { return m->live; }

uint32_t symTerm(SymMemory *m, SymTerm term) {
  uint64_t key = term.hash.lo;
  uint32_t found;
  for (uint64_t clash = 1; thunkyHashMapGet(&m->interned, key, &found); clash++) {
    if (m->terms[found].hash.hi == term.hash.hi)
      return found;
    key = mix(key + clash);
  }
  if (m->numTerms == m->termCapacity) {
    uint32_t capacity = m->termCapacity ? 2 * m->termCapacity : 1024;
    SymTerm *grown = capacity > m->termCapacity ? realloc(m->terms, capacity * sizeof *grown)
                                                : NULL;
    if (!grown)
      return UINT32_MAX;
    m->terms = grown, m->termCapacity = capacity;
  }
  if (!thunkyHashMapPut(&m->interned, key, m->numTerms))
    return UINT32_MAX;
  m->terms[m->numTerms] = term;
  return m->numTerms++;
}

SymTerm *symTermGet(SymMemory *m, uint32_t term) { return &m->terms[term]; }

uint32_t symFill(SymMemory *m, uint8_t byte) {
  SymHash h = symHashStart(SYM_FILL1);
  symHashAdd(&h, byte);
  return symTerm(m, (SymTerm){h, SYM_FILL1, byte, NULL, 0, UINT32_MAX, UINT32_MAX, false, false});
}

/* Where a piece of `term` starting at `offset` is: a fill's bytes repeat. */
static uint64_t normal(const SymMemory *m, uint32_t term, uint64_t offset) {
  switch (m->terms[term].kind) {
  case SYM_FILL1:
  case SYM_ANY1:
    return 0;
  case SYM_FILL4:
    return offset % 4;
  default:
    return offset;
  }
}

/* Whether b's bytes go on where a's end. */
static bool continues(const SymMemory *m, const Node *a, SymPiece b) {
  return a->term == b.term && normal(m, a->term, a->offset + a->size) == b.offset;
}

static uint32_t newNode(SymMemory *m, uint64_t start, SymPiece p) {
  uint32_t n = m->freeList;
  if (n) {
    m->freeList = m->nodes[n].left;
  } else {
    if (m->numNodes == m->capacity) {
      uint32_t capacity = m->capacity * 2;
      Node *grown = capacity > m->capacity ? realloc(m->nodes, capacity * sizeof *grown) : NULL;
      if (!grown)
        return 0;
      m->nodes = grown, m->capacity = capacity;
    }
    n = m->numNodes++;
  }
  m->random ^= m->random << 13, m->random ^= m->random >> 7, m->random ^= m->random << 17;
  m->nodes[n] = (Node){start, p.size, normal(m, p.term, p.offset), p.term, 0, 0,
                       (uint32_t)(m->random >> 32)};
  m->live++;
  return n;
}

static void freeTree(SymMemory *m, uint32_t n) {
  while (n) {
    freeTree(m, m->nodes[n].left);
    uint32_t right = m->nodes[n].right;
    m->nodes[n].left = m->freeList;
    m->freeList = n;
    m->live--;
    n = right;
  }
}

static uint32_t merge(SymMemory *m, uint32_t a, uint32_t b) {
  if (!a || !b)
    return a ? a : b;
  Node *nodes = m->nodes;
  if (nodes[a].priority > nodes[b].priority) {
    nodes[a].right = merge(m, nodes[a].right, b);
    return a;
  }
  nodes[b].left = merge(m, a, nodes[b].left);
  return b;
}

/* Splits tree t into bytes below x and bytes from x, cutting the node that
 * holds both. False when out of memory for the cut. */
static bool split(SymMemory *m, uint32_t t, uint64_t x, uint32_t *below, uint32_t *from) {
  if (!t) {
    *below = *from = 0;
    return true;
  }
  Node n = m->nodes[t];
  if (n.start >= x) {
    uint32_t left;
    if (!split(m, n.left, x, below, &left))
      return false;
    m->nodes[t].left = left;
    *from = t;
    return true;
  }
  if (n.start + n.size <= x) {
    uint32_t right;
    if (!split(m, n.right, x, &right, from))
      return false;
    m->nodes[t].right = right;
    *below = t;
    return true;
  }
  uint64_t cut = x - n.start;
  uint32_t tail = newNode(m, x, (SymPiece){n.term, n.offset + cut, n.size - cut});
  if (!tail)
    return false;
  m->nodes[t].size = cut;
  m->nodes[t].right = 0;
  *below = t;
  *from = merge(m, tail, n.right);
  return true;
}

static uint32_t last(const SymMemory *m, uint32_t t) {
  while (t && m->nodes[t].right)
    t = m->nodes[t].right;
  return t;
}

static uint32_t first(const SymMemory *m, uint32_t t) {
  while (t && m->nodes[t].left)
    t = m->nodes[t].left;
  return t;
}

static uint32_t withoutFirst(SymMemory *m, uint32_t t) {
  if (!m->nodes[t].left) {
    uint32_t right = m->nodes[t].right;
    m->nodes[t].left = m->freeList, m->nodes[t].right = 0;
    m->freeList = t;
    m->live--;
    return right;
  }
  m->nodes[t].left = withoutFirst(m, m->nodes[t].left);
  return t;
}

bool symWrite(SymMemory *m, uint32_t map, uint64_t at, const SymPiece *pieces, size_t count) {
  uint64_t total = 0;
  for (size_t i = 0; i < count; i++)
    total += pieces[i].size;
  uint32_t below, rest, middle, above;
  if (!split(m, m->roots[map], at, &below, &rest))
    return false;
  if (!split(m, rest, at + total, &middle, &above)) {
    m->roots[map] = merge(m, below, rest);
    return false;
  }
  freeTree(m, middle);
  /* The new pieces, each joined to the one before when it continues it. */
  uint32_t tail = last(m, below), built = 0;
  uint64_t start = at;
  bool ok = true;
  for (size_t i = 0; i < count; i++) {
    SymPiece p = pieces[i];
    if (!p.size)
      continue;
    p.offset = normal(m, p.term, p.offset);
    if (tail && continues(m, &m->nodes[tail], p)) {
      m->nodes[tail].size += p.size;
    } else {
      uint32_t n = newNode(m, start, p);
      if (!n) {
        ok = false;
        break;
      }
      built = merge(m, built, n);
      tail = n;
    }
    start += p.size;
  }
  /* And the piece after the range, when the last one goes on into it. */
  uint32_t next = first(m, above);
  if (ok && tail && next &&
      continues(m, &m->nodes[tail],
                (SymPiece){m->nodes[next].term, m->nodes[next].offset, m->nodes[next].size})) {
    m->nodes[tail].size += m->nodes[next].size;
    above = withoutFirst(m, above);
  }
  m->roots[map] = merge(m, merge(m, below, built), above);
  return ok;
}

/* Calls visit on each piece of [at, end) of tree t, clipped, in order,
 * marking each piece's term read. */
typedef bool (*Visit)(const SymMemory *m, SymPiece piece, void *context);
static bool walk(SymMemory *m, uint32_t t, uint64_t at, uint64_t end, Visit visit,
                 void *context) {
  while (t) {
    const Node *n = &m->nodes[t];
    m->terms[n->term].read |= at < n->start + n->size && n->start < end;
    if (at < n->start && !walk(m, n->left, at, end, visit, context))
      return false;
    uint64_t from = at > n->start ? at : n->start;
    uint64_t to = end < n->start + n->size ? end : n->start + n->size;
    if (from < to &&
        !visit(m, (SymPiece){n->term, normal(m, n->term, n->offset + (from - n->start)), to - from},
               context))
      return false;
    if (end <= n->start + n->size)
      return true;
    t = n->right;
  }
  return true;
}

static bool add(const SymMemory *m, SymPiece piece, void *list) {
  (void)m;
  return symPiecesAdd(list, piece);
}

bool symRead(SymMemory *m, uint32_t map, uint64_t at, uint64_t size, SymPieces *out) {
  return walk(m, m->roots[map], at, at + size, add, out);
}

static bool absorb(const SymMemory *m, SymPiece piece, void *hash) {
  symHashAddHash(hash, m->terms[piece.term].hash);
  symHashAdd(hash, piece.offset);
  symHashAdd(hash, piece.size);
  return true;
}

SymHash symDigest(SymMemory *m, uint32_t map, uint64_t at, uint64_t size) {
  SymHash h = symHashStart(size);
  walk(m, m->roots[map], at, at + size, absorb, &h);
  return h;
}

typedef struct Known {
  uint8_t *out;
} Known;

static bool known(const SymMemory *m, SymPiece piece, void *context) {
  Known *k = context;
  const SymTerm *t = &m->terms[piece.term];
  for (uint64_t i = 0; i < piece.size; i++) {
    uint64_t at = piece.offset + i;
    switch (t->kind) {
    case SYM_FILL1:
      k->out[i] = (uint8_t)t->value;
      break;
    case SYM_FILL4:
      k->out[i] = (uint8_t)(t->value >> (8 * (at % 4)));
      break;
    case SYM_BYTES:
      k->out[i] = at < t->size ? t->bytes[at] : 0;
      break;
    default:
      return false;
    }
  }
  k->out += piece.size;
  return true;
}

bool symConcrete(SymMemory *m, uint32_t map, uint64_t at, uint64_t size, uint8_t *out) {
  Known k = {out};
  return walk(m, m->roots[map], at, at + size, known, &k);
}
