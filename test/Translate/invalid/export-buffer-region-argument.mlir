// A buffer that is a block argument of a nested region (not an argument of @main, a constant or a slice) is refused at its user.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
func.func @main(%a: !thunky.buffer<4>) {
  "thunky.sequential"() ({
  ^bb0(%x: !thunky.buffer<4>):
    // CHECK: :[[@LINE+1]]:5: error: 'thunky.memzero' op uses a buffer that is not an argument of @main
    thunky.memzero %x : <4>
    thunky.yield
  }) : () -> ()
  return
}
