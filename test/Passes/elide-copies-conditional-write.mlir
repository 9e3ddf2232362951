// A copy into scratch whose bytes are overwritten only inside a cond (one
// branch is empty) or a while body (which may run no time) is kept: on the
// path that does not write them, the kernel reads what the copy left
// (issue 44's counterexample, which every check passed).
// RUN: thunky-opt --thunky-elide-copies %s | FileCheck %s
// RUN: thunky-opt --thunky-elide-copies %s -o %t.mlir
// RUN: thunky-run --backend symbolic --ranks 2 %s --compare %t.mlir | FileCheck %s --check-prefix=SAME
// With kernels that compute for real (test_kernels.c: out = in + 1, in + 2;
// the loop's condition says stop at once), the rewrite computes what the
// original does, and the rewrite the pass made before, both copies gone,
// does not: its kernels read scratch nothing wrote.
// RUN: thunky-run --library %test_kernels --seed 3 %s --compare %t.mlir | FileCheck %s --check-prefix=SAME
// RUN: sed -e '/thunky.copy %%in, %%tmp/d' %s > %t.both-gone.mlir
// RUN: not thunky-run --library %test_kernels --seed 3 %s --compare %t.both-gone.mlir | FileCheck %s --check-prefix=GONE
// The symbolic check, where scratch starts undefined, tells them apart too.
// RUN: not thunky-run --backend symbolic --ranks 2 %s --compare %t.both-gone.mlir | FileCheck %s --check-prefix=GONE
// SAME: same: 2 output(s) on {{[12]}} rank(s)
// GONE: different: output 0 (f32[4]) of rank 0 differs first at byte 0
module {
  func.func @main(%in: !thunky.buffer<16> {thunky.role = "parameter 0", thunky.shape = tensor<4xf32>},
                  %out: !thunky.buffer<16> {thunky.role = "output {0}", thunky.shape = tensor<4xf32>},
                  %out2: !thunky.buffer<16> {thunky.role = "output {1}", thunky.shape = tensor<4xf32>},
                  %tmp: !thunky.buffer<16> {thunky.role = "scratch"},
                  %tmp2: !thunky.buffer<16> {thunky.role = "scratch"},
                  %q: !thunky.buffer<1> {thunky.role = "scratch"}) {
    // The empty branch: index 1.
    %p = thunky.constant <value = "\01\00\00\00"> : <4>
    // CHECK: thunky.copy %{{.*}}, %[[TMP:[^ ]*]] :
    // CHECK: thunky.cond
    // CHECK: thunky.launch "add_one_fusion"(%[[TMP]],
    thunky.copy %in, %tmp : !thunky.buffer<16>, !thunky.buffer<16>
    thunky.cond %p : !thunky.buffer<4> {
      thunky.memset32 %tmp, 0 : !thunky.buffer<16>
    }, {
    }
    thunky.launch "add_one_fusion"(%tmp, %out : !thunky.buffer<16>, !thunky.buffer<16>) <grid = [1, 1, 1], block = [4, 1, 1], written = [false, true]>
    // CHECK: thunky.copy %{{.*}}, %[[TMP2:[^ ]*]] :
    // CHECK: thunky.while
    // CHECK: thunky.launch "add_two_fusion"(%[[TMP2]],
    thunky.copy %in, %tmp2 : !thunky.buffer<16>, !thunky.buffer<16>
    thunky.while %q : !thunky.buffer<1> cond {
      thunky.launch "stop_now"(%q : !thunky.buffer<1>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]>
    } body {
      thunky.memzero %tmp2 : !thunky.buffer<16>
    }
    thunky.launch "add_two_fusion"(%tmp2, %out2 : !thunky.buffer<16>, !thunky.buffer<16>) <grid = [1, 1, 1], block = [4, 1, 1], written = [false, true]>
    return
  }
}
