// An op of a dialect export does not load (thunky-opt parses it, as it loads
// every dialect) is refused saying why, not only that the dialect is not
// found; thunky-run on the module says the same, in one line.
// RUN: thunky-opt %s -o /dev/null
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
// RUN: %thunky_src/test/Tools/Inputs/error-line.sh 2 thunky-run --kernels=fingerprint %s | FileCheck %s --check-prefix=TOOL
// CHECK: export-other-dialect.mlir:[[@LINE+5]]:8: error: 'arith.constant' is an op of dialect 'arith', which export cannot write: an executable holds thunks, so only thunky ops (in func.func @main) export; lower it to thunky ops or remove it
// CHECK-NOT: Available dialects
// TOOL: thunky-run: {{.*}}export-other-dialect.mlir:[[@LINE+3]]:8: 'arith.constant' is an op of dialect 'arith', which export cannot write
func.func @main(%a: !thunky.buffer<64> {thunky.role = "output {}"}) {
  thunky.memzero %a : <64>
  %c = arith.constant 1 : i32
  return
}
