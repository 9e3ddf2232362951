// RUN: thunky-opt -p 'builtin.module(thunky-pack-scratch{report=true})' --split-input-file %s 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.err
// Running it twice changes nothing the second time.
// RUN: thunky-opt --thunky-pack-scratch --split-input-file %s > %t.once
// RUN: thunky-opt --thunky-pack-scratch --split-input-file %t.once > %t.twice
// RUN: diff %t.once %t.twice

// Two temporaries, one dead before the other is born, share bytes.
// REPORT: thunky-pack-scratch: argument 1: 256 -> 128 bytes
// CHECK-LABEL: func.func @sequential_lifetimes
// CHECK-SAME: %{{.*}}: !thunky.buffer<128> {thunky.role = "scratch"}
// CHECK: %[[A:.*]] = thunky.slice_buffer %{{.*}} offset = 0 : <128> -> <128>
// CHECK: %[[B:.*]] = thunky.slice_buffer %{{.*}} offset = 0 : <128> -> <128>
func.func @sequential_lifetimes(%out: !thunky.buffer<128>, %tmp: !thunky.buffer<256> {thunky.role = "scratch"}) {
  %a = thunky.slice_buffer %tmp offset = 0 : <256> -> <128>
  %b = thunky.slice_buffer %tmp offset = 128 : <256> -> <128>
  thunky.memzero %a : <128>
  thunky.copy %a, %out : <128>, <128>
  thunky.memset32 %b, 1 : <128>
  thunky.copy %b, %out : <128>, <128>
  return
}

// -----

// Lifetimes that overlap keep their own bytes: nothing changes.
// CHECK-LABEL: func.func @overlapping_lifetimes
// CHECK-SAME: !thunky.buffer<256> {thunky.role = "scratch"}
// CHECK: offset = 0
// CHECK: offset = 128
func.func @overlapping_lifetimes(%out: !thunky.buffer<128>, %tmp: !thunky.buffer<256> {thunky.role = "scratch"}) {
  %a = thunky.slice_buffer %tmp offset = 0 : <256> -> <128>
  %b = thunky.slice_buffer %tmp offset = 128 : <256> -> <128>
  thunky.memzero %a : <128>
  thunky.memset32 %b, 1 : <128>
  thunky.copy %a, %out : <128>, <128>
  thunky.copy %b, %out : <128>, <128>
  return
}

// -----

// An async region in flight keeps its bytes until its done, even when the
// region no longer touches them afterwards.
// CHECK-LABEL: func.func @async_in_flight
// CHECK-SAME: !thunky.buffer<256> {thunky.role = "scratch"}
func.func @async_in_flight(%out: !thunky.buffer<128>, %tmp: !thunky.buffer<256> {thunky.role = "scratch"}) {
  %a = thunky.slice_buffer %tmp offset = 0 : <256> -> <128>
  %b = thunky.slice_buffer %tmp offset = 128 : <256> -> <128>
  %t = thunky.async_start stream = 1 {
    thunky.all_reduce %a, %out <reduction_kind = "sum", element_type = f32, replica_groups = [], group_mode = "cross_replica"> : <128>, <128>
  } : !thunky.token
  thunky.memzero %b : <128>
  thunky.async_done %t : !thunky.token
  return
}

// -----

// A loop that writes one slice and reads the other is one step: both live.
// CHECK-LABEL: func.func @loop
// CHECK-SAME: !thunky.buffer<256> {thunky.role = "scratch"}
func.func @loop(%p: !thunky.buffer<1>, %out: !thunky.buffer<128>, %tmp: !thunky.buffer<256> {thunky.role = "scratch"}) {
  %a = thunky.slice_buffer %tmp offset = 0 : <256> -> <128>
  %b = thunky.slice_buffer %tmp offset = 128 : <256> -> <128>
  thunky.while %p : <1> cond {
  } body {
    thunky.copy %a, %out : <128>, <128>
    thunky.memzero %b : <128>
  }
  return
}

// -----

