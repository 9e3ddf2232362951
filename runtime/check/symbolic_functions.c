/*===- symbolic_functions.c - loops and conditionals taken as functions --===*
 *
 * A loop or conditional taken as a function. The bytes it may write are
 * cut into atoms; each atom is given a formal term, named by the rank, the
 * atom's contents before and its place among atoms of equal contents. The
 * body (or each branch) runs once on the formals, and the contents it
 * leaves, keyed by name, make a digest of it as a function of its state;
 * each atom then holds a term of that digest and its name. Two loops with
 * one digest compute the same function on the same state, so their atoms
 * agree wherever their names do; a name is only where the atom stands, so
 * a rewrite that moves buffers (pack-scratch) gives the same digest.
 *
 *===--------------------------------------------------------------------===*/
#include "symbolic_state.h"
#include "thunky-c/base/Arena.h"
#include "thunky-c/format/Executable.h"

#include <stdlib.h>
#include <string.h>

typedef struct Write {
  uint32_t allocation;
  uint64_t start, end;
  uint32_t order;
} Write;

typedef struct Writes {
  Write *items;
  size_t count, capacity;
} Writes;

/* Every slice a thunk of list `list` (and of the lists inside it) writes. */
static bool collectWrites(const State *s, uint32_t list, Writes *out) {
  const ThunkyPlan *p = s->plan;
  ThunkyRange range = p->lists[list];
  for (uint32_t k = 0; k < range.count; k++) {
    const ThunkyCommand *c = &p->commands[range.first + k];
    const ThunkyPlanThunk *t = &p->thunks[c->thunk];
    for (uint32_t i = 0; i < t->accesses.count; i++) {
      const ThunkyPlanAccess *a = &p->accesses[t->accesses.first + i];
      if (!(a->access & THUNKY_ACCESS_WRITE) || !a->slice.size)
        continue;
      if (!thunkyArrayGrow((void **)&out->items, &out->capacity, out->count, sizeof *out->items))
        return false;
      /* A loop in a fusion writes its windows where they lie now. */
      ThunkyPlanSlice at = symReal(s, a->slice);
      out->items[out->count] =
          (Write){at.allocation, at.offset, at.offset + at.size, (uint32_t)out->count};
      out->count++;
    }
    bool ok = true;
    switch ((ThunkyCommandKind)c->kind) {
    case THUNKY_CMD_WHILE:
      ok = collectWrites(s, c->loop.condition, out) && collectWrites(s, c->loop.body, out);
      break;
    case THUNKY_CMD_CONDITIONAL:
      for (uint32_t b = 0; ok && b < c->conditional.branches.count; b++)
        ok = collectWrites(s, (uint32_t)p->ids[c->conditional.branches.first + b], out);
      break;
    case THUNKY_CMD_ASYNC_START:
      ok = collectWrites(s, c->asyncStart.list, out);
      break;
    case THUNKY_CMD_COLLECTIVE_GROUP:
      ok = collectWrites(s, c->group.list, out);
      break;
    default:
      break;
    }
    if (!ok)
      return false;
  }
  return true;
}

static int byStart(const void *x, const void *y) {
  const Write *a = x, *b = y;
  if (a->allocation != b->allocation)
    return a->allocation < b->allocation ? -1 : 1;
  return a->start < b->start ? -1 : a->start > b->start;
}

static int byValue(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

/* A min-heap of the writes covering the point a sweep is at, by order. */
static void heapPush(Write *heap, size_t *n, Write w) {
  size_t i = (*n)++;
  for (; i && heap[(i - 1) / 2].order > w.order; i = (i - 1) / 2)
    heap[i] = heap[(i - 1) / 2];
  heap[i] = w;
}

static void heapPop(Write *heap, size_t *n) {
  Write w = heap[--*n];
  size_t i = 0;
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= *n)
      break;
    if (child + 1 < *n && heap[child + 1].order < heap[child].order)
      child++;
    if (heap[child].order >= w.order)
      break;
    heap[i] = heap[child];
    i = child;
  }
  heap[i] = w;
}

