// Passes from the plugin run in stock mlir-opt through -p, and are listed in
// its --help once the plugin is loaded.
// RUN: %mlir_opt_plugins -p 'builtin.module(thunky-flatten-sequential)' %s | FileCheck %s
// RUN: %mlir_opt_plugins -p 'builtin.module(func.func(thunky-flatten-sequential))' %s | FileCheck %s
// RUN: %mlir_opt --load-pass-plugin=%thunky_plugin --help | FileCheck %s --check-prefix=HELP
// HELP: --thunky-flatten-sequential {{.*}}Inline thunky.sequential bodies
// Options of plugin passes work there too.
// RUN: %mlir_opt_plugins -p 'builtin.module(thunky-stats{json=true})' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// STATS: {"thunk_ops": {"memzero": 1, "memset32": 1, "sequential": 1}, "other_ops": {}, "thunks": 3

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
