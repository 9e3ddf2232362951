/*===- thunk_info.c - what passes say of a thunk beyond its op ----------===*/
#include "thunk_info.h"

#include "thunky-c/passes/Access.h"
#include "thunky-c/dialect/Dialect.h"
/* Only the schema's answer to which thunk kinds are collectives
 * (thunkyThunkKindIsCollective): passes read no executable. */
#include "thunky-c/format/Executable.h"
#include "thunky-c/dialect/Ops.h"
#include "thunky-c/base/ThunkName.h"

#include "mlir-c/BuiltinAttributes.h"

#include <string.h>

typedef struct Numbering {
  ThunkyOpMap *map;
  int64_t next;
  bool failed;
} Numbering;

static MlirWalkResult numberThunk(MlirOperation op, void *userData) {
  Numbering *n = userData;
  if (!thunkyOpKindIsThunk(thunkyOpGetKind(op)))
    return MlirWalkResultAdvance;
  /* Stored plus one: the map's values are never NULL. */
  if (!thunkyOpMapPut(n->map, (ThunkyOpMapKey){op.ptr, 0, 0}, (void *)(uintptr_t)(n->next + 1))) {
    n->failed = true;
    return MlirWalkResultInterrupt;
  }
  n->next++;
  return MlirWalkResultAdvance;
}

int64_t thunkyThunkNumberOf(ThunkyThunkNumbers *numbers, MlirOperation op) {
  if (!thunkyOpKindIsThunk(thunkyOpGetKind(op)))
    return -1;
  MlirOperation function = mlirOperationGetParentOperation(op);
  while (!mlirOperationIsNull(function) && !thunkyIsFunction(function))
    function = mlirOperationGetParentOperation(function);
  if (mlirOperationIsNull(function))
    return -1;
  if (!mlirOperationEqual(function, numbers->function)) {
    thunkyOpMapClear(&numbers->map);
    numbers->function = function;
    Numbering n = {&numbers->map, 0, false};
    mlirOperationWalk(function, numberThunk, &n, MlirWalkPreOrder);
    if (n.failed) {
      thunkyOpMapClear(&numbers->map);
      numbers->function = (MlirOperation){NULL};
      return -1;
    }
  }
  return (int64_t)(uintptr_t)thunkyOpMapGet(&numbers->map, (ThunkyOpMapKey){op.ptr, 0, 0}) - 1;
}

void thunkyThunkNumbersClear(ThunkyThunkNumbers *numbers) {
  thunkyOpMapClear(&numbers->map);
  numbers->function = (MlirOperation){NULL};
}

/* The #thunky.info import fuses into an op's location; null if none. */
static MlirAttribute locationInfo(MlirLocation loc) {
  MlirAttribute info =
      mlirLocationIsAFused(loc) ? mlirLocationFusedGetMetadata(loc) : mlirAttributeGetNull();
  return !mlirAttributeIsNull(info) && thunkyAttributeIsAThunkInfo(info) ? info
                                                                         : mlirAttributeGetNull();
}

/* The annotation and XLA id of `op`'s #thunky.info (THUNKY_ATTR_INFO),
 * else of the one import fused into its location, else of the name an
 * older import gave its location ("thunk <xla id> <annotation>"); an empty
 * annotation and id 0 where it has none. */
static MlirStringRef infoOf(MlirOperation op, int64_t *id) {
  MlirAttribute info = mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString(THUNKY_ATTR_INFO));
  MlirLocation loc = mlirOperationGetLocation(op);
  if (mlirAttributeIsNull(info) || !thunkyAttributeIsAThunkInfo(info))
    info = locationInfo(loc);
  *id = 0;
  if (!mlirAttributeIsNull(info)) {
    *id = thunkyThunkInfoAttrGetId(info);
    return thunkyThunkInfoAttrGetAnnotation(info);
  }
  if (!mlirLocationIsAName(loc))
    return mlirStringRefCreate("", 0);
  MlirStringRef s = mlirIdentifierStr(mlirLocationNameGetName(loc));
  if (s.length < 6 || memcmp(s.data, "thunk ", 6) != 0)
    return mlirStringRefCreate("", 0);
  size_t i = 6;
  bool negative = i < s.length && s.data[i] == '-';
  i += negative;
  int64_t n = 0;
  for (; i < s.length && s.data[i] >= '0' && s.data[i] <= '9'; ++i)
    n = n < INT64_MAX / 10 ? n * 10 + (s.data[i] - '0') : INT64_MAX;
  *id = negative ? -n : n;
  if (i < s.length && s.data[i] == ' ')
    ++i;
  return mlirStringRefCreate(s.data + i, s.length - i);
}