// Arguments that may be outputs are never packed, nor scratch used whole.
// CHECK-LABEL: func.func @not_scratch
// CHECK-SAME: (%{{.*}}: !thunky.buffer<256>, %{{.*}}: !thunky.buffer<64> {thunky.role = "scratch"})
func.func @not_scratch(%io: !thunky.buffer<256>, %tmp: !thunky.buffer<64> {thunky.role = "scratch"}) {
  %a = thunky.slice_buffer %io offset = 0 : <256> -> <128>
  %b = thunky.slice_buffer %io offset = 128 : <256> -> <128>
  thunky.memzero %a : <128>
  thunky.memzero %b : <128>
  thunky.memzero %tmp : <64>
  return
}

// -----

// Empty slices hold no bytes: they stay at offset 0 and move nothing else
// (an empty slice past a live range once pushed that range to a negative
// offset).
// CHECK-LABEL: func.func @empty_slices
// CHECK: thunky.slice_buffer %{{.*}} offset = 0 : <64> -> <64>
// CHECK: thunky.slice_buffer %{{.*}} offset = 0 : <64> -> <0>
// CHECK: thunky.slice_buffer %{{.*}} offset = 0 : <64> -> <0>
func.func @empty_slices(%x: !thunky.buffer<64>, %tmp: !thunky.buffer<128> {thunky.role = "scratch"}) {
  %a = thunky.slice_buffer %tmp offset = 0 : <128> -> <64>
  thunky.copy %x, %a : <64>, <64>
  %e = thunky.slice_buffer %tmp offset = 64 : <128> -> <0>
  thunky.memzero %e : <0>
  %f = thunky.slice_buffer %tmp offset = 0 : <128> -> <0>
  thunky.memzero %f : <0>
  thunky.copy %a, %x : <64>, <64>
  return
}

// -----

// A slice read before anything writes it sees the bytes scratch starts
// with, so it keeps them from the start: neither slice written and read
// before it can take its place. A kernel's written operand counts as written
// there, though the launch may read it in place.
// Without that, all three would share 64 bytes.
// REPORT: thunky-pack-scratch: argument 1: 256 -> 128 bytes
// CHECK-LABEL: func.func @read_before_written
// CHECK: %[[A:.*]] = thunky.slice_buffer %{{.*}} offset = 0 : <128> -> <64>
// CHECK: %[[B:.*]] = thunky.slice_buffer %{{.*}} offset = 64 : <128> -> <64>
// CHECK: %[[C:.*]] = thunky.slice_buffer %{{.*}} offset = 0 : <128> -> <64>
func.func @read_before_written(%out: !thunky.buffer<64>, %tmp: !thunky.buffer<256> {thunky.role = "scratch"}) {
  %a = thunky.slice_buffer %tmp offset = 0 : <256> -> <64>
  %b = thunky.slice_buffer %tmp offset = 64 : <256> -> <64>
  %c = thunky.slice_buffer %tmp offset = 128 : <256> -> <64>
  thunky.launch "k"(%a : !thunky.buffer<64>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]>
  thunky.copy %a, %out : <64>, <64>
  thunky.launch "k"(%c : !thunky.buffer<64>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]>
  thunky.copy %c, %out : <64>, <64>
  thunky.copy %b, %out : <64>, <64>
  return
}

// -----

// A group that starts off the 64-byte grid moves by a multiple of 64: the
// kernel's slice, 64-byte aligned inside it, stays aligned (at 64, not at
// 56 as a group placed at 0 would put it).
// REPORT: thunky-pack-scratch: argument 1: 512 -> 256 bytes
// CHECK-LABEL: func.func @alignment_kept
// CHECK-SAME: %{{.*}}: !thunky.buffer<256> {thunky.role = "scratch"}
// CHECK: thunky.slice_buffer %{{.*}} offset = 8 : <256> -> <120>
// CHECK: thunky.slice_buffer %{{.*}} offset = 64 : <256> -> <64>
// CHECK: thunky.slice_buffer %{{.*}} offset = 0 : <256> -> <256>
func.func @alignment_kept(%out: !thunky.buffer<256>, %tmp: !thunky.buffer<512> {thunky.role = "scratch"}) {
  %x = thunky.slice_buffer %tmp offset = 8 : <512> -> <120>
  %k = thunky.slice_buffer %tmp offset = 64 : <512> -> <64>
  %y = thunky.slice_buffer %tmp offset = 256 : <512> -> <256>
  thunky.memzero %x : <120>
  thunky.launch "aligned_fusion"(%k, %out : !thunky.buffer<64>, !thunky.buffer<256>) <grid = [1, 1, 1], block = [64, 1, 1], written = [false, true]>
  thunky.memset32 %y, 1 : <256>
  thunky.copy %y, %out : <256>, <256>
  return
}

