// A module written by hand exports to a complete executable, and importing
// that gives back the same program: import(export(m)) prints as m once the
// metadata import adds for export is stripped (strip keeps the roles).
// RUN: thunky-translate --export-thunky %s -o %t.pb
// RUN: thunky-translate --import-thunky %t.pb | thunky-opt --thunky-strip-metadata > %t.after.mlir
// RUN: thunky-opt %s > %t.before.mlir
// RUN: diff %t.before.mlir %t.after.mlir
// And the executable is a fixed point of export(import(x)).
// RUN: thunky-translate --import-thunky %t.pb | thunky-translate --export-thunky -o %t.again.pb
// RUN: cmp %t.pb %t.again.pb
// Each argument is the entry parameter its #thunky.allocation declares.
// RUN: %decode_exe < %t.pb | FileCheck %s
// CHECK: buffer_assignment {
// CHECK: values {
// CHECK-NEXT: size: 4
// CHECK-NEXT: is_entry_computation_parameter: true
// CHECK: parameter_number: 2
// CHECK: is_constant: true
// CHECK: constants {
// CHECK-NEXT: symbol_name: "thunky_const_0"
// CHECK-NEXT: content {
// CHECK-NEXT: data: "abcd"
module {
  func.func @main(%arg0: !thunky.buffer<4> {thunky.allocation = #thunky.allocation<parameter 0>}, %arg1: !thunky.buffer<128> {thunky.allocation = #thunky.allocation<parameter 1>}, %arg2: !thunky.buffer<64> {thunky.allocation = #thunky.allocation<parameter 2>}) {
    %c0 = thunky.constant <{value = "abcd"}> : !thunky.buffer<4>
    thunky.copy %c0, %arg0 : !thunky.buffer<4>, !thunky.buffer<4>
    %slice = thunky.slice_buffer %arg1 offset = 32 : !thunky.buffer<128> -> !thunky.buffer<64>
    thunky.memzero %slice : !thunky.buffer<64>
    thunky.memset32 %arg2, 42 : !thunky.buffer<64>
    thunky.cond %arg0 : !thunky.buffer<4> {
      thunky.memzero %arg2 : !thunky.buffer<64>
    }, {
      thunky.memset32 %arg2, 1 : !thunky.buffer<64>
    }
    thunky.while %arg0 : !thunky.buffer<4> cond {
      thunky.memzero %arg0 : !thunky.buffer<4>
    } body {
      thunky.memzero %arg2 : !thunky.buffer<64>
    }
    %token = thunky.async_start stream = 1 {
      thunky.collective_group {
        thunky.all_reduce %arg2, %arg2 <{element_type = f32, group_mode = "cross_replica", reduction_kind = "sum", replica_groups = [array<i64: 0, 1>]}> : !thunky.buffer<64>, !thunky.buffer<64>
        thunky.all_gather %arg2, %arg1 <{element_type = f32, group_mode = "cross_replica", replica_groups = [array<i64: 0, 1>]}> : !thunky.buffer<64>, !thunky.buffer<128>
        thunky.collective_permute %arg2, %arg2 <{element_type = f32, group_mode = "cross_replica", replica_groups = [array<i64: 0, 1>], source_target_pairs = [array<i64: 0, 1>, array<i64: 1, 0>]}> : !thunky.buffer<64>, !thunky.buffer<64>
      }
    } : !thunky.token
    thunky.async_done %token : !thunky.token
    return
  }
}