/* The writes cut at each other's ends into atoms, each with the order of
 * the first write over it: a sweep, O(n log n) for n writes however they
 * overlap. */
static bool makeAtoms(Writes *w, Atoms *out) {
  if (w->count) /* a loop that writes nothing has no array to sort */
    qsort(w->items, w->count, sizeof *w->items, byStart);
  Write *heap = malloc((w->count + 1) * sizeof *heap);
  uint64_t *points = malloc((2 * w->count + 1) * sizeof *points);
  out->items = malloc((2 * w->count + 1) * sizeof *out->items);
  bool ok = heap && points && out->items;
  out->count = 0;
  for (size_t i = 0; ok && i < w->count;) {
    size_t j = i, n = 0, h = 0;
    for (; j < w->count && w->items[j].allocation == w->items[i].allocation; j++)
      points[n++] = w->items[j].start, points[n++] = w->items[j].end;
    qsort(points, n, sizeof *points, byValue);
    for (size_t k = 0, next = i; k + 1 < n; k++) {
      if (points[k] == points[k + 1])
        continue;
      while (next < j && w->items[next].start <= points[k])
        heapPush(heap, &h, w->items[next++]);
      while (h && heap[0].end <= points[k])
        heapPop(heap, &h);
      if (h)
        out->items[out->count++] =
            (Atom){w->items[i].allocation, points[k], points[k + 1] - points[k], heap[0].order};
    }
    i = j;
  }
  free(heap), free(points);
  return ok;
}

/* The atoms of loop or conditional `c`, computed once. */
const Atoms *symAtomsOf(State *s, const ThunkyCommand *c) {
  uint32_t index = (uint32_t)(c - s->plan->commands), found;
  if (thunkyHashMapGet(&s->atomsIndex, index, &found))
    return s->atoms[found];
  Writes w = {0};
  bool ok = true;
  if (c->kind == THUNKY_CMD_WHILE) {
    ok = collectWrites(s, c->loop.condition, &w) && collectWrites(s, c->loop.body, &w);
  } else {
    for (uint32_t b = 0; ok && b < c->conditional.branches.count; b++)
      ok = collectWrites(s, (uint32_t)s->plan->ids[c->conditional.branches.first + b], &w);
  }
  Atoms *atoms = calloc(1, sizeof *atoms);
  bool grown =
      ok && atoms &&
      thunkyArrayGrow((void **)&s->atoms, &s->atomsCapacity, s->numAtoms, sizeof *s->atoms);
  ok = grown && makeAtoms(&w, atoms) && thunkyHashMapPut(&s->atomsIndex, index, s->numAtoms);
  free(w.items);
  if (!ok) {
    if (atoms)
      free(atoms->items);
    free(atoms);
    return NULL;
  }
  s->atoms[s->numAtoms++] = atoms;
  return atoms;
}

static ThunkyPlanSlice atomSlice(const Atom *a) {
  return (ThunkyPlanSlice){a->allocation, a->start, a->size};
}

SymHash symAtomDigest(State *s, uint32_t rank, const Atom *a) {
  return symSliceDigest(s, rank, atomSlice(a));
}

/* What every atom of every rank (k = rank * count + atom) held, to put
 * back between runs of a loop's body or a conditional's branches. */
typedef struct Saved {
  SymPieces pieces;
  size_t *start; /* atom k's pieces are pieces[start[k], start[k + 1]) */
} Saved;

static bool saveAtoms(State *s, const Atoms *atoms, Saved *saved) {
  size_t n = (size_t)s->ranks * atoms->count;
  *saved = (Saved){{0}, malloc((n + 1) * sizeof *saved->start)};
  if (!saved->start)
    return symOutOfMemory(s);
  for (size_t k = 0; k < n; k++) {
    saved->start[k] = saved->pieces.count;
    if (!symCopyPieces(s, (uint32_t)(k / atoms->count), atomSlice(&atoms->items[k % atoms->count]),
                       0, atoms->items[k % atoms->count].size, &saved->pieces))
      return false;
  }
  saved->start[n] = saved->pieces.count;
  return true;
}

