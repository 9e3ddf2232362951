// Renumbering reaches the executable's constant table: the entry of the
// argument allocation 2 (a parameter XLA also lists as a constant) becomes
// allocation 1; the entry of allocation 1, whose argument was deleted, goes
// with it; an entry with no allocation (-1) stays as it is.
// RUN: thunky-translate --export-thunky %s -o %t.pb
// RUN: %decode_exe < %t.pb | FileCheck %s --implicit-check-not=gone
// CHECK-LABEL: constants {
// CHECK-NEXT: symbol_name: "kept"
// CHECK-NEXT: allocation_index: 1
// CHECK-NEXT: }
// CHECK-NEXT: constants {
// CHECK-NEXT: symbol_name: "none"
// CHECK-NEXT: allocation_index: -1
// CHECK-NEXT: }
module attributes {thunky.executable = {constants = [
    {allocation_index = 1 : i64, symbol_name = "gone"},
    {allocation_index = 2 : i64, symbol_name = "kept"},
    {allocation_index = -1 : i64, symbol_name = "none"}]}} {
  func.func @main(%a: !thunky.buffer<16> {thunky.allocation = {is_entry_computation_parameter = true}},
                  %b: !thunky.buffer<16> {thunky.allocation = {index = 2 : i64, is_entry_computation_parameter = true, parameter_number = 1 : i64}}) {
    thunky.copy %a, %b : <16>, <16>
    return
  }
}
