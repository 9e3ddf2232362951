/*===- op_list.c - ops of one kind, collected by a walk -----------------===*/
#include "thunky-c/base/Arena.h"
#include "thunky-c/passes/PassKit.h"
#include "thunk_info.h"

#include <stdlib.h>

typedef struct Collector {
  ThunkyOpKind kind;
  ThunkyOpList *list;
  bool outOfMemory;
} Collector;

static MlirWalkResult visit(MlirOperation op, void *userData) {
  Collector *c = userData;
  if (thunkyOpGetKind(op) != c->kind)
    return MlirWalkResultAdvance;
  ThunkyOpList *l = c->list;
  if (!thunkyArrayGrow((void **)&l->ops, &l->capacity, l->count, sizeof *l->ops)) {
    c->outOfMemory = true;
    return MlirWalkResultInterrupt;
  }
  l->ops[l->count++] = op;
  return MlirWalkResultAdvance;
}

bool thunkyCollectOps(MlirOperation root, ThunkyOpKind kind, MlirWalkOrder order,
                      ThunkyOpList *out) {
  Collector c = {kind, out, false};
  mlirOperationWalk(root, visit, &c, order);
  return !c.outOfMemory;
}

void thunkyOpListClear(ThunkyOpList *list) {
  free(list->ops);
  *list = (ThunkyOpList){0};
}

/* A collective kept as call_thunk_proto (a broadcast, send, recv, ragged
 * all-to-all, collective kernel) is one to every rule, as a first-class
 * one is. */
bool thunkyOpHoldsCollective(MlirOperation op, bool outsideAsyncRegions) {
  if (thunkyIsCollective(op))
    return true;
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
         !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o);
           o = mlirOperationGetNextInBlock(o))
        if (!(outsideAsyncRegions && thunkyOpGetKind(o) == THUNKY_OP_ASYNC_START) &&
            thunkyOpHoldsCollective(o, outsideAsyncRegions))
          return true;
  return false;
}
