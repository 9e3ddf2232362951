// A launch whose thunky.thunk is the serialized rest of its thunk, as import
// wrote it before thunky.arg_shapes, still exports: its args' element types
// and shapes come from the bytes. Imported again, the shapes read as
// thunky.arg_shapes.
// RUN: thunky-translate --export-thunky %s -o %t.pb
// RUN: %decode_exe < %t.pb | FileCheck %s --check-prefix=PROTO
// RUN: thunky-translate --import-thunky %t.pb | FileCheck %s --check-prefix=MLIR

// PROTO: thunk_id: 7
// PROTO: kernel_thunk {
// PROTO-NEXT: args {
// PROTO-NEXT: size: 16
// PROTO-NEXT: element_type: BF16
// PROTO: args_shape {
// PROTO-NEXT: element_type: BF16
// PROTO-NEXT: dimensions: 2
// PROTO-NEXT: dimensions: 4
// PROTO: args_shape {
// PROTO-NEXT: element_type: S32
// PROTO-NEXT: layout {
// PROTO-NEXT: tail_padding_alignment_in_elements: 1
// PROTO-NEXT: }
// PROTO-NEXT: }

// MLIR: thunky.launch "k"({{.*}} {thunky.arg_shapes = [tensor<2x4xbf16>, tensor<i32>], thunky.info = #thunky.info<id = 7, "k">}
func.func @main(%a: !thunky.buffer<16> {thunky.role = "parameter 0"}, %b: !thunky.buffer<4> {thunky.role = "output {}"}) {
  thunky.launch "k"(%a, %b : !thunky.buffer<16>, !thunky.buffer<4>) <grid = [1, 1, 1], block = [32, 1, 1], written = [false, true]> {thunky.thunk = "\0A\05\0A\01k\18\07B&\0A\02 \10\0A\02 \04B\13\10\10\1A\02\02\04*\07\0A\02\01\00\80\01\012\02\00\00B\07\10\04*\03\80\01\01"}
  return
}