static bool restoreAtom(State *s, const Atoms *atoms, const Saved *saved, size_t k) {
  const Atom *a = &atoms->items[k % atoms->count];
  return symWrite(s->memory, symMapOf(s, (uint32_t)(k / atoms->count), a->allocation), a->start,
                  saved->pieces.items + saved->start[k], saved->start[k + 1] - saved->start[k]) ||
         symOutOfMemory(s);
}

static void savedFree(Saved *saved) {
  symPiecesFree(&saved->pieces);
  free(saved->start);
}

typedef struct Named {
  SymHash key;
  uint32_t order, atom;
} Named;

static int byKey(const void *x, const void *y) {
  const Named *a = x, *b = y;
  if (a->key.hi != b->key.hi)
    return a->key.hi < b->key.hi ? -1 : 1;
  if (a->key.lo != b->key.lo)
    return a->key.lo < b->key.lo ? -1 : 1;
  return a->order < b->order ? -1 : a->order > b->order;
}

/* What a loop or conditional taken as a function works with: each atom of
 * each rank (index rank * count + atom) has a name and a formal term. */
typedef struct Formals {
  const Atoms *atoms;
  SymHash *names;
  uint32_t *terms;
  Named *work;
} Formals;

static void formalsFree(Formals *f) { free(f->names), free(f->terms), free(f->work); }

/* Puts every formal in place, none of them read yet. */
static bool writeFormals(State *s, const Formals *f) {
  const Atoms *atoms = f->atoms;
  for (uint32_t r = 0; r < s->ranks; r++)
    for (uint32_t i = 0; i < atoms->count; i++) {
      const Atom *a = &atoms->items[i];
      uint32_t term = f->terms[(size_t)r * atoms->count + i];
      symTermGet(s->memory, term)->read = false;
      if (!symWriteOne(s, r, atomSlice(a), term, 0))
        return false;
    }
  return true;
}

/* Where an atom stands, as no correct rewrite changes it: in a parameter
 * or an output, its number and offset; scratch has none (0), since a
 * rewrite may move it anywhere. */
static uint64_t place(const State *s, const Atom *a, uint64_t *offset) {
  const ThunkyPlan *p = s->plan;
  const ThunkyPlanAllocation *al = &p->allocations[a->allocation];
  *offset = a->start;
  if (al->parameter >= 0)
    return (UINT64_C(1) << 32) | (uint64_t)al->parameter;
  for (uint32_t i = 0; al->isOutput && i < p->numOutputs; i++)
    if (p->outputs[i].slice.allocation == a->allocation)
      return (UINT64_C(2) << 32) | i;
  return 0;
}

/* Names each atom of each rank by its contents and where it stands: in a
 * parameter or output, by their number and offset; in scratch, by its place
 * among scratch atoms of the same contents (by the first write over it).
 * Makes its formal and puts it in place. */
