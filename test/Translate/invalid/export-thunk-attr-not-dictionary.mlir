// A thunky.thunk that is an integer, not a dictionary, is refused at the op, naming the attribute.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
func.func @main(%a: !thunky.buffer<16>) {
  // CHECK: :[[@LINE+1]]:3: error: {{.*}}thunky.thunk{{.*}}expected a dictionary
  thunky.memzero %a {thunky.thunk = 5 : i64} : <16>
  return
}
