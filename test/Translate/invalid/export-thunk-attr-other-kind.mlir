// A thunky.memzero whose thunky.thunk holds a memset32bit_value_thunk is refused at the op.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
func.func @main(%a: !thunky.buffer<16>) {
  // CHECK: :[[@LINE+1]]:3: error: 'thunky.memzero' op thunky.thunk holds a different thunk kind than the op
  thunky.memzero %a {thunky.thunk = {memset32bit_value_thunk = {value = 1 : ui32}}} : <16>
  return
}
