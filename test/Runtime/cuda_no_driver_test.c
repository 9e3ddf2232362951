/* The CUDA backend where NVIDIA's driver is missing: `create` must fail
 * with a message that says so, leave no state and leak nothing (the
 * sanitizer build checks leaks). Checks that need no driver (custom calls
 * registered, CUDA graph mode possible, the configuration) must fail first,
 * with their own messages, on any machine. Plans are built by hand.
 *
 * REQUIRES: cuda-backend
 * RUN: thunky-cuda-no-driver-test
 */
#include "thunky-c/runtime/Runtime.h"
#include "thunky-c/runtime/Schedule.h"
#include "thunky-c/runtime/Timeline.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "check.h"


/*--- A plan built by hand ----------------------------------------------------*/

enum { COMMANDS = 4, LISTS = 3 };

/* One 16-byte allocation and up to COMMANDS commands in the entry list, one
 * thunk each; lists 1 and 2 are empty (a while loop's condition and body). */
typedef struct Tiny {
  ThunkyPlan plan;
  ThunkyPlanAllocation allocation;
  ThunkyCommand commands[COMMANDS];
  ThunkyRange lists[LISTS];
  ThunkyPlanThunk thunks[COMMANDS];
  ThunkyPlanCustomCall call;
  ThunkyCollective collective;
  ThunkyCollectiveBuffer buffer;
} Tiny;

static ThunkyBytes text(const char *s) { return (ThunkyBytes){(const uint8_t *)s, strlen(s)}; }

static void tinyInit(Tiny *t) {
  memset(t, 0, sizeof *t);
  t->allocation = (ThunkyPlanAllocation){.size = 16, .parameter = -1};
  t->plan.allocations = &t->allocation, t->plan.numAllocations = 1;
  t->plan.commands = t->commands;
  t->plan.lists = t->lists, t->plan.numLists = LISTS;
  t->plan.thunks = t->thunks;
  t->plan.customCalls = &t->call;
  t->plan.collectives = &t->collective;
  t->plan.collectiveBuffers = &t->buffer;
}

static ThunkyCommand *add(Tiny *t, ThunkyCommandKind kind, const char *annotation) {
  ThunkyCommand *c = &t->commands[t->plan.numCommands];
  c->kind = (uint8_t)kind;
  c->thunk = t->plan.numThunks;
  t->thunks[t->plan.numThunks++] = (ThunkyPlanThunk){.annotation = text(annotation)};
  t->lists[0].count = ++t->plan.numCommands;
  t->lists[1].first = t->lists[2].first = t->plan.numCommands;
  return c;
}

static void addMemzero(Tiny *t) {
  add(t, THUNKY_CMD_MEMZERO, "zero_fusion")->memzero.dst =
      (ThunkyPlanSlice){.allocation = 0, .size = 16};
}

static void addCustomCall(Tiny *t, const char *target) {
  t->call.target = text(target);
  t->plan.numCustomCalls = 1;
  add(t, THUNKY_CMD_CUSTOM_CALL, "custom_call")->customCall.call = 0;
}

static void addAllReduce(Tiny *t) {
  ThunkyPlanSlice all = {.allocation = 0, .size = 16};
  t->buffer = (ThunkyCollectiveBuffer){all, all, 4, 11 /* f32 */};
  t->collective = (ThunkyCollective){.kind = THUNKY_COLLECTIVE_ALL_REDUCE,
                                     .reduction = THUNKY_REDUCE_SUM,
                                     .buffers = {0, 1}};
  t->plan.numCollectives = 1, t->plan.numCollectiveBuffers = 1;
  add(t, THUNKY_CMD_COLLECTIVE, "all-reduce")->collective.collective = 0;
}

static ThunkyRunConfig oneRank(void) {
  return (ThunkyRunConfig){.ranks = 1, .partitions = 1, .maxIterations = 1000};
}

/* Creates the backend expecting failure with `expected` in the message. */
static void expectFailure(const ThunkyPlan *plan, const ThunkyRunConfig *config,
                          const char *expected, const char *what) {
  ThunkyError error = {{0}};
  void *state = (void *)&error; /* create must reset it */
  bool ok = thunkyCudaBackend.create(plan, config, &state, &error);
  CHECK(!ok, "%s: create succeeded", what);
  CHECK(state == NULL, "%s: create left state behind", what);
  CHECK(strstr(error.message, expected) != NULL, "%s: got \"%s\", want \"%s\"", what,
        error.message, expected);
  if (ok)
    thunkyCudaBackend.destroy(state);
}

/*--- Without a driver --------------------------------------------------------*/

static void testNoDriver(void) {
  int before = failures;
  const char *prefix = "cuda: cannot load libcuda.so.1 (no NVIDIA driver?): ";
  Tiny t;
  tinyInit(&t);
  addMemzero(&t);
  ThunkyRunConfig config = oneRank();
  /* Several times: a failed load must leave nothing behind to trip over. */
  for (int i = 0; i < 3; i++) {
    ThunkyError error = {{0}};
    void *state = NULL;
    CHECK(!thunkyCudaBackend.create(&t.plan, &config, &state, &error), "create succeeded");
    CHECK(!state, "state left behind");
    CHECK(!strncmp(error.message, prefix, strlen(prefix)), "got \"%s\"", error.message);
    CHECK(strlen(error.message) > strlen(prefix), "no dlerror in \"%s\"", error.message);
  }
  /* The driver is missing before NCCL is: that is what the message says. */
  addAllReduce(&t);
  expectFailure(&t.plan, &config, prefix, "a plan with collectives");
  report("no driver", before);
}

/*--- Checks that come before the driver --------------------------------------*/

static void testBeforeTheDriver(void) {
  int before = failures;
  Tiny t;
  tinyInit(&t);
  addMemzero(&t);
  addCustomCall(&t, "my_target");
  ThunkyRunConfig config = oneRank();
  expectFailure(&t.plan, &config, "custom call target 'my_target'", "unregistered call");
  expectFailure(&t.plan, &config, "is not registered for the cuda backend",
                "unregistered call");

  /* Graphs are taken as given, but not past the plan, and not timed. */
  tinyInit(&t);
  addMemzero(&t);
  uint8_t place[2] = {THUNKY_GRAPH_FIRST};
  ThunkyRange range = {0, 5};
  ThunkyCommandBuffers graphs = {.place = place, .graphs = &range, .numGraphs = 1};
  config = oneRank();
  config.graphs = &graphs;
  expectFailure(&t.plan, &config, "cuda: graph 0 lies outside the plan's commands",
                "graph past the plan");

  tinyInit(&t);
  addMemzero(&t);
  config = oneRank();
  config.processRank = 2, config.processCount = 2;
  expectFailure(&t.plan, &config, "cuda: process 2 of only 2", "process out of range");
  config = oneRank();
  config.ranks = 3, config.partitions = 2;
  expectFailure(&t.plan, &config, "cuda: 2 partitions do not divide a world of 3 ranks",
                "partitions");

  thunkyCudaBackend.destroy(NULL); /* allowed, and does nothing */
  CHECK(!strcmp(thunkyCudaBackend.name, "cuda"), "name %s", thunkyCudaBackend.name);
  report("checks before the driver", before);
}

int main(void) {
  testBeforeTheDriver();
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver) {
    dlclose(driver);
    printf("no driver: skipped (this machine has libcuda.so.1)\n");
  } else {
    testNoDriver();
  }
  return failures != 0;
}
