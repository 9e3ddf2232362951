// RUN: thunky-opt --thunky-strip-metadata %s | FileCheck %s

// Every thunky.* attribute import keeps for export goes, on the module, the
// arguments and the ops; other attributes stay. What running and reading
// need stays: the arguments' roles and shapes, the executable's code, the
// rest of a launch's, custom call's, matmul's or loop's thunk less its
// thunk_info, and a launch's args' shapes. So does each op's #thunky.info,
// the names reports give thunks.
// CHECK: module attributes {other.keep = 1 : i64, thunky.executable = {asm_text = "ptx", binary = "\7FELF"}} {
// CHECK-NEXT: func.func @main(%{{.*}}: !thunky.buffer<4> {thunky.role = "scratch"}, %{{.*}}: !thunky.buffer<4> {other.attr, thunky.role = "output {}", thunky.shape = tensor<f32>})
// CHECK-NEXT: thunky.memzero %{{.*}} {other = 2 : i64, thunky.info = #thunky.info<id = 3, "zero">} : <4>
// CHECK-NEXT: thunky.constant <value = "abcd"> : <4>
// CHECK-NEXT: thunky.copy
// CHECK-NEXT: thunky.while %{{.*}} : <4> cond {
// CHECK: } {thunky.thunk = {while_thunk = {trip_count = 3 : i64}}}
// CHECK-NEXT: thunky.launch "k"(%{{.*}} : !thunky.buffer<4>) <{{.*}}> {thunky.thunk = "\0A\01k"}
// CHECK-NEXT: thunky.launch "l"(%{{.*}} : !thunky.buffer<4>) <{{.*}}> {thunky.arg_shapes = [tensor<f32>], thunky.thunk = {kernel_thunk = {use_pdl = true}}}
module attributes {thunky.executable = {module_name = "m", asm_text = "ptx", binary = "\7FELF"}, other.keep = 1} {
  func.func @main(%a: !thunky.buffer<4> {thunky.allocation = {index = 0}, thunky.role = "scratch"},
                  %b: !thunky.buffer<4> {thunky.role = "output {}", thunky.shape = tensor<f32>, other.attr}) {
    thunky.memzero %a {thunky.info = #thunky.info<id = 3, "zero">, thunky.thunk = {thunk_info = {thunk_id = 3}}, other = 2} : <4>
    %c = thunky.constant <value = "abcd", name = "buffer_for_constant_0"> {thunky.allocation = {index = 2}, thunky.content_omitted} : <4>
    thunky.copy %c, %b : <4>, <4>
    thunky.while %a : <4> cond {
    } body {
    } {thunky.thunk = {thunk_info = {thunk_id = 4}, while_thunk = {trip_count = 3}}}
    thunky.launch "k"(%b : !thunky.buffer<4>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]> {thunky.thunk = "\0A\01k"}
    thunky.launch "l"(%b : !thunky.buffer<4>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]> {thunky.arg_shapes = [tensor<f32>], thunky.thunk = {thunk_info = {thunk_id = 5}, kernel_thunk = {use_pdl = true}}}
    return
  }
}
