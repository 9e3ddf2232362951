// RUN: thunky-opt --thunky-remove-redundant-async --split-input-file %s | FileCheck %s --check-prefix=REDUNDANT
// RUN: thunky-opt --thunky-expand-async-scope --split-input-file %s | FileCheck %s --check-prefix=EXPAND

// A start its done directly follows overlaps nothing: its region is
// inlined. Expanding it first moves it up and its done down.
// REDUNDANT-LABEL: func.func @adjacent
// REDUNDANT-NEXT: thunky.memzero %arg0
// REDUNDANT-NEXT: thunky.memzero %arg1
// REDUNDANT-NEXT: thunky.memzero %arg2
// REDUNDANT-NEXT: return
// EXPAND-LABEL: func.func @adjacent
// EXPAND-NEXT: %[[T:.*]] = thunky.async_start stream = 1 {
// EXPAND-NEXT: thunky.memzero %arg1
// EXPAND-NEXT: } : !thunky.token
// EXPAND-NEXT: thunky.memzero %arg0
// EXPAND-NEXT: thunky.memzero %arg2
// EXPAND-NEXT: thunky.async_done %[[T]]
func.func @adjacent(%a: !thunky.buffer<16>, %b: !thunky.buffer<16>, %c: !thunky.buffer<16>) {
  thunky.memzero %a : <16>
  %t = thunky.async_start stream = 1 {
    thunky.memzero %b : <16>
  } : !thunky.token
  thunky.async_done %t : !thunky.token
  thunky.memzero %c : <16>
  return
}

// -----

// XLA's own example: with nothing in conflict the start goes first and the
// done last. An op between them keeps the pair.
// REDUNDANT-LABEL: func.func @xla_example
// REDUNDANT: thunky.async_start
// EXPAND-LABEL: func.func @xla_example
// EXPAND-NEXT: %[[T:.*]] = thunky.async_start stream = 1 {
// EXPAND-NEXT: thunky.memzero %arg4
// EXPAND-NEXT: } : !thunky.token
// EXPAND-NEXT: thunky.memzero %arg0
// EXPAND-NEXT: thunky.memzero %arg1
// EXPAND-NEXT: thunky.memzero %arg2
// EXPAND-NEXT: thunky.memzero %arg3
// EXPAND-NEXT: thunky.async_done %[[T]]
// EXPAND-NEXT: return
func.func @xla_example(%k0: !thunky.buffer<8>, %k1: !thunky.buffer<8>, %k2: !thunky.buffer<8>, %k3: !thunky.buffer<8>, %r: !thunky.buffer<8>) {
  thunky.memzero %k0 : <8>
  thunky.memzero %k1 : <8>
  %t = thunky.async_start stream = 1 {
    thunky.memzero %r : <8>
  } : !thunky.token
  thunky.memzero %k2 : <8>
  thunky.async_done %t : !thunky.token
  thunky.memzero %k3 : <8>
  return
}

// -----

// Conflicts stop the moves: the region reads what the first op writes, so
// the start stays after it; the last op writes what the region reads, so
// the done stays before it. The slice the region uses is not passed either.
// EXPAND-LABEL: func.func @conflicts
// EXPAND-NEXT: thunky.memzero %arg0
// EXPAND-NEXT: thunky.memzero %arg1
// EXPAND-NEXT: %[[S:.*]] = thunky.slice_buffer %arg0
// EXPAND-NEXT: %[[T:.*]] = thunky.async_start stream = 1 {
// EXPAND-NEXT: thunky.copy %[[S]], %arg2
// EXPAND-NEXT: } : !thunky.token
// EXPAND-NEXT: thunky.memzero %arg3
// EXPAND-NEXT: thunky.async_done %[[T]]
// EXPAND-NEXT: thunky.memset32 %arg0
func.func @conflicts(%a: !thunky.buffer<16>, %x: !thunky.buffer<8>, %o: !thunky.buffer<8>, %y: !thunky.buffer<8>) {
  thunky.memzero %a : <16>
  thunky.memzero %x : <8>
  %s = thunky.slice_buffer %a offset = 8 : <16> -> <8>
  %t = thunky.async_start stream = 1 {
    thunky.copy %s, %o : <8>, <8>
  } : !thunky.token
  thunky.memzero %y : <8>
  thunky.async_done %t : !thunky.token
  thunky.memset32 %a, 1 : <16>
  return
}

// -----

