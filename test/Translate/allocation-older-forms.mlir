// The older spellings of an allocation still parse and export, to the same
// bytes as #thunky.allocation: a dictionary thunky.allocation with the role
// and shape beside it, a hand-written thunky.role and thunky.shape, and an
// argument with none of them (an entry parameter).
// RUN: thunky-translate --export-thunky %s -o %t.old.pb
// RUN: sed -n 's|^// NEW: ||p' %s | thunky-translate --export-thunky -o %t.new.pb
// RUN: cmp %t.old.pb %t.new.pb
// RUN: %decode_exe < %t.old.pb | FileCheck %s

// CHECK: values {
// CHECK-NEXT: size: 16
// CHECK-NEXT: maybe_live_out: true
// CHECK-NEXT: assigned {
// CHECK-NEXT: logical_buffer_id: 13
// CHECK-NEXT: size: 8
// CHECK-NEXT: element_type: U32
// CHECK: values {
// CHECK-NEXT: index: 1
// CHECK-NEXT: size: 4
// CHECK-NEXT: is_entry_computation_parameter: true
// CHECK: values {
// CHECK-NEXT: index: 2
// CHECK-NEXT: size: 8
// CHECK-NEXT: is_entry_computation_parameter: true
// CHECK-NEXT: parameter_number: 1
// CHECK-NEXT: maybe_live_out: true
func.func @main(%out: !thunky.buffer<16> {thunky.allocation = {assigned = [{element_type = "U32", logical_buffer_id = 13 : i64, size = 8 : i64}], maybe_live_out = true}, thunky.role = "output {0}", thunky.shape = tensor<4xui32>},
                %hand: !thunky.buffer<4> {thunky.role = "parameter 0", thunky.shape = tensor<f32>},
                %bare: !thunky.buffer<8>) {
  return
}
// NEW: func.func @main(%out: !thunky.buffer<16> {thunky.allocation = #thunky.allocation<index = 0, output {0}, tensor<4xui32>, live_out, assigned = [13 at 0 + 8 : u32]>},
// NEW:                 %hand: !thunky.buffer<4> {thunky.allocation = #thunky.allocation<parameter 0, tensor<f32>>},
// NEW:                 %bare: !thunky.buffer<8>) {
// NEW:   return
// NEW: }
