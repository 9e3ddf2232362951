// thunky.arg_shapes edited by hand exports what it says: each type's element
// type and dimensions, XLA's default layout unless the encoding gives
// minor_to_major, a false is_dynamic_dimension per dimension unless it gives
// them, and a slice typed as its shape unless it says untyped_slice.
// RUN: thunky-translate --export-thunky %s -o %t.pb
// RUN: %decode_exe < %t.pb | FileCheck %s

// CHECK: kernel_thunk {
// CHECK-NEXT: args {
// CHECK-NEXT: size: 24
// CHECK-NEXT: element_type: F16
// CHECK-NEXT: }
// CHECK-NEXT: args {
// CHECK-NEXT: size: 8
// CHECK-NEXT: buffer_allocation_index: 1
// CHECK-NEXT: }
// CHECK: args_shape {
// CHECK-NEXT: element_type: F16
// CHECK-NEXT: dimensions: 3
// CHECK-NEXT: dimensions: 4
// CHECK-NEXT: layout {
// CHECK-NEXT: minor_to_major: 0
// CHECK-NEXT: minor_to_major: 1
// CHECK-NEXT: tail_padding_alignment_in_elements: 1
// CHECK-NEXT: }
// CHECK-NEXT: is_dynamic_dimension: false
// CHECK-NEXT: is_dynamic_dimension: false
// CHECK-NEXT: }
// CHECK-NEXT: args_shape {
// CHECK-NEXT: element_type: U8
// CHECK-NEXT: dimensions: 8
// CHECK-NEXT: layout {
// CHECK-NEXT: minor_to_major: 0
// CHECK-NEXT: tail_padding_alignment_in_elements: 1
// CHECK-NEXT: }
// CHECK-NEXT: is_dynamic_dimension: true
// CHECK-NEXT: }
func.func @main(%a: !thunky.buffer<24> {thunky.role = "parameter 0"}, %b: !thunky.buffer<8> {thunky.role = "output {}"}) {
  thunky.launch "k"(%a, %b : !thunky.buffer<24>, !thunky.buffer<8>) <grid = [1, 1, 1], block = [32, 1, 1], written = [false, true]> {thunky.arg_shapes = [tensor<3x4xf16, {minor_to_major = array<i64: 0, 1>}>, tensor<8xui8, {is_dynamic_dimension = array<i1: true>, untyped_slice}>]}
  return
}
