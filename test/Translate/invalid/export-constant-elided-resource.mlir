// A constant whose resource was printed elided reads, but has no bytes to
// export: refused at the op.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
func.func @main() -> !thunky.buffer<512> {
  // CHECK: :[[@LINE+1]]:8: error: 'thunky.constant' op its value is neither a string nor a byte resource with its data
  %c = thunky.constant <value = dense_resource<__elided__> : tensor<512xi8>> : <512>
  return %c : !thunky.buffer<512>
}
