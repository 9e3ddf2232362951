// An op that is not a thunk (func.call) inside @main is refused at the op.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
func.func private @helper()
func.func @main(%a: !thunky.buffer<16>) {
  // CHECK: :[[@LINE+1]]:3: error: 'func.call' op export writes thunky ops only, and this op has no thunk: lower it to thunky ops or remove it
  func.call @helper() : () -> ()
  return
}
