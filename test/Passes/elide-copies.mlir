// RUN: thunky-opt --thunky-elide-copies --split-input-file %s | FileCheck %s
// Running it twice changes nothing the second time.
// RUN: thunky-opt --thunky-elide-copies --split-input-file %s > %t.once
// RUN: thunky-opt --thunky-elide-copies --split-input-file %t.once > %t.twice
// RUN: diff %t.once %t.twice

// Same bytes: the same value, or slices that resolve to the same bytes, even
// inside a loop.
// CHECK-LABEL: func.func @same_bytes
// CHECK-NOT: thunky.copy
// CHECK: return
func.func @same_bytes(%a: !thunky.buffer<64>, %p: !thunky.buffer<1>) {
  thunky.copy %a, %a : <64>, <64>
  %s = thunky.slice_buffer %a offset = 16 : <64> -> <32>
  %t = thunky.slice_buffer %a offset = 8 : <64> -> <48>
  %u = thunky.slice_buffer %t offset = 8 : <48> -> <32>
  thunky.while %p : <1> cond {
  } body {
    thunky.copy %s, %u : <32>, <32>
  }
  return
}

// -----

// Partly overlapping bytes are not the same bytes.
// CHECK-LABEL: func.func @overlap
// CHECK: thunky.copy
func.func @overlap(%a: !thunky.buffer<64> {thunky.role = "scratch"}) {
  %s = thunky.slice_buffer %a offset = 0 : <64> -> <32>
  %t = thunky.slice_buffer %a offset = 16 : <64> -> <32>
  thunky.copy %s, %t : <32>, <32>
  return
}

// -----

// A copy into scratch that nothing reads before the program ends goes; one
// into an argument that may be an output stays.
// CHECK-LABEL: func.func @dead_at_end
// CHECK-SAME: (%[[IN:.*]]: !thunky.buffer<16>, %[[OUT:.*]]: !thunky.buffer<16>, %[[TMP:.*]]: !thunky.buffer<16>
// CHECK-NEXT: thunky.copy %[[IN]], %[[OUT]]
// CHECK-NEXT: return
func.func @dead_at_end(%in: !thunky.buffer<16>, %out: !thunky.buffer<16>,
                       %tmp: !thunky.buffer<16> {thunky.role = "scratch"}) {
  thunky.copy %in, %out : <16>, <16>
  thunky.copy %in, %tmp : <16>, <16>
  return
}

// -----

// Overwritten before any read: dead.
// CHECK-LABEL: func.func @dead_overwritten
// CHECK-NEXT: thunky.memzero
// CHECK-NEXT: thunky.ptx_kernel
// CHECK-NEXT: return
func.func @dead_overwritten(%in: !thunky.buffer<16>, %tmp: !thunky.buffer<16> {thunky.role = "scratch"}) {
  thunky.copy %in, %tmp : <16>, <16>
  thunky.memzero %tmp : <16>
  thunky.ptx_kernel %tmp : !thunky.buffer<16> name = "k" <ptx = "", grid_dim = [1, 1, 1], block_dim = [1, 1, 1], written = [false], shmem_bytes = 0>
  return
}

// -----

// A partial overwrite does not kill the copy (and the kernel reads the rest).
// CHECK-LABEL: func.func @partial_overwrite
// CHECK-NEXT: %[[H:.*]] = thunky.slice_buffer
// CHECK-NEXT: thunky.copy
// CHECK-NEXT: thunky.memzero %[[H]]
func.func @partial_overwrite(%in: !thunky.buffer<16>, %tmp: !thunky.buffer<16> {thunky.role = "scratch"}) {
  %h = thunky.slice_buffer %tmp offset = 0 : <16> -> <8>
  thunky.copy %in, %tmp : <16>, <16>
  thunky.memzero %h : <8>
  thunky.ptx_kernel %tmp : !thunky.buffer<16> name = "k" <ptx = "", grid_dim = [1, 1, 1], block_dim = [1, 1, 1], written = [false], shmem_bytes = 0>
  return
}

// -----

// Only read afterwards, source untouched: readers read the source, even
// inside a loop; a slice of the scratch reads the same slice of the source.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[IN:.*]]: !thunky.buffer<16>, %[[OUT:.*]]: !thunky.buffer<8>, %[[TMP:.*]]: !thunky.buffer<16>
// CHECK-NOT: thunky.copy %[[IN]], %[[TMP]]
// CHECK: %[[S:.*]] = thunky.slice_buffer %[[IN]] offset = 8 : <16> -> <8>
// CHECK-NEXT: thunky.copy %[[S]], %[[OUT]]
// CHECK: thunky.while
// CHECK: thunky.ptx_kernel %[[IN]]
func.func @forward(%in: !thunky.buffer<16>, %out: !thunky.buffer<8>,
                   %tmp: !thunky.buffer<16> {thunky.role = "scratch"}, %p: !thunky.buffer<1>) {
  thunky.copy %in, %tmp : <16>, <16>
  %hi = thunky.slice_buffer %tmp offset = 8 : <16> -> <8>
  thunky.copy %hi, %out : <8>, <8>
  thunky.while %p : <1> cond {
  } body {
    thunky.ptx_kernel %tmp : !thunky.buffer<16> name = "k" <ptx = "", grid_dim = [1, 1, 1], block_dim = [1, 1, 1], written = [false], shmem_bytes = 0>
  }
  return
}

