// A thunky.constant whose thunky.allocation names a field BufferAllocationProto lacks is refused at the constant.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
func.func @main(%a: !thunky.buffer<4>) {
  // CHECK: :[[@LINE+1]]:8: error: {{.*}}colour: no such field
  %c = thunky.constant <value = "abcd"> {thunky.allocation = {colour = 1 : i64}} : <4>
  thunky.copy %c, %a : <4>, <4>
  return
}
