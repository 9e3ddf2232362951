// A thunky.thunk whose "_unknown" entry is not a string of wire bytes is refused with a diagnostic naming the entry (not silently).
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
func.func @main(%a: !thunky.buffer<16>) {
  // CHECK: :[[@LINE+1]]:3: error: {{.*}}thunk_info._unknown: {{.+}}
  thunky.memzero %a {thunky.thunk = {thunk_info = {_unknown = 5 : i64}}} : <16>
  return
}
