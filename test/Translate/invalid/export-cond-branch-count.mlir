// A thunky.cond with 2 regions whose thunky.thunk describes 3 branches is refused at the op.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
func.func @main(%p: !thunky.buffer<4>, %x: !thunky.buffer<64>) {
  // CHECK: :[[@LINE+1]]:3: error: 'thunky.cond' op thunky.thunk describes a different number of branches
  thunky.cond %p : <4> {
    thunky.memzero %x : <64>
  }, {
  } {thunky.thunk = {conditional_thunk = {branch_thunks = [{}, {}, {}]}}}
  return
}
