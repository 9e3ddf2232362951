// Passes from the plugin run in stock mlir-opt through -p, and are listed in
// its --help once the plugin is loaded.
// RUN: %mlir_opt_plugins -p 'builtin.module(thunky-flatten-sequential)' %s | FileCheck %s
// RUN: %mlir_opt_plugins -p 'builtin.module(func.func(thunky-flatten-sequential))' %s | FileCheck %s
// RUN: mlir-opt --load-pass-plugin=%thunky_plugin --help | FileCheck %s --check-prefix=HELP
// HELP: --thunky-flatten-sequential {{.*}}Inline thunky.sequential bodies

// CHECK-LABEL: func.func @main
// CHECK-NEXT: thunky.memzero
// CHECK-NEXT: thunky.memset32
// CHECK-NEXT: return
func.func @main(%a: !thunky.buffer<4>) {
  thunky.sequential {
    thunky.memzero %a : <4>
    thunky.memset32 %a, 1 : <4>
  }
  return
}
