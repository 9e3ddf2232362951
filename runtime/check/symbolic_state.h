/*===- symbolic_state.h - what symbolic.c and its functions share --------===*
 *
 * The state of a symbolic run (symbolic.c), and what the loops and
 * conditionals it takes as functions (symbolic_functions.c) need of it.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_RUNTIME_SYMBOLIC_STATE_H
#define THUNKY_RUNTIME_SYMBOLIC_STATE_H

#include "async_schedule.h"
#include "run_stop.h"
#include "symbolic_memory.h"
#include "thunky-c/runtime/Check.h"
#include "thunky-c/base/HashMap.h"
#include "thunky-c/runtime/Plan.h"
#include "thunky-c/runtime/Runtime.h"

#include <stdbool.h>
#include <stdint.h>

/* Tags that keep terms of different origins apart. */
enum {
  TAG_THUNK = 1,
  TAG_PARAMETER,
  TAG_CONSTANT,
  TAG_FILL4,
  TAG_REDUCE,
  TAG_FORMAL,
  TAG_LOOP,
  TAG_CONDITIONAL,
  TAG_RESULT,
  TAG_WRITES,
  TAG_UNDEFINED,
  TAG_EXCHANGE,
};

/* A loop with a known trip count runs its body this many times before the
 * rest is taken as a function (unless it reaches a fixed point first), and
 * loops inside loops so long as the runs they multiply stay within the
 * budget: a body runs at most UNROLL_BUDGET times however deep the loops
 * nest, so the cost stays linear in the thunks. */
enum { UNROLLED = 256, UNROLL_BUDGET = 4096 };

typedef struct Atom {
  uint32_t allocation;
  uint64_t start, size;
  uint32_t order; /* the first write, in program order, that covers it */
} Atom;

typedef struct Atoms {
  Atom *items;
  uint32_t count;
} Atoms;

typedef struct State {
  const ThunkyPlan *plan;
  ThunkyRunConfig config;
  uint32_t ranks, partitions;
  SymMemory *memory;
  ThunkyAsyncSchedule async;
  ThunkyRunStop stop;
  ThunkyHashMap atomsIndex; /* command -> atoms[]: each its own allocation, since a
                               nested loop's are made while an outer one's are in use */
  Atoms **atoms;
  uint32_t numAtoms;
  size_t atomsCapacity;
  uint32_t *members;
  uint8_t *seen;
  uint32_t *outputOf; /* per allocation, its first output (thunkyOutputsOfAllocations) */
  SymPieces *results; /* a collective's, per rank and buffer */
  size_t numResults;
  SymPieces scratch;
  uint64_t runs;              /* how many times the enclosing loops run what is running now */
  ThunkyExchanges *exchanges; /* per rank: what its exchanges sent (thunky-c/runtime/Check.h) */
  uint64_t exchangeRuns;      /* runs of exchanges, every rank's */
  uint32_t asFunction;        /* loops and conditionals taken as functions around here */
  ThunkyPlanSlice *windows;   /* per window of a dynamic-slice fusion: where it lies, in
                                 the executable's allocations, since its fusion last ran */
  ThunkyError *error;
} State;

/*--- symbolic.c --------------------------------------------------------------*/

/* The memory map of `allocation` (of the executable's) on `rank`. */
uint32_t symMapOf(const State *s, uint32_t rank, uint32_t allocation);
/* `slice` in the executable's allocations: a slice of a fusion's window
 * moved to where the window lies now. */
ThunkyPlanSlice symReal(const State *s, ThunkyPlanSlice slice);
/* A hash of what `slice` of `rank` holds. */
SymHash symSliceDigest(State *s, uint32_t rank, ThunkyPlanSlice slice);
/* Sets the run's error to "out of memory"; false. */
bool symOutOfMemory(State *s);
/* Writes `term` over `slice` of `rank`, from byte `offset` of the term. */
bool symWriteOne(State *s, uint32_t rank, ThunkyPlanSlice slice, uint32_t term, uint64_t offset);
/* The term a thunk the host does not run leaves, named by `h`. */
uint32_t symUnknown(State *s, SymHash h, uint32_t thunk, uint32_t parameter);
/* Appends bytes [at, at + size) of `src` on `rank` to `out`. */
bool symCopyPieces(State *s, uint32_t rank, ThunkyPlanSlice src, uint64_t at, uint64_t size,
                   SymPieces *out);
/* Runs plan list `list` on every rank. */
bool symRunList(State *s, uint32_t list);

/*--- symbolic_functions.c ----------------------------------------------------*/

/* The atoms loop or conditional `c` may write, made once per command. */
const Atoms *symAtomsOf(State *s, const ThunkyCommand *c);
/* A hash of what atom `a` of `rank` holds. */
SymHash symAtomDigest(State *s, uint32_t rank, const Atom *a);
/* Loop `c`, `count` more iterations (-1: as many as its condition says),
 * taken as a function of the atoms it may write. */
bool symLoopAsFunction(State *s, const ThunkyCommand *c, int64_t count);
/* Conditional `c` taken as a function of the atoms its branches may write. */
bool symConditionalAsFunction(State *s, const ThunkyCommand *c);

#endif /* THUNKY_RUNTIME_SYMBOLIC_STATE_H */
