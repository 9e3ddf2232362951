// The example pass turns memset32 of 0 into memzero and leaves any other
// value alone; the result exports and computes the same.
// RUN: %thunky_opt --example-memset-to-memzero %s | FileCheck %s
// CHECK: thunky.memzero %arg0 : <64>
// CHECK-NEXT: thunky.memset32 %arg1, 7 : <64>
// RUN: %mlir_opt -p 'builtin.module(example-memset-to-memzero)' %s | FileCheck %s
// Run twice, it changes nothing more.
// RUN: %thunky_opt --example-memset-to-memzero --example-memset-to-memzero %s | FileCheck %s
// Proved: the rewritten module computes the same outputs.
// RUN: %thunky_opt --example-memset-to-memzero %s -o %t.mlir
// RUN: %thunky_run --kernels=fingerprint %s --compare %t.mlir | FileCheck %s --check-prefix=SAME
// SAME: same: 2 output(s) on 1 rank(s)
func.func @main(%a: !thunky.buffer<64> {thunky.role = "output {0}"},
                %b: !thunky.buffer<64> {thunky.role = "output {1}"}) {
  thunky.memset32 %a, 0 : <64>
  thunky.memset32 %b, 7 : <64>
  return
}
