// --check-async runs each async region late too, just before each op
// beside it: a value set and set back while a region reads it leaves the
// same bytes at the start and at the done, and only a late run sees it
// (issue 44). The kernels compute for real (test_kernels.c), and on
// fingerprints and symbols alike.
// RUN: not thunky-run --library %test_kernels --seed 1 %s --check-async | FileCheck %s --check-prefix=REAL
// RUN: not thunky-run --kernels=fingerprint --seed 1 %s --check-async | FileCheck %s
// RUN: not thunky-run --backend symbolic %s --check-async | FileCheck %s
// RUN: not thunky-opt --thunky-check-races %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=RACE
// REAL: different: output 0 (f32[4]) of rank 0 differs first at byte {{[0-9]}} (element 0): 0x{{..}} in the run with async regions at their start, 0x{{..}} in the run with the region of thunk 1 run just after thunk 3
// CHECK: different: output 0 (f32[4]) of rank 0 differs first at byte 0 (element 0): {{.*}} in the run with async regions at their start, {{.*}} in the run with the region of thunk 1 run just after thunk 3
// RACE: error: 'thunky.async_start' op races with thunk 3, 'thunky.memset32'
// Set to what it holds, and set back, every late run is the same.
// RUN: sed -e 's/%%flag, 1065353216/%%flag, 0/' %s > %t.mlir
// RUN: thunky-run --kernels=fingerprint --seed 1 %t.mlir --check-async | FileCheck %s --check-prefix=SAME
// RUN: thunky-run --backend symbolic %t.mlir --check-async | FileCheck %s --check-prefix=SAME
// SAME: same: 1 output(s) on 1 rank(s)
// SAME-NEXT: (and each region run late, just after each op beside it that touches its bytes: 2 schedules, the same)
module {
  func.func @main(%in: !thunky.buffer<16> {thunky.role = "parameter 0", thunky.shape = tensor<4xf32>},
                  %out: !thunky.buffer<16> {thunky.role = "output {}", thunky.shape = tensor<4xf32>},
                  %flag: !thunky.buffer<16> {thunky.role = "scratch"}) {
    thunky.memset32 %flag, 0 : <16>
    %t = thunky.async_start stream = 1 {
      thunky.launch "add_one_fusion"(%flag, %out : !thunky.buffer<16>, !thunky.buffer<16>) <grid = [1, 1, 1], block = [4, 1, 1], written = [false, true]>
    } : !thunky.token
    thunky.memset32 %flag, 1065353216 : <16>
    thunky.memset32 %flag, 0 : <16>
    thunky.async_done %t : !thunky.token
    return
  }
}
