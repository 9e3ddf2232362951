// A thunky.thunk naming a field the schema lacks is refused at the op, with the field's full path.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
func.func @main(%a: !thunky.buffer<16>) {
  // CHECK: :[[@LINE+1]]:3: error: {{.*}}memzero_thunk.dest_buffer.shape.dimensionz: no such field
  thunky.memzero %a {thunky.thunk = {memzero_thunk = {dest_buffer = {shape = {dimensionz = array<i64: 4>}}}}} : <16>
  return
}
