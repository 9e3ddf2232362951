// A thunky.constant whose thunky.allocation index is -1 is refused, naming the index.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
// CHECK: error: allocation index -1 is negative; the thunky.allocation indices of @main's 2 arguments and constants must be >= 0 and differ (export numbers them 0..1 in their order)
func.func @main(%a: !thunky.buffer<4>) {
  %c = thunky.constant <value = "abcd"> {thunky.allocation = {index = -1 : i64}} : <4>
  thunky.copy %c, %a : <4>, <4>
  return
}
