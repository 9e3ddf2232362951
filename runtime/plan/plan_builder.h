/*===- plan_builder.h - what the planner's files share ------------------===*
 *
 * thunkyPlanCreate (plan_build.c) reads the executable through the model,
 * then builds commands depth first: plan_thunks.c the lists, control flow,
 * copies and ids; plan_kernels.c kernels and custom calls; plan_gemm.c
 * GEMMs; plan_collectives.c collectives; plan_builder.c the growing arrays
 * and slices they all write.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_RUNTIME_PLAN_BUILDER_H
#define THUNKY_RUNTIME_PLAN_BUILDER_H

#include "thunky-c/base/Arena.h"
#include "thunky-c/format/Executable.h"
#include "thunky-c/base/HashMap.h"
#include "thunky-c/format/HloText.h"
#include "thunky-c/runtime/Plan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef Xla__Gpu__ThunkProto Thunk;
typedef Xla__Gpu__GpuExecutableProto Executable;
typedef Xla__BufferAssignment__BufferAllocationSliceProto SliceProto;

/* The plan's arrays while they grow. */
typedef struct {
  void **items;
  uint32_t *count;
  size_t capacity;
  size_t size;
} Vec;

typedef struct {
  ThunkyCommand *items;
  uint32_t count;
  size_t capacity;
} CommandVec;

typedef struct {
  ThunkyPlan *plan;
  ThunkyExecutable *model; /* opened: each thunk is checked before it is built */
  const Executable *exe;
  ThunkyError *error;
  Vec commands, lists, slices, collectives, collectiveBuffers, groups, ids, kernels, params,
      binaries, customCalls, gemms, thunks, accesses, windows, windowStarts, tmas, works;
  ThunkyArena *kept; /* copies of bytes the plan keeps: plan->storage */
  ThunkyHashMap binaryIndex; /* hash of a binary's bytes -> plan->binaries */
  uint32_t moduleBinary;     /* the executable's own cubin or PTX in plan->binaries,
                                once a kernel_thunk asked; UINT32_MAX before */
  uint32_t currentThunk;
  uint64_t binaryKey; /* the executable's own binary, in kernel_thunk keys */
  uint64_t graphsKey; /* its compiled cuDNN graphs, in cudnn_thunk keys */
  bool hasBinaryKey, hasGraphsKey;
  bool replayOnly; /* thunkyPlanCreateForReplay: no keys, code or constant bytes */
  /* The executable's HLO instructions by name, made at the first kernel
   * (NULL: no HLO, or not yet); launchesTried once it was. */
  ThunkyHloLaunches *launches;
  bool launchesTried;
  /* Inside a dynamic-slice fusion, its first window in plan->windows: its
   * thunks' slices name the fusion's own allocations. */
  bool inFusion;
  uint32_t fusionWindows;
  /* Why the thunk being planned is one XLA would not run, when it is. */
  bool malformed;
  char whyMalformed[256];
} Builder;
/* Sets the message and names the current thunk in front of it; false. */
#define fail(b, ...) (thunkyErrorf((b)->error, __VA_ARGS__), thunkyPlanInThunk(b))

/* Puts the current thunk's name in front of the message just set; false. */
bool thunkyPlanInThunk(Builder *b);
/* Notes why the thunk being planned is one XLA would not run (its Prepare
 * or its reading of the proto refuses it), in b->whyMalformed; false. The
 * caller then refuses it by that reason (thunkyPlanRefuse), so backends
 * name it and a fingerprint run takes it as an uninterpreted function. */
bool thunkyPlanMalformed(Builder *b, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* Appends one zeroed element to a vector; NULL when out of memory. */
void *thunkyPlanPush(Vec *v);
/* A copy of data[0, size) (NUL-terminated) owned by the plan. */
bool thunkyPlanKeepBytes(Builder *b, const void *data, size_t size, ThunkyBytes *out);
bool thunkyPlanKeepString(Builder *b, const char *s, ThunkyBytes *out);
/* The plan's form of a slice the model checked; false for a missing one. */
bool thunkyPlanSliceOf(Builder *b, const SliceProto *s, const char *what, ThunkyPlanSlice *out);
bool thunkyPlanShapedSliceOf(Builder *b, const Xla__ShapedSliceProto *s, const char *what,
                             ThunkyPlanSlice *out);
/* Appends slices to plan->slices; a NULL entry is a null operand (size 0). */
bool thunkyPlanSliceRange(Builder *b, size_t n, const SliceProto *const *slices,
                          const char *what, ThunkyRange *range);
/* A new command of the current thunk at the end of `v`; NULL when out of memory. */
ThunkyCommand *thunkyPlanEmit(Builder *b, CommandVec *v, ThunkyCommandKind kind);
/* A thunk no backend runs for a reason a field gives: an OPAQUE command,
 * its reason ("<kind> with <format>") kept in ThunkyPlanThunk.unsupported
 * for the backends' refusal; a fingerprint run still takes it as an
 * uninterpreted function. */
bool thunkyPlanRefuse(Builder *b, CommandVec *v, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* What thunk `t` computes, for fingerprint runs (ThunkyPlanThunk.key). */
uint64_t thunkyPlanThunkKey(Builder *b, const Thunk *t);
/* Mixes into *key which of a thunk's accesses overlap where one writes
 * (plan_keys.c); false when out of memory. */
bool thunkyPlanOverlapKey(const ThunkyPlanAccess *accesses, uint32_t n, uint64_t *key);

/* Builds a list of thunks; *list is its index in plan->lists. */
bool thunkyPlanBuildList(Builder *b, size_t n, Thunk *const *thunks, uint32_t *list);
/* Builds the entry list (index 0) from the model's top-level thunks, read
 * one at a time. */
bool thunkyPlanBuildEntry(Builder *b);
bool thunkyPlanKernelThunk(Builder *b, CommandVec *v, const Xla__Gpu__KernelThunkProto *k);
/* A kernel's TMA descriptors (plan_tma.c), each checked as XLA checks it,
 * appended to plan->tmas in argument order; *out is their range. */
bool thunkyPlanTmas(Builder *b, const StreamExecutor__Gpu__TmaMetadataProto *tma, uint32_t numArgs,
                    ThunkyRange *out);
bool thunkyPlanCustomKernelThunk(Builder *b, CommandVec *v,
                                 const Xla__Gpu__CustomKernelThunkProto *k);
bool thunkyPlanCustomCallThunk(Builder *b, CommandVec *v, const Xla__Gpu__CustomCallThunkProto *cc);
/* out = alpha * lhs x rhs + beta * c (plan_gemm.c); a GEMM thunkyPlanGemm
 * cannot run is an opaque command with the reason kept. */
bool thunkyPlanGemmThunk(Builder *b, CommandVec *v, const Xla__Gpu__GemmThunkProto *t);
bool thunkyPlanCublasLtThunk(Builder *b, CommandVec *v,
                             const Xla__Gpu__CublasLtMatmulThunkProto *t);
/* Every collective but the group. */
bool thunkyPlanCollectiveThunk(Builder *b, CommandVec *v, const Thunk *t);

#endif /* THUNKY_RUNTIME_PLAN_BUILDER_H */
