// A thunky.thunk with a string where an integer is expected (thunk_info.thunk_id) is refused at the op with the field path.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
func.func @main(%a: !thunky.buffer<16>) {
  // CHECK: :[[@LINE+1]]:3: error: {{.*}}thunk_info.thunk_id: expected an integer
  thunky.memzero %a {thunky.thunk = {thunk_info = {profile_annotation = "z", thunk_id = "seven"}}} : <16>
  return
}
