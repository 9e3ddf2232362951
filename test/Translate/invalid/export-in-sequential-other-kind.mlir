// A group whose recorded thunk is not a sequential_thunk is refused.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
// CHECK: :[[@LINE+2]]:3: error: 'thunky.memzero' op thunky.in_sequential holds a thunk that is not a sequential_thunk
func.func @main(%a: !thunky.buffer<16>) {
  thunky.memzero %a {thunky.in_sequential = [{group = 0 : i64, thunk = {memzero_thunk = {}}}]} : <16>
  return
}
