// A thunky.executable string that does not hold a GpuExecutableProto is refused, naming the attribute.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
// CHECK: :[[@LINE+1]]:1: error: {{.*}}thunky.executable{{.*}}does not hold a serialized message of this type
module attributes {thunky.executable = "\FF\FF\FF\FF"} {
  func.func @main(%a: !thunky.buffer<16>) {
    return
  }
}
