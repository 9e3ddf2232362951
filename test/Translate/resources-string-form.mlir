// A module written before import made resources, its cubin a string of 304
// bytes, exports as ever; imported back the cubin is a resource, and that
// module exports to the same bytes.
// RUN: thunky-translate --export-thunky %s -o %t.pb
// RUN: thunky-translate --import-thunky %t.pb -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: thunky-translate --export-thunky %t.mlir -o %t.back.pb
// RUN: cmp %t.pb %t.back.pb
// CHECK: thunky.kernel_binary @k cubin = dense_resource<k> : tensor<304xi8>
// CHECK: k: "0x010000007F454C46
module {
  thunky.kernel_binary @k cubin = "\7FELFabababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababab"
  func.func @main(%a: !thunky.buffer<16> {thunky.role = "parameter 0"}, %b: !thunky.buffer<16> {thunky.role = "output {}"}) {
    thunky.launch "k"(%a, %b : !thunky.buffer<16>, !thunky.buffer<16>) <grid = [1, 1, 1], block = [32, 1, 1], written = [false, true], binary = @k>
    return
  }
}
