/*===- hlo_launches.h - the launch index, shared with the work it costs ---===*
 *
 * hlo_work.c costs a launch by the computations it calls, looked up through
 * the index that finds it, and keeps each computation's cost there so that
 * costing every launch stays linear in the module.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_FORMAT_HLO_LAUNCHES_H
#define THUNKY_FORMAT_HLO_LAUNCHES_H

#include "thunky-c/base/HashMap.h"
#include "thunky-c/base/Work.h"
#include "thunky-c/format/HloText.h"

typedef struct HloComputationWork {
  ThunkyWork work;
  unsigned char state; /* 0: not costed; 1: being costed (a cycle); 2: costed; 3: cannot be */
} HloComputationWork;

struct ThunkyHloLaunches {
  const Xla__HloModuleProto *module;
  const Xla__HloInstructionProto **instructions; /* of computations that are no fusion's */
  ThunkyHashMap byKernel;                        /* hash of a kernel name -> its instruction */
  ThunkyHashMap byName;       /* hash of a name unlike its kernel name -> its instruction */
  ThunkyHashMap computations; /* computation id -> index */
  size_t longest;             /* no longer name can match */
  HloComputationWork *work;   /* per computation, once a launch is costed */
  bool outOfMemory;           /* costing ran out: what it left unknown is not the HLO's doing */
};

#endif /* THUNKY_FORMAT_HLO_LAUNCHES_H */
