// A C client of the MLIR-free public headers: it links only the runtime
// and format libraries, and uses each header for what it is for.
//
// RUN: thunky-format-capi-test %t.npy | FileCheck %s
#include "thunky-c/base/Arena.h"
#include "thunky-c/base/Bytes.h"
#include "thunky-c/base/ElementTypes.h"
#include "thunky-c/base/Error.h"
#include "thunky-c/base/Hash.h"
#include "thunky-c/base/HashMap.h"
#include "thunky-c/base/Limits.h"
#include "thunky-c/base/TextLayout.h"
#include "thunky-c/base/ThunkName.h"
#include "thunky-c/format/Container.h"
#include "thunky-c/format/Executable.h"
#include "thunky-c/format/Riegeli.h"
#include "thunky-c/format/Wire.h"
#include "thunky-c/runtime/Check.h"
#include "thunky-c/runtime/Compare.h"
#include "thunky-c/runtime/Npy.h"
#include "thunky-c/runtime/Plan.h"
#include "thunky-c/runtime/Reduce.h"
#include "thunky-c/runtime/RunOptions.h"
#include "thunky-c/runtime/Runtime.h"
#include "thunky-c/runtime/Schedule.h"
#include "thunky-c/runtime/Timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void appendText(const char *bytes, size_t size, void *text) {
  strncat(text, bytes, size);
}

static bool countThunk(ThunkyThunkProto *thunk, void *visits, ThunkyError *error) {
  ++*(size_t *)visits;
  return true;
}

