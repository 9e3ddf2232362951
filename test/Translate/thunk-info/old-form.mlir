// Modules written before #thunky.info keep exporting: thunk_info inside
// thunky.thunk's dictionary, and inside call_thunk_proto's bytes. Imported
// back (the opaque memzero as thunky.memzero), both are #thunky.info, and that module exports to the same bytes.
// A #thunky.info written by hand (here with a concurrent region) exports
// as its thunk_info.
// RUN: thunky-translate --export-thunky %s -o %t.pb
// RUN: %decode_exe < %t.pb | FileCheck %s --check-prefix=PROTO
// RUN: thunky-translate --import-thunky %t.pb -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: thunky-translate --export-thunky %t.mlir -o %t.back.pb
// RUN: cmp %t.pb %t.back.pb
// PROTO: thunk_info {
// PROTO-NEXT: profile_annotation: "zeros.1"
// PROTO-NEXT: thunk_id: 7
// PROTO: thunk_info {
// PROTO-NEXT: profile_annotation: "opaque"
// PROTO-NEXT: thunk_id: 8
// PROTO: thunk_info {
// PROTO-NEXT: profile_annotation: "fill"
// PROTO-NEXT: thunk_id: 9
// PROTO-NEXT: concurrent_region_id: 2
// CHECK: thunky.memzero %{{.*}} {thunky.info = #thunky.info<id = 7, "zeros.1">} : <16>
// CHECK: thunky.memzero %{{.*}} {thunky.info = #thunky.info<id = 8, "opaque">} : <8>
// CHECK: thunky.memset32 %{{.*}}, 1 {thunky.info = #thunky.info<id = 9, "fill", concurrent_region = 2>} : <16>
module {
  func.func @main(%a: !thunky.buffer<16> {thunky.role = "output {}"}) {
    thunky.memzero %a {thunky.thunk = {thunk_info = {profile_annotation = "zeros.1", thunk_id = 7 : i64}}} : <16>
    // ThunkProto{thunk_info{profile_annotation: "opaque" thunk_id: 8} memzero_thunk{dest_buffer{slice{size: 8}}}}
    thunky.call_thunk_proto %a : !thunky.buffer<16> name = "thunk" <thunk_proto = "\0A\0A\0A\06opaque\18\08\9A\01\06\0A\04\0A\02\10\08", asm_text = "", binary = "">
    thunky.memset32 %a, 1 {thunky.info = #thunky.info<id = 9, "fill", concurrent_region = 2>} : <16>
    return
  }
}