// Two regions on one stream keep their order, so they never overlap there:
// the second start stays after the first done.
// EXPAND-LABEL: func.func @one_stream
// EXPAND-NEXT: %[[T:.*]] = thunky.async_start stream = 1 {
// EXPAND: thunky.async_done %[[T]]
// EXPAND-NEXT: %[[U:.*]] = thunky.async_start stream = 1 {
// EXPAND: thunky.memzero %arg2
// EXPAND-NEXT: thunky.async_done %[[U]]
func.func @one_stream(%a: !thunky.buffer<8>, %b: !thunky.buffer<8>, %c: !thunky.buffer<8>) {
  %t = thunky.async_start stream = 1 {
    thunky.memzero %a : <8>
  } : !thunky.token
  thunky.async_done %t : !thunky.token
  %u = thunky.async_start stream = 1 {
    thunky.memzero %b : <8>
  } : !thunky.token
  thunky.async_done %u : !thunky.token
  thunky.memzero %c : <8>
  return
}

// -----

// Collectives keep their order: a region holding one does not start before
// another collective, nor wait after one.
// EXPAND-LABEL: func.func @collectives
// EXPAND-NEXT: thunky.all_reduce
// EXPAND-NEXT: %[[T:.*]] = thunky.async_start stream = 0 {
// EXPAND: thunky.memzero %arg4
// EXPAND-NEXT: thunky.async_done %[[T]]
// EXPAND-NEXT: thunky.all_reduce
func.func @collectives(%a: !thunky.buffer<8>, %b: !thunky.buffer<8>, %c: !thunky.buffer<8>, %d: !thunky.buffer<8>, %x: !thunky.buffer<8>, %e: !thunky.buffer<8>, %f: !thunky.buffer<8>) {
  thunky.all_reduce (%a), (%b) <reduction_kind = "sum", element_type = [f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>), (!thunky.buffer<8>)
  %t = thunky.async_start stream = 0 {
    thunky.all_reduce (%c), (%d) <reduction_kind = "sum", element_type = [f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>), (!thunky.buffer<8>)
  } <{is_communication = true}> : !thunky.token
  thunky.memzero %x : <8>
  thunky.async_done %t : !thunky.token
  thunky.all_reduce (%e), (%f) <reduction_kind = "sum", element_type = [f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>), (!thunky.buffer<8>)
  return
}

// -----

// In a loop body, as XLA's pass recurses into while loops.
// EXPAND-LABEL: func.func @in_loop
// EXPAND: body {
// EXPAND-NEXT: %[[T:.*]] = thunky.async_start stream = 1 {
// EXPAND: thunky.memzero %arg2
// EXPAND-NEXT: thunky.async_done %[[T]]
func.func @in_loop(%a: !thunky.buffer<8>, %b: !thunky.buffer<8>, %c: !thunky.buffer<8>, %p: !thunky.buffer<1>) {
  thunky.while %p : <1> cond {
  } body {
    thunky.memzero %a : <8>
    %t = thunky.async_start stream = 1 {
      thunky.memzero %b : <8>
    } : !thunky.token
    thunky.async_done %t : !thunky.token
    thunky.memzero %c : <8>
  }
  return
}

// -----

// An all-gather region whose done follows its start, in flight while an
// all-reduce region is: inlined, the all-gather would run beside the
// all-reduce's region, two collectives in flight together
// (openxla/xla#40520), so it stays. One after the all-reduce's done goes.
// REDUNDANT-LABEL: func.func @collective_beside_a_window
// REDUNDANT: thunky.async_start stream = 1
// REDUNDANT: thunky.async_start stream = 2
// REDUNDANT-NEXT: thunky.all_gather
// REDUNDANT: thunky.async_done
// REDUNDANT-NEXT: thunky.async_done
// REDUNDANT-NEXT: thunky.all_gather
// REDUNDANT-NEXT: return
func.func @collective_beside_a_window(%a: !thunky.buffer<8>, %b: !thunky.buffer<8>, %c: !thunky.buffer<8>, %d: !thunky.buffer<16>) {
  %t = thunky.async_start stream = 1 {
    thunky.all_reduce (%a), (%b) <reduction_kind = "sum", element_type = [f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>), (!thunky.buffer<8>)
  } <{is_communication = true}> : !thunky.token
  %u = thunky.async_start stream = 2 {
    thunky.all_gather (%c), (%d) <element_type = [f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>), (!thunky.buffer<16>)
  } <{is_communication = true}> : !thunky.token
  thunky.async_done %u : !thunky.token
  thunky.async_done %t : !thunky.token
  %v = thunky.async_start stream = 2 {
    thunky.all_gather (%c), (%d) <element_type = [f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>), (!thunky.buffer<16>)
  } <{is_communication = true}> : !thunky.token
  thunky.async_done %v : !thunky.token
  return
}
