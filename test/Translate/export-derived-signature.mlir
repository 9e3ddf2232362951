// A module whose thunky.executable holds no program shape and no
// output_info_map gets both from @main's recorded allocations: the
// parameters' and outputs' types (with their layouts), each output's
// entry, and the tuple result's {} in its live-out tuple allocation.
// RUN: thunky-translate --export-thunky %s | %decode_exe | FileCheck %s
// CHECK: program_shape {
// CHECK-NEXT: parameters {
// CHECK-NEXT: element_type: F32
// CHECK-NEXT: dimensions: 2
// CHECK-NEXT: dimensions: 2
// CHECK-NEXT: layout {
// CHECK-NEXT: minor_to_major: 0
// CHECK-NEXT: minor_to_major: 1
// CHECK-NEXT: tail_padding_alignment_in_elements: 1
// CHECK-NEXT: }
// CHECK-NEXT: is_dynamic_dimension: false
// CHECK-NEXT: is_dynamic_dimension: false
// CHECK-NEXT: }
// CHECK-NEXT: result {
// CHECK-NEXT: element_type: TUPLE
// CHECK-NEXT: tuple_shapes {
// CHECK-NEXT: element_type: F32
// CHECK-NEXT: dimensions: 4
// CHECK: tuple_shapes {
// CHECK-NEXT: element_type: S32
// CHECK-NEXT: layout {
// CHECK-NEXT: tail_padding_alignment_in_elements: 1
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: parameter_names: "w"
// CHECK-NEXT: }
// CHECK: output_info_map {
// CHECK-NEXT: shape_index {
// CHECK-NEXT: }
// CHECK-NEXT: output_info {
// CHECK-NEXT: allocation_index: 3
// CHECK: output_info_map {
// CHECK-NEXT: shape_index {
// CHECK-NEXT: indexes: 0
// CHECK-NEXT: }
// CHECK-NEXT: output_info {
// CHECK-NEXT: allocation_index: 1
// CHECK: output_info_map {
// CHECK-NEXT: shape_index {
// CHECK-NEXT: indexes: 1
// CHECK-NEXT: }
// CHECK-NEXT: output_info {
// CHECK-NEXT: allocation_index: 2
// CHECK-NOT: output_info_map
module attributes {thunky.executable = {module_name = "derived", program_shape = {parameter_names = ["w"]}}} {
  func.func @main(%w: !thunky.buffer<16> {thunky.allocation = #thunky.allocation<index = 0, parameter 0, tensor<2x2xf32, {minor_to_major = array<i64: 0, 1>}>>},
                  %a: !thunky.buffer<16> {thunky.allocation = #thunky.allocation<index = 1, output {0}, tensor<4xf32>, live_out>},
                  %b: !thunky.buffer<4> {thunky.allocation = #thunky.allocation<index = 2, output {1}, tensor<i32>, live_out>},
                  %t: !thunky.buffer<16> {thunky.allocation = #thunky.allocation<index = 3, scratch, live_out, tuple>}) {
    thunky.memzero %b : <4>
    return
  }
}
