// RUN: thunky-opt --thunky-strip-metadata %s | FileCheck %s

// Every thunky.* attribute goes, on the module, the arguments and the ops;
// other attributes stay.
// CHECK: module attributes {other.keep = 1 : i64} {
// CHECK-NEXT: func.func @main(%{{.*}}: !thunky.buffer<4>, %{{.*}}: !thunky.buffer<4> {other.attr})
// CHECK-NEXT: thunky.memzero %{{.*}} {other = 2 : i64} : <4>
// CHECK-NEXT: thunky.constant <value = "abcd"> : <4>
module attributes {thunky.executable = {module_name = "m"}, other.keep = 1} {
  func.func @main(%a: !thunky.buffer<4> {thunky.allocation = {index = 0}, thunky.role = "scratch"},
                  %b: !thunky.buffer<4> {thunky.role = "scratch", other.attr}) {
    thunky.memzero %a {thunky.thunk = {thunk_info = {thunk_id = 3}}, other = 2} : <4>
    %c = thunky.constant <value = "abcd"> {thunky.allocation = {index = 2}, thunky.content_omitted} : <4>
    thunky.copy %c, %b : <4>, <4>
    return
  }
}
