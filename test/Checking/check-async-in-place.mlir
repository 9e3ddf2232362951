// A region overwriting scratch that a kernel beside it updates in place
// (issue 44's review): with the kernels computed, the schedules give other
// outputs, and the static check reports the race. On fingerprints and
// symbols, where no HLO says the kernel updates in place, its written
// argument in scratch is taken as not read (docs/checking.md, what it
// assumes), so the two schedules agree there; the region run late, just
// after the kernel, shows the race.
// RUN: not thunky-run --library %test_kernels --seed 1 %s --check-async | FileCheck %s --check-prefix=REAL
// RUN: not thunky-opt --thunky-check-races %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not thunky-run --kernels=fingerprint --seed 1 %s --check-async | FileCheck %s --check-prefix=LATE
// RUN: not thunky-run --backend symbolic %s --check-async | FileCheck %s --check-prefix=LATE
// REAL: different: output 0 (f32[4]) of rank 0 differs first at byte 0 (element 0): {{.*}} in the run with async regions at their start, {{.*}} in the run with async regions at their done
// RACE: error: 'thunky.async_start' op races with thunk 3, 'thunky.launch'
// LATE: same: 1 output(s) on 1 rank(s)
// LATE-NEXT: different: output 0 (f32[4]) of rank 0 differs first at byte 0 (element 0): {{.*}} in the run with async regions at their start, {{.*}} in the run with the region of thunk 1 run just after thunk 3
module {
  func.func @main(%in: !thunky.buffer<16> {thunky.role = "parameter 0", thunky.shape = tensor<4xf32>},
                  %out: !thunky.buffer<16> {thunky.role = "output {}", thunky.shape = tensor<4xf32>},
                  %tmp: !thunky.buffer<16> {thunky.role = "scratch"}) {
    thunky.copy %in, %tmp : !thunky.buffer<16>, !thunky.buffer<16>
    %t = thunky.async_start stream = 1 {
      thunky.memset32 %tmp, 1088421888 : <16>
    } : !thunky.token
    thunky.launch "increment_f32"(%tmp : !thunky.buffer<16>) <grid = [1, 1, 1], block = [4, 1, 1], written = [true]>
    thunky.copy %tmp, %out : !thunky.buffer<16>, !thunky.buffer<16>
    thunky.async_done %t : !thunky.token
    return
  }
}
