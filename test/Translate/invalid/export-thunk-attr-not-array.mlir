// A thunky.thunk with a scalar where a repeated field (shape.dimensions) is expected is refused with the field path.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
func.func @main(%a: !thunky.buffer<16>) {
  // CHECK: :[[@LINE+1]]:3: error: {{.*}}memzero_thunk.dest_buffer.shape.dimensions: expected an array
  thunky.memzero %a {thunky.thunk = {memzero_thunk = {dest_buffer = {shape = {dimensions = 4 : i64}}}}} : <16>
  return
}
