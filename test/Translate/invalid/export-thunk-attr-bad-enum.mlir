// A thunky.thunk naming an enum value the schema lacks (element_type "F99") is refused with the field path.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
func.func @main(%a: !thunky.buffer<16>) {
  // CHECK: :[[@LINE+1]]:3: error: {{.*}}memzero_thunk.dest_buffer.shape.element_type: not a value of this enum
  thunky.memzero %a {thunky.thunk = {memzero_thunk = {dest_buffer = {shape = {element_type = "F99"}}}}} : <16>
  return
}
