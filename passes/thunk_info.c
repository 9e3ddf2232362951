/*===- thunk_info.c - what passes say of a thunk beyond its op ----------===*/
#include "thunk_info.h"

#include "thunky-c/Dialect.h"
#include "thunky-c/Executable.h"
#include "thunky-c/Ops.h"

#include "mlir-c/BuiltinAttributes.h"

#include <string.h>

typedef struct Find {
  MlirOperation wanted;
  int64_t seen, found;
} Find;

static MlirWalkResult findThunk(MlirOperation op, void *userData) {
  Find *f = userData;
  if (!thunkyOpKindIsThunk(thunkyOpGetKind(op)))
    return MlirWalkResultAdvance;
  if (mlirOperationEqual(op, f->wanted)) {
    f->found = f->seen;
    return MlirWalkResultInterrupt;
  }
  ++f->seen;
  return MlirWalkResultAdvance;
}

int64_t thunkyThunkNumber(MlirOperation function, MlirOperation op) {
  if (mlirOperationIsNull(function) || !thunkyOpKindIsThunk(thunkyOpGetKind(op)))
    return -1;
  Find f = {op, 0, -1};
  mlirOperationWalk(function, findThunk, &f, MlirWalkPreOrder);
  return f.found;
}

MlirStringRef thunkyThunkAnnotation(MlirOperation op) {
  MlirLocation loc = mlirOperationGetLocation(op);
  if (!mlirLocationIsAName(loc))
    return mlirStringRefCreate("", 0);
  MlirStringRef s = mlirIdentifierStr(mlirLocationNameGetName(loc));
  if (s.length < 6 || memcmp(s.data, "thunk ", 6) != 0)
    return mlirStringRefCreate("", 0);
  /* Past "thunk", XLA's id and the space before the annotation. */
  size_t i = 6;
  if (i < s.length && s.data[i] == '-')
    ++i;
  while (i < s.length && s.data[i] >= '0' && s.data[i] <= '9')
    ++i;
  if (i < s.length && s.data[i] == ' ')
    ++i;
  return mlirStringRefCreate(s.data + i, s.length - i);
}

void thunkyOpThunkName(MlirOperation op, int64_t number, char *out, size_t size) {
  MlirStringRef annotation = thunkyThunkAnnotation(op);
  thunkyThunkName((uint64_t)number, annotation.data, annotation.length, out, size);
}

void thunkyPrintOpSource(MlirOperation op, MlirStringCallback write, void *userData) {
  MlirLocation loc = mlirOperationGetLocation(op);
  if (mlirLocationIsAName(loc)) {
    MlirStringRef name = mlirIdentifierStr(mlirLocationNameGetName(loc));
    if (name.length >= 6 && memcmp(name.data, "thunk ", 6) == 0)
      loc = mlirLocationNameGetChildLoc(loc);
  }
  mlirLocationPrint(loc, write, userData);
}

bool thunkyIsCollective(MlirOperation op) {
  ThunkyOpKind kind = thunkyOpGetKind(op);
  if (thunkyOpKindIsCollective(kind))
    return true;
  if (kind != THUNKY_OP_CALL_THUNK_PROTO)
    return false;
  MlirAttribute k = mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString(THUNKY_ATTR_THUNK_KIND));
  if (mlirAttributeIsNull(k) || !mlirAttributeIsAString(k))
    return false;
  MlirStringRef s = mlirStringAttrGetValue(k);
  return thunkyThunkKindIsCollective(s.data, s.length);
}