MlirStringRef thunkyThunkAnnotation(MlirOperation op) {
  int64_t id;
  return infoOf(op, &id);
}

void thunkyOpThunkName(MlirOperation op, int64_t number, char *out, size_t size) {
  int64_t id;
  MlirStringRef annotation = infoOf(op, &id);
  thunkyThunkName((uint64_t)number, annotation.data, annotation.length, id, out, size);
}

void thunkyPrintOpSource(MlirOperation op, MlirStringCallback write, void *userData) {
  MlirLocation loc = mlirOperationGetLocation(op);
  if (!mlirAttributeIsNull(locationInfo(loc)) && mlirLocationFusedGetNumLocations(loc) == 1) {
    mlirLocationFusedGetLocations(loc, &loc);
  } else if (mlirLocationIsAName(loc)) {
    MlirStringRef name = mlirIdentifierStr(mlirLocationNameGetName(loc));
    if (name.length >= 6 && memcmp(name.data, "thunk ", 6) == 0)
      loc = mlirLocationNameGetChildLoc(loc);
  }
  mlirLocationPrint(loc, write, userData);
}

MlirStringRef thunkyCallThunkKind(MlirOperation op) {
  MlirAttribute k = thunkyOpGetKind(op) == THUNKY_OP_CALL_THUNK_PROTO
                        ? mlirOperationGetDiscardableAttributeByName(
                              op, mlirStringRefCreateFromCString(THUNKY_ATTR_THUNK_KIND))
                        : (MlirAttribute){NULL};
  if (mlirAttributeIsNull(k) || !mlirAttributeIsAString(k))
    return (MlirStringRef){"", 0};
  return mlirStringAttrGetValue(k);
}

bool thunkyIsCollective(MlirOperation op) {
  if (thunkyOpKindIsCollective(thunkyOpGetKind(op)))
    return true;
  MlirStringRef s = thunkyCallThunkKind(op);
  return s.length && thunkyThunkKindIsCollective(s.data, s.length);
}

/* XLA's host computations and transfers (host_execute_thunk.cc,
 * host_send_recv_thunk.cc): the start's work goes on until the done of the
 * same kind and async_events_unique_id. */
static const char *const pairStarts[] = {"host_execute_start_thunk", "host_send_thunk",
                                         "host_recv_thunk"};
static const char *const pairDones[] = {"host_execute_done_thunk", "host_send_done_thunk",
                                        "host_recv_done_thunk"};

ThunkyHostPairing thunkyHostPairing(MlirOperation op, ThunkyOpMapKey *key) {
  MlirStringRef k = thunkyCallThunkKind(op);
  for (int64_t f = 0; k.length && f < 3; f++)
    for (int done = 0; done < 2; done++) {
      const char *name = done ? pairDones[f] : pairStarts[f];
      if (strlen(name) != k.length || memcmp(name, k.data, k.length))
        continue;
      *key = (ThunkyOpMapKey){pairStarts, f, -1};
      MlirAttribute proto =
          mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("thunk_proto"));
      MlirAttribute body = mlirAttributeIsADictionary(proto)
                               ? mlirDictionaryAttrGetElementByName(
                                     proto, mlirStringRefCreateFromCString(name))
                               : (MlirAttribute){NULL};
      MlirAttribute id = !mlirAttributeIsNull(body) && mlirAttributeIsADictionary(body)
                             ? mlirDictionaryAttrGetElementByName(
                                   body, mlirStringRefCreateFromCString("async_events_unique_id"))
                             : (MlirAttribute){NULL};
      if (!mlirAttributeIsNull(id) && mlirAttributeIsAInteger(id))
        key->b = (int64_t)mlirIntegerAttrGetValueUInt(id);
      return done ? THUNKY_PAIR_DONE : THUNKY_PAIR_START;
    }
  return THUNKY_UNPAIRED;
}
