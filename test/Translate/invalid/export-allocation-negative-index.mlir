// A thunky.constant whose thunky.allocation index is -1 is refused, naming the index.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
// CHECK: error: allocation index -1 is out of range; the 2 arguments and constants of @main must number 0..1 once each
func.func @main(%a: !thunky.buffer<4>) {
  %c = thunky.constant <value = "abcd"> {thunky.allocation = {index = -1 : i64}} : <4>
  thunky.copy %c, %a : <4>, <4>
  return
}