// -----

// The source is written between the copy and a read: the copy stays.
// CHECK-LABEL: func.func @intervening_write
// CHECK: thunky.copy
// CHECK-NEXT: thunky.memzero
// CHECK-NEXT: thunky.copy
func.func @intervening_write(%in: !thunky.buffer<16>, %out: !thunky.buffer<16>,
                             %tmp: !thunky.buffer<16> {thunky.role = "scratch"}) {
  thunky.copy %in, %tmp : <16>, <16>
  thunky.memzero %in : <16>
  thunky.copy %tmp, %out : <16>, <16>
  return
}

// -----

// A read inside a loop whose body also writes the source: the copy stays.
// CHECK-LABEL: func.func @read_in_loop
// CHECK: thunky.copy %{{.*}}, %[[T:.*]] :
// CHECK: thunky.while
func.func @read_in_loop(%in: !thunky.buffer<16>, %out: !thunky.buffer<16>,
                        %tmp: !thunky.buffer<16> {thunky.role = "scratch"}, %p: !thunky.buffer<1>) {
  thunky.copy %in, %tmp : <16>, <16>
  thunky.while %p : <1> cond {
  } body {
    thunky.copy %tmp, %out : <16>, <16>
    thunky.memzero %in : <16>
  }
  return
}

// -----

// An async region in flight reads the scratch until its done; the source is
// written before the done, so the copy stays.
// CHECK-LABEL: func.func @async_in_flight
// CHECK: thunky.copy %{{.*}}, %{{.*}} : <16>, <16>
// CHECK-NEXT: thunky.async_start
func.func @async_in_flight(%in: !thunky.buffer<16>, %out: !thunky.buffer<16>,
                           %tmp: !thunky.buffer<16> {thunky.role = "scratch"}) {
  thunky.copy %in, %tmp : <16>, <16>
  %t = thunky.async_start stream = 1 {
    thunky.all_reduce %tmp, %out <reduction_kind = "sum", element_type = f32, replica_groups = [], group_mode = "cross_replica"> : <16>, <16>
  } : !thunky.token
  thunky.memzero %in : <16>
  thunky.async_done %t : !thunky.token
  return
}

// -----

// An unknown op (call_thunk_proto) may read and write all its buffers: a
// copy it might read stays, and it may write the source.
// CHECK-LABEL: func.func @opaque_reader
// CHECK: thunky.copy
func.func @opaque_reader(%in: !thunky.buffer<16>, %tmp: !thunky.buffer<16> {thunky.role = "scratch"}) {
  thunky.copy %in, %tmp : <16>, <16>
  thunky.call_thunk_proto %tmp, %in : !thunky.buffer<16>, !thunky.buffer<16> name = "k" <thunk_proto = "x", asm_text = "", binary = "">
  return
}

// -----

// A reader that reads the copied bytes through the whole scratch buffer
// cannot be pointed at the source: the copy stays.
// CHECK-LABEL: func.func @read_through_larger_buffer
// CHECK: thunky.copy
// CHECK-NEXT: thunky.ptx_kernel
func.func @read_through_larger_buffer(%in: !thunky.buffer<8>, %tmp: !thunky.buffer<16> {thunky.role = "scratch"}) {
  %lo = thunky.slice_buffer %tmp offset = 0 : <16> -> <8>
  thunky.copy %in, %lo : <8>, <8>
  thunky.ptx_kernel %tmp : !thunky.buffer<16> name = "k" <ptx = "", grid_dim = [1, 1, 1], block_dim = [1, 1, 1], written = [false], shmem_bytes = 0>
  return
}

// -----

// A kernel kept as call_thunk_proto reads what import's thunky.written says
// it does not write: the copy is forwarded into it.
// CHECK-LABEL: func.func @kernel_thunk_reader
// CHECK-SAME: (%[[IN:.*]]: !thunky.buffer<16>, %[[OUT:.*]]: !thunky.buffer<16>, %[[TMP:.*]]: !thunky.buffer<16>
// CHECK-NEXT: thunky.call_thunk_proto %[[IN]], %[[OUT]]
// CHECK-NEXT: return
func.func @kernel_thunk_reader(%in: !thunky.buffer<16>, %out: !thunky.buffer<16>,
                               %tmp: !thunky.buffer<16> {thunky.role = "scratch"}) {
  thunky.copy %in, %tmp : <16>, <16>
  thunky.call_thunk_proto %tmp, %out : !thunky.buffer<16>, !thunky.buffer<16> name = "k" <thunk_proto = "x", asm_text = "", binary = "", written = [false, true]>
  return
}

// -----

// One that writes the scratch too keeps the copy.
// CHECK-LABEL: func.func @kernel_thunk_writer
// CHECK: thunky.copy
func.func @kernel_thunk_writer(%in: !thunky.buffer<16>, %tmp: !thunky.buffer<16> {thunky.role = "scratch"}) {
  thunky.copy %in, %tmp : <16>, <16>
  thunky.call_thunk_proto %tmp : !thunky.buffer<16> name = "k" <thunk_proto = "x", asm_text = "", binary = "", written = [true]>
  return
}
