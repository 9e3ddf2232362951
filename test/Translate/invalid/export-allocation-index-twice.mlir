// Two arguments whose thunky.allocation index is 1 are refused, naming the index and the rule.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
// CHECK: :[[@LINE+1]]:1: error: allocation index 1 is used twice; the thunky.allocation indices of @main's 2 arguments and constants must be >= 0 and differ (export numbers them 0..1 in their order)
func.func @main(%a: !thunky.buffer<16> {thunky.allocation = {index = 1 : i64}},
                %b: !thunky.buffer<16> {thunky.allocation = {index = 1 : i64}}) {
  return
}
