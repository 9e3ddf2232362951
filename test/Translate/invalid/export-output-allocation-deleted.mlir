// An output whose allocation was deleted cannot be written: output_info_map
// names allocation 1, which no argument holds any more (allocation 0 is
// left), and export says so instead of writing a dangling index.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
// CHECK: error: output_info_map entry 0 is in allocation 1, which no argument or constant of @main holds any more
module attributes {thunky.executable = {output_info_map = [{output_info = {allocation_index = 1 : i64}, shape_index = {}}]}} {
  func.func @main(%a: !thunky.buffer<16> {thunky.allocation = {is_entry_computation_parameter = true}}) {
    thunky.memzero %a : <16>
    return
  }
}
