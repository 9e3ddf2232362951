// A thunky.wrapper string that does not hold a HumanReadableAotExecutable is refused, naming the attribute.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
// CHECK: :[[@LINE+1]]:1: error: {{.*}}thunky.wrapper{{.*}}does not hold a serialized message of this type
module attributes {thunky.executable = {}, thunky.wrapper = "\0A\05ab"} {
  func.func @main(%a: !thunky.buffer<16>) {
    return
  }
}
