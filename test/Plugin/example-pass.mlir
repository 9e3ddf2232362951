// The example pass from docs/writing-a-pass.md, built as its own plugin,
// loads into stock mlir-opt next to thunky's plugin and runs.
// RUN: %mlir_opt --load-dialect-plugin=%thunky_plugin --load-pass-plugin=%thunky_plugin \
// RUN:   --load-pass-plugin=%example_pass -p 'builtin.module(example-memset-to-memzero)' %s 2>&1 | FileCheck %s
// CHECK-NOT: Failed to load
// CHECK-LABEL: func.func @main
// CHECK-NEXT: thunky.memzero %{{.*}} : <64>
// CHECK-NEXT: thunky.memset32 %{{.*}}, 7 : <64>
// CHECK-NEXT: thunky.while %{{.*}} : <1> cond {
// CHECK-NEXT: } body {
// CHECK-NEXT:   thunky.memzero %{{.*}} : <64>
func.func @main(%a: !thunky.buffer<64>, %p: !thunky.buffer<1>) {
  thunky.memset32 %a, 0 : <64>
  thunky.memset32 %a, 7 : <64>
  thunky.while %p : <1> cond {
  } body {
    thunky.memset32 %a, 0 : <64>
  }
  return
}
