// call_thunk_proto's thunk_proto may be the ThunkProto as a dictionary (one
// entry per field present, as thunky.thunk reads): export writes the same
// thunk as from upstream's serialized string, its slice rebased from the
// operand onto the allocation.
// RUN: thunky-translate --export-thunky %s -o %t.pb
// RUN: %decode_exe < %t.pb | FileCheck %s
// RUN: sed -e 's/thunk_proto = {[^}]*}}}/thunk_proto = "\\EA\\03\\06\\0A\\04\\08\\01\\10\\04"/' %s > %t.string.mlir
// RUN: grep -c 'thunk_proto = "' %t.string.mlir
// RUN: thunky-translate --export-thunky %t.string.mlir -o %t.string.pb
// RUN: cmp %t.pb %t.string.pb

// CHECK: rng_seed_thunk {
// CHECK-NEXT: dest_buffer {
// CHECK-NEXT: offset: 5
// CHECK-NEXT: size: 4
// CHECK-NEXT: buffer_allocation_index: 1
func.func @main(%a: !thunky.buffer<16>, %b: !thunky.buffer<16>) {
  %s = thunky.slice_buffer %b offset = 4 : <16> -> <8>
  thunky.call_thunk_proto %s : !thunky.buffer<8> name = "thunk" <thunk_proto = {rng_seed_thunk = {dest_buffer = {offset = 1 : i64, size = 4 : i64}}}, asm_text = "", binary = "">
  return
}
