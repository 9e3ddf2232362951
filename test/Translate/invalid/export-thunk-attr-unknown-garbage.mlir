// A thunky.thunk whose "_unknown" wire bytes do not parse is refused with the entry's path.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
func.func @main(%a: !thunky.buffer<16>) {
  // CHECK: :[[@LINE+1]]:3: error: {{.*}}thunk_info._unknown: does not hold a serialized message of this type
  thunky.memzero %a {thunky.thunk = {thunk_info = {_unknown = "\FF"}}} : <16>
  return
}
