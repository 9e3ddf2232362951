// A pass plugin's passes are flags of thunky-opt, with their options, as
// docs/writing-a-pass.md shows; a remark from a C pass reaches
// --verify-diagnostics.
// RUN: thunky-opt --load-pass-plugin=%example_pass --example-memset-to-memzero %s | FileCheck %s
// RUN: thunky-opt --load-pass-plugin %example_pass --example-memset-to-memzero=report=true \
// RUN:   --verify-diagnostics %s -o /dev/null
// The plugin's flag is in --help once the plugin is loaded.
// RUN: thunky-opt --load-pass-plugin=%example_pass --help | FileCheck %s --check-prefix=HELP
// A plugin that cannot be loaded stops thunky-opt, naming it.
// RUN: not thunky-opt --load-pass-plugin=%t.missing.so %s 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not thunky-opt --load-dialect-plugin=%s %s 2>&1 | FileCheck %s --check-prefix=NOTLIB

// CHECK-LABEL: func.func @main
// CHECK-NEXT: thunky.memzero %{{.*}} : <64>
// CHECK-NEXT: thunky.memset32 %{{.*}}, 7 : <64>
// HELP: --example-memset-to-memzero {{ *}}- Turn memset32 of 0 into memzero
// HELP: --report
// MISSING: thunky-opt: --load-pass-plugin={{.*}}.missing.so: cannot load it: {{.*}}No such file
// NOTLIB: thunky-opt: --load-dialect-plugin={{.*}}thunky-opt-plugin-flags.mlir: cannot load it:
func.func @main(%a: !thunky.buffer<64>) {
  // expected-remark @below {{'thunky.memset32' op rewritten as thunky.memzero}}
  thunky.memset32 %a, 0 : <64>
  thunky.memset32 %a, 7 : <64>
  return
}
