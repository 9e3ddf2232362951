// A module without a func.func @main is refused, saying what is missing.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
// CHECK: :[[@LINE+1]]:1: error: 'builtin.module' op export-thunky needs a func.func @main
module {
  func.func @entry(%a: !thunky.buffer<4>) {
    thunky.memzero %a : <4>
    return
  }
}
