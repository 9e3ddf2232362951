// Without the plugin the same mlir-opt does not know the dialect: the plugin
// tests above really exercise the plugin, not something built in.
// RUN: not mlir-opt %s 2>&1 | FileCheck %s
// CHECK: type created with unregistered dialect
func.func @main(%a: !thunky.buffer<4>) {
  thunky.memzero %a : <4>
  return
}
