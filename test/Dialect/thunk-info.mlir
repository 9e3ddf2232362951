// #thunky.info prints as it parses, with only the parts that are set, in
// thunky-opt and in stock mlir-opt with the plugin.
// RUN: thunky-opt %s | FileCheck %s
// RUN: %mlir_opt_plugins %s | FileCheck %s
// CHECK: thunky.memzero %{{.*}} {thunky.info = #thunky.info<id = 5, "loop_broadcast_fusion">} : <16>
// CHECK: thunky.memzero %{{.*}} {thunky.info = #thunky.info<id = 0>} : <16>
// CHECK: thunky.memzero %{{.*}} {thunky.info = #thunky.info<id = -3, "a \22quoted\22 name", concurrent_region = 2>} : <16>
// CHECK: thunky.memzero %{{.*}} {thunky.info = #thunky.info<id = 1, concurrent_region = 4>} : <16>
func.func @main(%a: !thunky.buffer<16>) {
  thunky.memzero %a {thunky.info = #thunky.info<id = 5, "loop_broadcast_fusion">} : <16>
  thunky.memzero %a {thunky.info = #thunky.info<id = 0>} : <16>
  thunky.memzero %a {thunky.info = #thunky.info<id = -3, "a \"quoted\" name", concurrent_region = 2>} : <16>
  thunky.memzero %a {thunky.info = #thunky.info<id = 1, concurrent_region = 4>} : <16>
  return
}
