// Allocation indices with gaps are renumbered 0..n-1 in their order: a
// module whose middle argument (allocation 1, unused) was deleted keeps
// allocations 0 and 2, which export writes as 0 and 1, slices included.
// Any indices will do as long as they differ: 5 among two arguments is fine.
// RUN: thunky-translate --export-thunky %s -o %t.pb
// RUN: %decode_exe < %t.pb | FileCheck %s
// RUN: thunky-translate --import-thunky %t.pb | FileCheck %s --check-prefix=AGAIN
// RUN: sed 's/index = 2 : i64/index = 5 : i64/' %s | thunky-translate --export-thunky -o %t.5.pb
// RUN: cmp %t.pb %t.5.pb

// CHECK-LABEL: buffer_allocations {
// CHECK-NEXT: values {
// CHECK-NEXT: size: 16
// CHECK-NEXT: is_entry_computation_parameter: true
// CHECK-NEXT: }
// CHECK-NEXT: values {
// CHECK-NEXT: index: 1
// CHECK-NEXT: size: 32
// CHECK-NEXT: maybe_live_out: true
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK: memzero_thunk {
// CHECK-NEXT: dest_buffer {
// CHECK-NEXT: slice {
// CHECK-NEXT: size: 16
// CHECK: memzero_thunk {
// CHECK-NEXT: dest_buffer {
// CHECK-NEXT: slice {
// CHECK-NEXT: offset: 8
// CHECK-NEXT: size: 8
// CHECK-NEXT: buffer_allocation_index: 1

// AGAIN: func.func @main(%arg0: !thunky.buffer<16> {{{[^%]*}}}, %arg1: !thunky.buffer<32> {thunky.allocation = #thunky.allocation<index = 1, scratch, live_out>
func.func @main(%a: !thunky.buffer<16> {thunky.allocation = {is_entry_computation_parameter = true}},
                %c: !thunky.buffer<32> {thunky.allocation = {index = 2 : i64, maybe_live_out = true}}) {
  thunky.memzero %a : <16>
  %s = thunky.slice_buffer %c offset = 8 : <32> -> <8>
  thunky.memzero %s : <8>
  return
}
