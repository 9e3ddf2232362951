// A constant whose resource was printed elided (--mlir-elide-resource-strings-if-larger)
// still verifies: its size is the resource's type.
// RUN: thunky-opt %s | FileCheck %s
// CHECK: thunky.constant <value = dense_resource<__elided__> : tensor<512xi8>> : <512>
func.func @elided() -> !thunky.buffer<512> {
  %c = thunky.constant <value = dense_resource<__elided__> : tensor<512xi8>> : <512>
  return %c : !thunky.buffer<512>
}
