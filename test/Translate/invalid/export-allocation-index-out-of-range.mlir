// A thunky.allocation index of 5 among two arguments is refused, naming the index and the range.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
// CHECK: :[[@LINE+1]]:1: error: allocation index 5 is out of range; the 2 arguments and constants of @main must number 0..1 once each
func.func @main(%a: !thunky.buffer<16> {thunky.allocation = {index = 0 : i64}},
                %b: !thunky.buffer<16> {thunky.allocation = {index = 5 : i64}}) {
  return
}
