// What export makes of thunky.in_sequential groups (the sequentials import
// flattened) after passes moved or deleted ops: a group whose thunks are
// still consecutive in one block becomes its sequential_thunk again, with
// the recorded residual (ops that make no thunk, like slices, may sit
// between); nested groups nest. A group separated by another thunk, or
// spread over two blocks, is dropped: its thunks are written where they are,
// unwrapped. Every thunk is written, in the order of the ops.
// RUN: thunky-translate --export-thunky %s -o %t.pb
// RUN: %decode_exe < %t.pb | FileCheck %s
// RUN: thunky-translate --import-thunky %t.pb -o /dev/null

// The tree of thunks: sequentials and the annotations, with their nesting.
// RUN: %decode_exe < %t.pb | grep -E '^ *(thunks|sequential_thunk|profile_annotation)' | FileCheck %s --check-prefix=TREE --strict-whitespace --match-full-lines

// Group 0, intact, around group 1; a slice between two of its thunks.
// TREE:thunks {
// TREE-NEXT:    profile_annotation: "g0"
// TREE-NEXT:  sequential_thunk {
// TREE-NEXT:    thunks {
// TREE-NEXT:        profile_annotation: "a"
// TREE-NEXT:    thunks {
// TREE-NEXT:        profile_annotation: "g1"
// TREE-NEXT:      sequential_thunk {
// TREE-NEXT:        thunks {
// TREE-NEXT:            profile_annotation: "b"
// TREE-NEXT:        thunks {
// TREE-NEXT:            profile_annotation: "c"
// TREE-NEXT:    thunks {
// TREE-NEXT:        profile_annotation: "d"
// Group 2 (no residual): "e" and "g" are separated by "f", so all three
// stand alone, at the top.
// TREE-NEXT:thunks {
// TREE-NEXT:    profile_annotation: "e"
// TREE-NEXT:thunks {
// TREE-NEXT:    profile_annotation: "f"
// TREE-NEXT:thunks {
// TREE-NEXT:    profile_annotation: "g"
// Group 3 is in two blocks: "h" at the top, "i" in the kept sequential.
// TREE-NEXT:thunks {
// TREE-NEXT:    profile_annotation: "h"
// TREE-NEXT:thunks {
// TREE-NEXT:    profile_annotation: "plain"
// TREE-NEXT:  sequential_thunk {
// TREE-NEXT:    thunks {
// TREE-NEXT:        profile_annotation: "i"
// TREE-NOT: {{.}}
// The group's residual is written as it was recorded:
// CHECK: profile_annotation: "g0"
// CHECK-NEXT: thunk_id: 100
func.func @main(%a: !thunky.buffer<16> {thunky.allocation = {is_entry_computation_parameter = true}}) {
  thunky.memzero %a {thunky.in_sequential = [{group = 0 : i64, thunk = {thunk_info = {profile_annotation = "g0", thunk_id = 100 : i64}}}], thunky.thunk = {thunk_info = {profile_annotation = "a"}}} : <16>
  %s = thunky.slice_buffer %a offset = 8 : <16> -> <8>
  thunky.memzero %s {thunky.in_sequential = [{group = 0 : i64, thunk = {thunk_info = {profile_annotation = "g0", thunk_id = 100 : i64}}}, {group = 1 : i64, thunk = {thunk_info = {profile_annotation = "g1", thunk_id = 101 : i64}}}], thunky.thunk = {thunk_info = {profile_annotation = "b"}}} : <8>
  thunky.memzero %a {thunky.in_sequential = [{group = 0 : i64, thunk = {thunk_info = {profile_annotation = "g0", thunk_id = 100 : i64}}}, {group = 1 : i64, thunk = {thunk_info = {profile_annotation = "g1", thunk_id = 101 : i64}}}], thunky.thunk = {thunk_info = {profile_annotation = "c"}}} : <16>
  thunky.memzero %a {thunky.in_sequential = [{group = 0 : i64, thunk = {thunk_info = {profile_annotation = "g0", thunk_id = 100 : i64}}}], thunky.thunk = {thunk_info = {profile_annotation = "d"}}} : <16>
  thunky.memzero %a {thunky.in_sequential = [{group = 2 : i64}], thunky.thunk = {thunk_info = {profile_annotation = "e"}}} : <16>
  thunky.memzero %a {thunky.thunk = {thunk_info = {profile_annotation = "f"}}} : <16>
  thunky.memzero %a {thunky.in_sequential = [{group = 2 : i64}], thunky.thunk = {thunk_info = {profile_annotation = "g"}}} : <16>
  thunky.memzero %a {thunky.in_sequential = [{group = 3 : i64, thunk = {thunk_info = {profile_annotation = "g3"}}}], thunky.thunk = {thunk_info = {profile_annotation = "h"}}} : <16>
  thunky.sequential {
    thunky.memzero %a {thunky.in_sequential = [{group = 3 : i64, thunk = {thunk_info = {profile_annotation = "g3"}}}], thunky.thunk = {thunk_info = {profile_annotation = "i"}}} : <16>
  } {thunky.thunk = {thunk_info = {profile_annotation = "plain"}}}
  return
}
