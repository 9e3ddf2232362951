// A resource the module names but carries no bytes for is refused, naming
// the field; the same resource with its bytes exports (resources-*.test).
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
// CHECK: :[[@LINE+1]]:1: error: {{.*}}binary: names a resource that holds no bytes
module attributes {thunky.executable = {binary = dense_resource<module_binary> : tensor<300xi8>}} {
  func.func @main(%a: !thunky.buffer<16>) {
    return
  }
}
