// A thunky.in_sequential that is not a list of groups is refused, naming
// the form it must have.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
// CHECK: :[[@LINE+2]]:3: error: 'thunky.memzero' op thunky.in_sequential must be an array of {group = <integer>, thunk = <dictionary>}
func.func @main(%a: !thunky.buffer<16>) {
  thunky.memzero %a {thunky.in_sequential = [{group = "zero"}]} : <16>
  return
}