// -----

// A loop body that reads a temporary before it writes it reads, on its
// first run, what scratch held before the loop: the temporary is live from
// the start, and shares no byte with one that died before the loop. One
// that the body writes before it reads is born in the loop, and may. A
// write in a branch does not count for a read after it in the same op:
// the other branch runs without it.
// REPORT: thunky-pack-scratch: argument 2: 512 -> 384 bytes
// CHECK-LABEL: func.func @read_in_loop_before_written
// CHECK-SAME: %{{.*}}: !thunky.buffer<384> {thunky.role = "scratch"}
// CHECK: %[[Y:.*]] = thunky.slice_buffer %{{.*}} offset = 0 : <384> -> <128>
// CHECK: %[[X:.*]] = thunky.slice_buffer %{{.*}} offset = 128 : <384> -> <128>
// CHECK: %[[W:.*]] = thunky.slice_buffer %{{.*}} offset = 0 : <384> -> <128>
// CHECK: %[[B:.*]] = thunky.slice_buffer %{{.*}} offset = 256 : <384> -> <128>
func.func @read_in_loop_before_written(%out: !thunky.buffer<128>, %p: !thunky.buffer<1>, %tmp: !thunky.buffer<512> {thunky.role = "scratch"}) {
  %y = thunky.slice_buffer %tmp offset = 0 : <512> -> <128>
  %x = thunky.slice_buffer %tmp offset = 128 : <512> -> <128>
  %w = thunky.slice_buffer %tmp offset = 256 : <512> -> <128>
  %b = thunky.slice_buffer %tmp offset = 384 : <512> -> <128>
  thunky.memzero %y : <128>
  thunky.copy %y, %out : <128>, <128>
  thunky.while %p : !thunky.buffer<1> cond {
    thunky.launch "keep_going"(%p : !thunky.buffer<1>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]>
  } body {
    thunky.copy %x, %out : <128>, <128>
    thunky.memset32 %x, 1 : <128>
    thunky.memset32 %w, 2 : <128>
    thunky.copy %w, %out : <128>, <128>
    thunky.cond %p : !thunky.buffer<1> {
      thunky.memset32 %b, 3 : <128>
    }, {
    }
    thunky.copy %b, %out : <128>, <128>
  }
  return
}

// -----

// A while's predicate, which its condition writes whole before the loop
// reads it, is born in the loop: it shares bytes with a temporary that
// died before it.
// REPORT: thunky-pack-scratch: argument 1: 128 -> 64 bytes
// CHECK-LABEL: func.func @predicate_born_in_the_loop
// CHECK-SAME: %{{.*}}: !thunky.buffer<64> {thunky.role = "scratch"}
// CHECK: thunky.slice_buffer %{{.*}} offset = 0 : <64> -> <64>
// CHECK: thunky.slice_buffer %{{.*}} offset = 0 : <64> -> <1>
func.func @predicate_born_in_the_loop(%out: !thunky.buffer<64>, %tmp: !thunky.buffer<128> {thunky.role = "scratch"}) {
  %y = thunky.slice_buffer %tmp offset = 0 : <128> -> <64>
  %p = thunky.slice_buffer %tmp offset = 64 : <128> -> <1>
  thunky.memzero %y : <64>
  thunky.copy %y, %out : <64>, <64>
  thunky.while %p : !thunky.buffer<1> cond {
    thunky.launch "stop_now"(%p : !thunky.buffer<1>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]>
  } body {
    thunky.memzero %out : <64>
  }
  return
}
