// An argument without thunky.allocation is what its thunky.role declares;
// with thunky.shape on every parameter and output, the program shape says
// their types.
// RUN: thunky-translate --export-thunky %s | %decode_exe | FileCheck %s
// CHECK: program_shape {
// CHECK-NEXT: parameters {
// CHECK-NEXT: element_type: F32
// CHECK-NEXT: dimensions: 2
// CHECK: result {
// CHECK-NEXT: element_type: TUPLE
// CHECK-NEXT: tuple_shapes {
// CHECK-NEXT: element_type: S32
// CHECK: buffer_allocations {
// CHECK-NEXT: values {
// CHECK-NEXT: size: 8
// CHECK-NEXT: is_entry_computation_parameter: true
// CHECK-NEXT: }
// CHECK-NEXT: values {
// CHECK-NEXT: index: 1
// CHECK-NEXT: size: 4
// CHECK-NEXT: maybe_live_out: true
// CHECK-NEXT: }
// CHECK-NEXT: values {
// CHECK-NEXT: index: 2
// CHECK-NEXT: size: 16
// CHECK-NEXT: is_thread_local: true
// CHECK: output_info_map {
// CHECK-NEXT: shape_index {
// CHECK-NEXT: indexes: 0
// CHECK-NEXT: }
// CHECK-NEXT: output_info {
// CHECK-NEXT: allocation_index: 1
// An argument with no role is an entry parameter, in order after those
// numbered.
// RUN: sed 's/{thunky.role = "thread-local scratch"}//' %s | thunky-translate --export-thunky | %decode_exe | FileCheck %s --check-prefix=ROLELESS
// ROLELESS: index: 2
// ROLELESS-NEXT: size: 16
// ROLELESS-NEXT: is_entry_computation_parameter: true
// ROLELESS-NEXT: parameter_number: 1
// ROLELESS-NEXT: maybe_live_out: true
// A role that is none, or a parameter twice, is refused at the argument.
// RUN: sed 's/"thread-local scratch"/"weights"/' %s | not thunky-translate --export-thunky 2>&1 | FileCheck %s --check-prefix=BADROLE
// BADROLE: error: argument 2: thunky.role must read "parameter N"
// RUN: sed 's/"thread-local scratch"/"parameter 0"/' %s | not thunky-translate --export-thunky 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: argument 2: parameter 0 is declared twice
module {
  func.func @main(%x: !thunky.buffer<8> {thunky.role = "parameter 0", thunky.shape = tensor<2xf32>},
                  %y: !thunky.buffer<4> {thunky.role = "output 0", thunky.shape = tensor<si32>},
                  %t: !thunky.buffer<16> {thunky.role = "thread-local scratch"}) {
    thunky.memzero %y : <4>
    return
  }
}