int main(int argc, char **argv) {
  /* Element types: one table. */
  printf("%s %u %s %s\n", thunkyElementTypeName(THUNKY_TYPE_BF16),
         thunkyElementBytes(THUNKY_TYPE_BF16), thunkyElementTypeMlirName(THUNKY_TYPE_F8E4M3FN),
         thunkyElementTypeName(thunkyElementTypeFromMlirName("i1", 2)));
  printf("bf16(1.5)=%.1f\n",
         thunkySmallFloatDecode(THUNKY_TYPE_BF16, thunkySmallFloatEncode(THUNKY_TYPE_BF16, 1.5f)));
  // CHECK: bf16 2 f8E4M3FN pred
  // CHECK-NEXT: bf16(1.5)=1.5

  /* A hash map of a million keys, and the arena. */
  ThunkyHashMap map = {0};
  for (uint32_t i = 0; i < 1000000; i++)
    thunkyHashMapPut(&map, (uint64_t)i * 977, i);
  uint32_t v = 0;
  bool found = thunkyHashMapGet(&map, 977 * 123456, &v);
  printf("map %zu found=%d value=%u missing=%d\n", map.count, found, v,
         thunkyHashMapGet(&map, 5, &v));
  thunkyHashMapDestroy(&map);
  ThunkyArena *arena = thunkyArenaCreate();
  char *s = thunkyArenaString(arena, "thunky", 6);
  printf("arena %s\n", s);
  // CHECK-NEXT: map 1000000 found=1 value=123456 missing=0
  // CHECK-NEXT: arena thunky

  /* Array growth: one element, then a jump of many (a chunk's records),
   * keeping what was there. */
  uint32_t *items = NULL;
  size_t capacity = 0;
  bool grew = thunkyArrayGrow((void **)&items, &capacity, 0, sizeof *items);
  items[0] = 7;
  bool jumped = thunkyArrayGrow((void **)&items, &capacity, 1000000, sizeof *items);
  items[1000000] = 8;
  printf("grow %d %d room %d kept %u\n", grew, jumped, capacity > 1000000, items[0]);
  free(items);
  // CHECK-NEXT: grow 1 1 room 1 kept 7

  /* Base's hash (the same HighwayHash riegeli's chunks carry) and the
   * name every report gives a thunk. */
  char name[64];
  thunkyThunkName(7, "loop_add_fusion", 15, 8, name, sizeof name);
  printf("hash %d %d; %s\n", thunkyHashBytes("thunky", 6) == thunkyHashBytes("thunky", 6),
         thunkyHashBytes("thunky", 6) != thunkyHashBytes("thunkz", 6), name);
  // CHECK-NEXT: hash 1 1; thunk 7 (loop_add_fusion, id 8)

  /* Wire, riegeli and the container, round trip of one record. */
  ThunkyBuffer varint = {0};
  thunkyBufferAppendVarint(&varint, 300);
  size_t pos = 0;
  uint64_t back = 0;
  thunkyReadVarint(varint.data, varint.size, &pos, &back);
  ThunkyBytes record = {(const uint8_t *)"hello", 5};
  ThunkyBuffer file = {0};
  ThunkyError error;
  ThunkyRecordFile records = {0};
  bool wrote = thunkyRiegeliWrite(&record, 1, THUNKY_COMPRESSION_SNAPPY, &file, &error);
  bool read = thunkyRiegeliRead(file.data, file.size, UINT64_MAX, &records, &error);
  printf("varint %zu bytes %llu; riegeli %d %d %zu record(s) %.*s\n", varint.size,
         (unsigned long long)back, wrote, read, records.count, (int)records.records[0].size,
         (const char *)records.records[0].data);
  thunkyRecordFileDestroy(&records);
  thunkyBufferDestroy(&file), thunkyBufferDestroy(&varint);
  // CHECK-NEXT: varint 2 bytes 300; riegeli 1 1 1 record(s) hello

  /* Limits and errors. */
  ThunkyLimits limits = thunkyLimitsDefault();
  bool set = thunkyLimitsSet(&limits, "max-allocations", "2", &error);
  bool bad = thunkyLimitsSet(&limits, "max-allocations", "none", &error);
  printf("limits %d %llu %d: %s\n", set, (unsigned long long)limits.maxAllocations, bad,
         error.message);
  // CHECK-NEXT: limits 1 2 0: max-allocations: 'none' is not a positive count

  /* An executable through the model, the plan and the host backend. Bytes
   * that are no executable get the model's error. */
  ThunkyExecutable *exe;
  bool opened = thunkyExecutableCreate("\xff\xff", 2, NULL, &exe, &error);
  printf("model %d: %s\n", opened, error.message);
  // CHECK-NEXT: model 0: not a GpuExecutableProto: {{.*}}
  Xla__Gpu__GpuExecutableProto proto = XLA__GPU__GPU_EXECUTABLE_PROTO__INIT;
  Xla__BufferAllocationProto alloc = XLA__BUFFER_ALLOCATION_PROTO__INIT, *allocs[] = {&alloc};
  Xla__Gpu__GpuExecutableProto__RepeatedBufferAllocations table =
      XLA__GPU__GPU_EXECUTABLE_PROTO__REPEATED_BUFFER_ALLOCATIONS__INIT;
  alloc.has_size = 1, alloc.size = 8, alloc.has_maybe_live_out = 1, alloc.maybe_live_out = 1;
  table.n_values = 1, table.values = allocs;
  proto.buffer_allocations = &table;
  Xla__BufferAssignment__BufferAllocationSliceProto dest =
      XLA__BUFFER_ASSIGNMENT__BUFFER_ALLOCATION_SLICE_PROTO__INIT;
  dest.has_size = 1, dest.size = 8;
  Xla__Gpu__Memset32BitValueThunkProto memset = XLA__GPU__MEMSET32_BIT_VALUE_THUNK_PROTO__INIT;
  memset.dest_buffer = &dest, memset.has_value = 1, memset.value = 0x07070707;
  Xla__Gpu__ThunkProto thunk = XLA__GPU__THUNK_PROTO__INIT, *thunks[] = {&thunk};
  thunk.impl_case = XLA__GPU__THUNK_PROTO__IMPL_MEMSET32BIT_VALUE_THUNK;
  thunk.memset32bit_value_thunk = &memset;
  proto.n_thunks = 1, proto.thunks = thunks;
  Xla__Gpu__GpuExecutableProto__OutputInfoProto info =
      XLA__GPU__GPU_EXECUTABLE_PROTO__OUTPUT_INFO_PROTO__INIT;
  Xla__ShapeIndexProto index = XLA__SHAPE_INDEX_PROTO__INIT;
  Xla__Gpu__GpuExecutableProto__OutputInfoMapEntry entry =
      XLA__GPU__GPU_EXECUTABLE_PROTO__OUTPUT_INFO_MAP_ENTRY__INIT, *entries[] = {&entry};
  entry.shape_index = &index, entry.output_info = &info;
  proto.n_output_info_map = 1, proto.output_info_map = entries;
  size_t size = xla__gpu__gpu_executable_proto__get_packed_size(&proto);
  uint8_t *bytes = thunkyArenaAlloc(arena, size);
  xla__gpu__gpu_executable_proto__pack(&proto, bytes);
  opened = thunkyExecutableCreate(bytes, size, NULL, &exe, &error);
  printf("model %d: %u allocation(s), %u output(s), %llu thunk(s)\n", opened,
         exe->numAllocations, exe->numOutputs, (unsigned long long)exe->numThunks);
  thunkyExecutableDestroy(exe);
  // CHECK-NEXT: model 1: 1 allocation(s), 1 output(s), 1 thunk(s)

  /* Opened, the thunks stay in the wire until a pass reads them; the first
   * whole pass checks and counts them, a second only visits. */
  size_t visits = 0;
  opened = thunkyExecutableOpen(bytes, size, NULL, &exe, &error);
  printf("opened %d: %zu thunk(s) unpacked, %llu counted\n", opened, exe->proto->n_thunks,
         (unsigned long long)exe->numThunks);
  bool passes = thunkyExecutableForEachThunk(exe, countThunk, &visits, &error) &&
                thunkyExecutableForEachThunk(exe, countThunk, &visits, &error);
  printf("two passes %d: %zu visit(s), %llu thunk(s) counted\n", passes, visits,
         (unsigned long long)exe->numThunks);
  thunkyExecutableDestroy(exe);
  // CHECK-NEXT: opened 1: 0 thunk(s) unpacked, 0 counted
  // CHECK-NEXT: two passes 1: 2 visit(s), 1 thunk(s) counted

  /* A thunk that is wrong is refused by the pass, as Create refuses it. */
  dest.offset = 4, dest.has_offset = 1;
  size_t badSize = xla__gpu__gpu_executable_proto__get_packed_size(&proto);
  uint8_t *badBytes = thunkyArenaAlloc(arena, badSize);
  xla__gpu__gpu_executable_proto__pack(&proto, badBytes);
  dest.offset = 0, dest.has_offset = 0;
  ThunkyError created;
  opened = thunkyExecutableCreate(badBytes, badSize, NULL, &exe, &created);
  printf("created %d: %s\n", opened, created.message);
  passes = thunkyExecutableOpen(badBytes, badSize, NULL, &exe, &error) &&
           thunkyExecutableForEachThunk(exe, countThunk, &visits, &error);
  printf("pass %d, same error %d, %zu visit(s)\n", passes,
         strcmp(error.message, created.message) == 0, visits);
  thunkyExecutableDestroy(exe);
  // CHECK-NEXT: created 0: thunk 0: bytes [4, 12) lie outside allocation 0 (8 bytes)
  // CHECK-NEXT: pass 0, same error 1, 2 visit(s)

  ThunkyPlan *plan;
  ThunkyRegistry *registry = thunkyRegistryCreate();
  ThunkyHostKernelFn kernel;
  void *user = NULL;
  bool added = thunkyRegistryAddHostKernel(registry, "k", NULL, &arena);
  printf("registry: k %d (user data kept %d), q %d\n", added &&
         thunkyRegistryGetHostKernel(registry, "k", &kernel, &user), user == (void *)&arena,
         thunkyRegistryGetHostKernel(registry, "q", &kernel, &user));
  // CHECK-NEXT: registry: k 1 (user data kept 1), q 0
  float acc[2] = {1.5f, -2}, in[2] = {2, 8};
  bool reduced = thunkyElementReduce(THUNKY_TYPE_F32, THUNKY_REDUCE_MAX, acc, in, 2, &error);
  printf("reduce %d: max %g %g, c64 min refused %d\n", reduced, acc[0], acc[1],
         !thunkyElementCanReduce(THUNKY_TYPE_C64, THUNKY_REDUCE_MIN, &error));
  // CHECK-NEXT: reduce 1: max 2 8, c64 min refused 1
  ThunkyTimeline *timeline = thunkyTimelineCreate();
  void *state;
  uint8_t result[8] = {0};
  ThunkyRunConfig config = {.ranks = 2, .partitions = 1, .maxIterations = 10,
                            .registry = registry, .timeline = timeline};
  bool ran = thunkyPlanCreate(bytes, size, NULL, &plan, &error) &&
             thunkyHostBackend.create(plan, &config, &state, &error);
  ran = ran && thunkyHostBackend.run(state, &error) &&
        thunkyHostBackend.read(state, 1, plan->outputs[0].slice, result, &error);
  size_t events;
  thunkyTimelineEvents(timeline, &events);
  printf("host %d: rank 1 out0 %02x..%02x, %zu event(s)\n", ran, result[0], result[7], events);
  // CHECK-NEXT: host 1: rank 1 out0 07..07, 2 event(s)
  if (ran)
    thunkyHostBackend.destroy(state);
  /* Every backend takes or refuses a configuration alike
   * (thunkyRunConfigNormalize): 3 partitions do not divide 4 ranks. */
  ThunkyRunConfig uneven = {.ranks = 4, .partitions = 3, .maxIterations = 10,
                            .registry = registry};
  const ThunkyBackendOps *backends[] = {&thunkyHostBackend, &thunkySymbolicBackend,
                                        &thunkyCudaBackend};
  for (size_t i = 0; plan && i < sizeof backends / sizeof *backends; i++) {
    void *made = NULL;
    if (backends[i]->create(plan, &uneven, &made, &error)) {
      printf("uneven layout: taken\n");
      backends[i]->destroy(made);
    } else {
      printf("uneven layout: %s\n", error.message);
    }
  }
  // CHECK-NEXT: uneven layout: host: 3 partitions do not divide a world of 4 ranks
  // CHECK-NEXT: uneven layout: symbolic: 3 partitions do not divide a world of 4 ranks
  // CHECK-NEXT: uneven layout: {{cuda: 3 partitions do not divide a world of 4 ranks|.*without the CUDA backend.*}}
  /* The schedule model takes its world by the same rule. */
  ThunkySchedule *schedule = NULL;
  if (plan && !thunkyScheduleCreate(plan, &(ThunkyScheduleOptions){.ranks = 4, .partitions = 3},
                                    &schedule, &error))
    printf("uneven layout: model: %s\n", error.message);
  thunkyScheduleDestroy(schedule);
  // CHECK-NEXT: uneven layout: model: 3 partitions do not divide a world of 4 ranks

  /* Fingerprints, write logs and a comparison of the plan with itself. */
  uint8_t pred, fill[16];
  thunkyFingerprintFill(1, &pred, 1);
  thunkyFingerprintFill(1, fill, sizeof fill);
  printf("fingerprint: pred %s, hash stable %d, keyed %d\n", pred <= 1 ? "0 or 1" : "wide",
         thunkyFingerprintHash(3, fill, 16) == thunkyFingerprintHash(3, fill, 16),
         thunkyFingerprintHash(3, fill, 16) != thunkyFingerprintHash(4, fill, 16));
  // CHECK-NEXT: fingerprint: pred 0 or 1, hash stable 1, keyed 1
  ThunkyWriteLog *ta = thunkyWriteLogCreate(1, 8), *tb = thunkyWriteLogCreate(1, 8);
  thunkyWriteLogAdd(ta, 0, (ThunkyWriteEvent){0, 1});
  thunkyWriteLogAdd(tb, 0, (ThunkyWriteEvent){0, 2});
  uint32_t x, y;
  ThunkyDivergence d = thunkyWriteLogDivergence(plan, ta, plan, tb, 0, &x, &y);
  printf("divergence %d at thunks %u and %u\n", d == THUNKY_DIVERGENCE_WRITES, x, y);
  // CHECK-NEXT: divergence 1 at thunks 0 and 0
  thunkyWriteLogDestroy(ta), thunkyWriteLogDestroy(tb);
  ThunkyRunSide side = {"the plan", plan, config};
  side.config.timeline = NULL, side.config.fingerprint = true;
  FILE *report = tmpfile();
  int same = report ? thunkyCompareRuns(&thunkyHostBackend, &side, &side, NULL, report, &error)
                    : 2;
  printf("compared with itself: %d\n", same);
  // CHECK-NEXT: compared with itself: 0
  if (report)
    fclose(report);

  /* .npy out and in. */
  ThunkyNpyArray array = {.elementType = THUNKY_TYPE_U8, .rank = 1, .dims = {8},
                          .data = result, .size = 8}, again = {0};
  bool saved = argc > 1 && thunkyNpyWrite(argv[1], &array, &error);
  bool loaded = saved && thunkyNpyRead(argv[1], 0, &again, &error);
  char shape[32];
  thunkyNpyDescribe(again.elementType, again.rank, again.dims, shape, sizeof shape);
  printf("npy %d %d %s\n", saved, loaded, shape);
  // CHECK-NEXT: npy 1 1 u8[8]

  /* The table of a run's options: found by name (or an older one), a value
   * checked against its range, a near name for a misspelt one. */
  const ThunkyRunOption *ranks = thunkyRunOptionFind("ranks", 5);
  uint64_t count = 0;
  bool inRange = thunkyRunOptionParse(ranks, "--", "8", &count, &error);
  bool outOfRange = thunkyRunOptionParse(ranks, "--", "0", &count, &error);
  printf("options: ranks %d %llu %d (%s), cuda-graph finds %s, near %s\n", inRange,
         (unsigned long long)count, outOfRange, error.message,
         thunkyRunOptionFind("cuda-graph", 10)->name,
         thunkyRunOptionNearest("partition", THUNKY_OPTION_SESSION));
  // CHECK-NEXT: options: ranks 1 8 0 (--ranks: '0' is not a whole number from 1 to 4096), cuda-graph finds command-buffers, near partitions

  /* Text layout, fed a byte at a time: a long signature folds (the comma in
   * the string stays), a short one and the line after stay as they are. */
  static const char module[] = "  func.func @f(%a: i32 {x.s = \"p, q\"}, %b: i32) {\n"
                               "  func.func @g(%a: i32)\n  return, x\n";
  char laidOut[256] = "";
  ThunkyTextLayout *layout = thunkyTextLayoutCreate(40, appendText, laidOut);
  for (size_t i = 0; layout && module[i]; i++)
    thunkyTextLayoutWrite(layout, module + i, 1);
  thunkyTextLayoutDestroy(layout);
  printf("layout:\n%s", laidOut);
  // CHECK-NEXT: layout:
  // CHECK-NEXT: {{^}}  func.func @f(%a: i32 {x.s = "p, q"},
  // CHECK-NEXT: {{^}}               %b: i32) {
  // CHECK-NEXT: {{^}}  func.func @g(%a: i32)
  // CHECK-NEXT: {{^}}  return, x
  thunkyNpyArrayDestroy(&again);
  thunkyPlanDestroy(plan);
  thunkyTimelineDestroy(timeline);
  thunkyRegistryDestroy(registry);
  thunkyArenaDestroy(arena);
  return 0;
}
