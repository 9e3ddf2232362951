// An argument's thunky.allocation with a field of the wrong kind (integer for a bool) is refused with its field path, not a crash.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
// CHECK: :[[@LINE+1]]:1: error: {{.*}}is_entry_computation_parameter: expected true or false
func.func @main(%a: !thunky.buffer<16> {thunky.allocation = {is_entry_computation_parameter = 1 : i64}}) {
  return
}