static bool formalize(State *s, const ThunkyCommand *c, const Atoms *atoms, Formals *f) {
  size_t n = (size_t)s->ranks * atoms->count;
  *f = (Formals){atoms, malloc((n + 1) * sizeof *f->names), malloc((n + 1) * sizeof *f->terms),
                 malloc((atoms->count + 1) * sizeof *f->work)};
  if (!f->names || !f->terms || !f->work)
    return symOutOfMemory(s);
  Named *work = f->work;
  for (uint32_t r = 0; r < s->ranks; r++) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < atoms->count; i++) {
      uint64_t offset, where = place(s, &atoms->items[i], &offset);
      SymHash key = symAtomDigest(s, r, &atoms->items[i]);
      if (!where) { /* scratch: numbered below */
        work[n++] = (Named){key, atoms->items[i].order, i};
        continue;
      }
      SymHash h = symHashStart(TAG_FORMAL);
      symHashAdd(&h, r);
      symHashAddHash(&h, key);
      symHashAdd(&h, where);
      symHashAdd(&h, offset);
      size_t k = (size_t)r * atoms->count + i;
      f->names[k] = h;
      if ((f->terms[k] = symUnknown(s, h, c->thunk, UINT32_MAX)) == UINT32_MAX)
        return symOutOfMemory(s);
    }
    qsort(work, n, sizeof *work, byKey);
    for (uint32_t i = 0, same = 0; i < n; i++) {
      same = i && work[i].key.lo == work[i - 1].key.lo && work[i].key.hi == work[i - 1].key.hi
                 ? same + 1
                 : 0;
      SymHash h = symHashStart(TAG_FORMAL);
      symHashAdd(&h, r);
      symHashAddHash(&h, work[i].key);
      symHashAdd(&h, same);
      size_t k = (size_t)r * atoms->count + work[i].atom;
      f->names[k] = h;
      if ((f->terms[k] = symUnknown(s, h, c->thunk, UINT32_MAX)) == UINT32_MAX)
        return symOutOfMemory(s);
    }
  }
  return writeFormals(s, f);
}

/* The loop's state function: what every carried atom (one whose formal the
 * run read) holds now, keyed by name, into `function`; carried[k] says
 * which. An atom written before it is read (a temporary, an output
 * overwritten each time) is left out, so that one a rewrite removes (a copy
 * elided) does not change the function. */
static void absorbCarried(State *s, const Formals *f, bool *carried, const bool *invariant,
                          SymHash *function) {
  const Atoms *atoms = f->atoms;
  for (uint32_t r = 0; r < s->ranks; r++) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < atoms->count; i++) {
      size_t k = (size_t)r * atoms->count + i;
      if ((carried[k] = !invariant[k] && symTermGet(s->memory, f->terms[k])->read))
        f->work[n++] = (Named){f->names[k], 0, i};
    }
    qsort(f->work, n, sizeof *f->work, byKey);
    symHashAdd(function, r);
    for (uint32_t i = 0; i < n; i++) {
      symHashAddHash(function, f->work[i].key);
      symHashAddHash(function, symAtomDigest(s, r, &atoms->items[f->work[i].atom]));
    }
  }
}

/* Loop `c` from here as a function: `count` more runs of its body when
 * known, else (count < 0) as long as the predicate, which the condition
 * list has just written, says so. A carried atom ends as a term of the
 * state function and its name; any other as a term of the function, its
 * name and what the last run left in it, as a function of the state. */
