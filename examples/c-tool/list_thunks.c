/* An example tool on thunky's MLIR-free runtime: it plans an XLA:GPU
 * executable (any layering thunky reads) and lists its thunks as every
 * thunky tool names them (position, annotation, XLA thunk id) with their kinds.
 *   list-thunks EXECUTABLE
 * Built against an installed thunky with CMake (Thunky::Runtime) or
 * pkg-config (thunky-runtime); docs/building.md. */
#include "thunky-c/format/Container.h"
#include "thunky-c/runtime/Plan.h"
#include "thunky-c/Version.h"

#include <inttypes.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: list-thunks EXECUTABLE (built with thunky %s)\n", THUNKY_VERSION);
    return 2;
  }
  ThunkyError error = {{0}};
  ThunkyBuffer bytes = {0};
  ThunkyPlan *plan = NULL;
  if (!thunkyBufferReadFile(&bytes, argv[1], &error) ||
      !thunkyPlanCreate(bytes.data, bytes.size, NULL, &plan, &error)) {
    fprintf(stderr, "list-thunks: %s: %s\n", argv[1], error.message);
    thunkyBufferDestroy(&bytes);
    return 1;
  }
  for (uint32_t t = 0; t < plan->numThunks; t++) {
    char name[160];
    thunkyPlanThunkName(plan, t, name, sizeof name);
    printf("%s: %s\n", name, plan->thunks[t].kind);
  }
  printf("%" PRIu32 " thunks, %" PRIu32 " allocations\n", plan->numThunks,
         plan->numAllocations);
  thunkyPlanDestroy(plan);
  thunkyBufferDestroy(&bytes);
  return 0;
}
