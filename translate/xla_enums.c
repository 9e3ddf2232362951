/*===- xla_enums.c - XLA's collective enums by the names ops give them ---===*/
#include "xla_enums.h"

#include "xla/xla_data.pb-c.h"
#include "xla/core/collectives/reduction_kind.pb-c.h"


#include <stdbool.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static bool equals(MlirStringRef s, const char *literal) {
  return s.length == strlen(literal) && memcmp(s.data, literal, s.length) == 0;
}

static const char *const reductionNames[] = {
    [XLA__REDUCTION_KIND_PROTO__REDUCTION_KIND_SUM] = "sum",
    [XLA__REDUCTION_KIND_PROTO__REDUCTION_KIND_PRODUCT] = "prod",
    [XLA__REDUCTION_KIND_PROTO__REDUCTION_KIND_MIN] = "min",
    [XLA__REDUCTION_KIND_PROTO__REDUCTION_KIND_MAX] = "max",
};

const char *thunkyReductionKindName(int kind) {
  return kind > 0 && (size_t)kind < COUNT(reductionNames) ? reductionNames[kind]
                                                          : NULL;
}

int thunkyReductionKindFromName(MlirStringRef name) {
  if (equals(name, "product"))
    return XLA__REDUCTION_KIND_PROTO__REDUCTION_KIND_PRODUCT;
  for (size_t k = 1; k < COUNT(reductionNames); ++k)
    if (equals(name, reductionNames[k]))
      return (int)k;
  return 0;
}

static const char *const groupModeNames[] = {
    [XLA__COLLECTIVE_OP_GROUP_MODE__COLLECTIVE_OP_GROUP_MODE_CROSS_REPLICA] =
        "cross_replica",
    [XLA__COLLECTIVE_OP_GROUP_MODE__COLLECTIVE_OP_GROUP_MODE_CROSS_PARTITION] =
        "cross_partition",
    [XLA__COLLECTIVE_OP_GROUP_MODE__COLLECTIVE_OP_GROUP_MODE_CROSS_REPLICA_AND_PARTITION] =
        "cross_replica_and_partition",
    [XLA__COLLECTIVE_OP_GROUP_MODE__COLLECTIVE_OP_GROUP_MODE_FLATTENED_ID] =
        "flattened_id",
};

const char *thunkyGroupModeName(int mode) {
  return mode >= 0 && (size_t)mode < COUNT(groupModeNames) ? groupModeNames[mode]
                                                           : NULL;
}

int thunkyGroupModeFromName(MlirStringRef name) {
  for (size_t m = 0; m < COUNT(groupModeNames); ++m)
    if (equals(name, groupModeNames[m]))
      return (int)m;
  return -1;
}