bool symLoopAsFunction(State *s, const ThunkyCommand *c, int64_t count) {
  const Atoms *atoms = symAtomsOf(s, c);
  if (!atoms)
    return symOutOfMemory(s);
  SymHash function = symHashStart(TAG_LOOP);
  symHashAdd(&function, (uint64_t)count);
  for (uint32_t r = 0; count < 0 && r < s->ranks; r++)
    symHashAddHash(&function, symSliceDigest(s, r, c->loop.predicate));
  size_t n = (size_t)s->ranks * atoms->count;
  Formals f = {0};
  bool *carried = calloc(n + 1, sizeof *carried), *invariant = calloc(n + 1, sizeof *invariant);
  Saved before = {0};
  bool ok = ((carried && invariant) || symOutOfMemory(s)) && saveAtoms(s, atoms, &before) &&
            formalize(s, c, atoms, &f);
  /* An atom the run leaves holding its own formal (untouched, or copied
   * onto itself) is invariant: the run is done again with it holding what
   * it holds, so that a rewrite that drops such a copy keeps the function. */
  s->asFunction++;
  for (int pass = 0; ok && pass < 2; pass++) {
    ok = symRunList(s, c->loop.body) && (count >= 0 || symRunList(s, c->loop.condition));
    bool more = false;
    for (size_t k = 0; ok && pass == 0 && k < n; k++) {
      SymPieces now = {0};
      const Atom *a = &atoms->items[k % atoms->count];
      ok = symCopyPieces(s, (uint32_t)(k / atoms->count), atomSlice(a), 0, a->size, &now);
      invariant[k] =
          ok && now.count == 1 && now.items[0].term == f.terms[k] && now.items[0].offset == 0;
      more |= invariant[k];
      symPiecesFree(&now);
    }
    if (!ok || !more)
      break;
    for (size_t k = 0; ok && k < n; k++) {
      ok = invariant[k] ? restoreAtom(s, atoms, &before, k)
                        : symWriteOne(s, (uint32_t)(k / atoms->count),
                                      atomSlice(&atoms->items[k % atoms->count]), f.terms[k], 0);
      symTermGet(s->memory, f.terms[k])->read = false;
    }
  }
  s->asFunction--;
  if (ok) {
    absorbCarried(s, &f, carried, invariant, &function);
    for (uint32_t r = 0; count < 0 && r < s->ranks; r++)
      symHashAddHash(&function, symSliceDigest(s, r, c->loop.predicate));
  }
  for (size_t k = 0; ok && k < n; k++) {
    if (invariant[k])
      continue; /* it holds what it held */
    const Atom *a = &atoms->items[k % atoms->count];
    SymHash h = function;
    symHashAdd(&h, TAG_RESULT);
    symHashAddHash(&h, f.names[k]);
    if (!carried[k])
      symHashAddHash(&h, symAtomDigest(s, (uint32_t)(k / atoms->count), a));
    ok = symWriteOne(s, (uint32_t)(k / atoms->count), atomSlice(a),
                     symUnknown(s, h, c->thunk, UINT32_MAX), 0);
  }
  formalsFree(&f);
  savedFree(&before);
  free(carried), free(invariant);
  return ok;
}

/* Conditional `c` as a function. It runs once, so each branch runs from
 * the state itself (restored between branches), not from formals: a branch
 * that only rewrites what is there (a self-copy a pass removes) changes
 * nothing. An atom every branch leaves the same keeps what they left; any
 * other ends as a term of every rank's index and what each branch left. */
bool symConditionalAsFunction(State *s, const ThunkyCommand *c) {
  const Atoms *atoms = symAtomsOf(s, c);
  if (!atoms)
    return symOutOfMemory(s);
  SymHash index = symHashStart(TAG_CONDITIONAL);
  for (uint32_t r = 0; r < s->ranks; r++)
    symHashAddHash(&index, symSliceDigest(s, r, c->conditional.index));
  size_t n = (size_t)s->ranks * atoms->count;
  SymHash *results = malloc((n + 1) * sizeof *results), *first = malloc((n + 1) * sizeof *first);
  bool *same = malloc((n + 1) * sizeof *same);
  Saved before = {0};
  bool ok = ((results && first && same) || symOutOfMemory(s)) && saveAtoms(s, atoms, &before);
  for (uint32_t b = 0; ok && b < c->conditional.branches.count; b++) {
    for (size_t k = 0; ok && b && k < n; k++)
      ok = restoreAtom(s, atoms, &before, k);
    s->asFunction++;
    ok = ok && symRunList(s, (uint32_t)s->plan->ids[c->conditional.branches.first + b]);
    s->asFunction--;
    for (size_t k = 0; ok && k < n; k++) {
      SymHash d = symAtomDigest(s, (uint32_t)(k / atoms->count), &atoms->items[k % atoms->count]);
      if (!b)
        results[k] = index, first[k] = d, same[k] = true;
      same[k] &= d.lo == first[k].lo && d.hi == first[k].hi;
      symHashAddHash(&results[k], d);
    }
  }
  for (size_t k = 0; ok && k < n; k++)
    ok = same[k] ||
         symWriteOne(s, (uint32_t)(k / atoms->count), atomSlice(&atoms->items[k % atoms->count]),
                     symUnknown(s, results[k], c->thunk, UINT32_MAX), 0);
  savedFree(&before);
  free(results), free(first), free(same);
  return ok;
}
