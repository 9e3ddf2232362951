// A copy into scratch whose bytes are overwritten only inside a cond (one
// branch is empty) or a while body (which may run no time) is kept: on the
// path that does not write them, the kernel reads what the copy left
// (issue 44's counterexample, which every check passed).
// RUN: thunky-opt --thunky-elide-copies %s | FileCheck %s
// RUN: thunky-opt --thunky-elide-copies %s -o %t.mlir
// RUN: thunky-run --kernels=fingerprint --ranks 2 --seed 3 %s --compare %t.mlir | FileCheck %s --check-prefix=SAME
// SAME: same: 2 output(s) on 2 rank(s)
module {
  func.func @main(%in: !thunky.buffer<16> {thunky.role = "parameter 0", thunky.shape = tensor<4xf32>},
                  %p: !thunky.buffer<4> {thunky.role = "parameter 1", thunky.shape = tensor<i32>},
                  %out: !thunky.buffer<16> {thunky.role = "output {0}", thunky.shape = tensor<4xf32>},
                  %out2: !thunky.buffer<16> {thunky.role = "output {1}", thunky.shape = tensor<4xf32>},
                  %tmp: !thunky.buffer<16> {thunky.role = "scratch"},
                  %tmp2: !thunky.buffer<16> {thunky.role = "scratch"}) {
    // CHECK: thunky.copy %{{.*}}, %[[TMP:[^ ]*]] :
    // CHECK: thunky.cond
    // CHECK: thunky.launch "add_one_in_place_fusion"(%[[TMP]],
    thunky.copy %in, %tmp : !thunky.buffer<16>, !thunky.buffer<16>
    thunky.cond %p : !thunky.buffer<4> {
      thunky.memset32 %tmp, 0 : !thunky.buffer<16>
    }, {
    }
    thunky.launch "add_one_in_place_fusion"(%tmp, %out : !thunky.buffer<16>, !thunky.buffer<16>) <grid = [1, 1, 1], block = [4, 1, 1], written = [false, true]>
    // CHECK: thunky.copy %{{.*}}, %[[TMP2:[^ ]*]] :
    // CHECK: thunky.while
    // CHECK: thunky.launch "add_two_fusion"(%[[TMP2]],
    thunky.copy %in, %tmp2 : !thunky.buffer<16>, !thunky.buffer<16>
    thunky.while %p : !thunky.buffer<4> cond {
      thunky.launch "keep_going"(%p : !thunky.buffer<4>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]>
    } body {
      thunky.memzero %tmp2 : !thunky.buffer<16>
    }
    thunky.launch "add_two_fusion"(%tmp2, %out2 : !thunky.buffer<16>, !thunky.buffer<16>) <grid = [1, 1, 1], block = [4, 1, 1], written = [false, true]>
    return
  }
}
