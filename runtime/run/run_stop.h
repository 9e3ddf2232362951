/*===- run_stop.h - where a run on the CPU stops before its end ----------===*
 *
 * A run on the host or the symbolic backend may take as long as its
 * program: a loop of a million iterations, a step of a real model. The
 * caller bounds it two ways (ThunkyRunConfig): a deadline for the whole run
 * (timeoutSeconds), and a flag another thread sets to stop it now
 * (interrupt: Python's Ctrl-C, a service's cancel). Both backends ask
 * before every command, through this one implementation.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_RUNTIME_RUN_STOP_H
#define THUNKY_RUNTIME_RUN_STOP_H

#include "thunky-c/runtime/Runtime.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct ThunkyRunStop {
  const volatile int *interrupt;
  uint64_t deadline; /* CLOCK_MONOTONIC nanoseconds; 0: none */
  uint32_t seconds;
  char why[64]; /* once stopped */
} ThunkyRunStop;

/* Starts the clock of a run configured by `config`; each thread that runs
 * commands keeps its own copy. */
ThunkyRunStop thunkyRunStopStart(const ThunkyRunConfig *config);

/* NULL while the run may go on to its next command; else why it must stop
 * ("interrupted", "the run took more than 5 second(s) (timeout)"), held
 * in `stop`. A clock read costs tens of nanoseconds, far less than any
 * command. */
const char *thunkyRunStopped(ThunkyRunStop *stop);

#endif /* THUNKY_RUNTIME_RUN_STOP_H */
