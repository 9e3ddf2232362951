/*===- run_stop.c - where a run on the CPU stops before its end ----------===*/
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "run_stop.h"

#include <stdio.h>
#include <time.h>

static uint64_t now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

ThunkyRunStop thunkyRunStopStart(const ThunkyRunConfig *config) {
  ThunkyRunStop stop = {config->interrupt, 0, config->timeoutSeconds, ""};
  if (config->timeoutSeconds)
    stop.deadline = now() + (uint64_t)config->timeoutSeconds * 1000000000u;
  return stop;
}

const char *thunkyRunStopped(ThunkyRunStop *stop) {
  if (stop->interrupt && __atomic_load_n(stop->interrupt, __ATOMIC_RELAXED))
    return "interrupted";
  if (!stop->deadline || now() < stop->deadline)
    return NULL;
  snprintf(stop->why, sizeof stop->why, "the run took more than %u second(s) (timeout)",
           stop->seconds);
  return stop->why;
}
