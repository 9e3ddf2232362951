// RUN: thunky-opt --thunky-check-races --split-input-file --verify-diagnostics %s -o /dev/null

// Each finding is an error at the async_start; its message names the other
// op's thunk as the runtime numbers it, the op and its location
// (test/Checking/check-races.test checks the locations).

// The region writes bytes an op beside it reads.
func.func @region_writes_what_is_read(%s: !thunky.buffer<64>, %o: !thunky.buffer<16>) {
  %a = thunky.slice_buffer %s offset = 0 : <64> -> <16>
  // expected-error @+1 {{the region writes bytes [8, 16) of argument 0, which that op reads while the region is in flight}}
  %t = thunky.async_start stream = 1 {
    thunky.memzero %a : <16>
  } : !thunky.token
  %b = thunky.slice_buffer %s offset = 8 : <64> -> <16>
  thunky.copy %b, %o : <16>, <16>
  thunky.async_done %t : !thunky.token
  return
}

// -----

// The region reads bytes an op beside it writes.
func.func @region_reads_what_is_written(%s: !thunky.buffer<64>, %o: !thunky.buffer<16>) {
  %a = thunky.slice_buffer %s offset = 0 : <64> -> <16>
  // expected-error @+1 {{the region reads bytes [0, 8) of argument 0, which that op writes while the region is in flight}}
  %t = thunky.async_start stream = 1 {
    thunky.copy %a, %o : <16>, <16>
  } : !thunky.token
  %b = thunky.slice_buffer %s offset = 0 : <64> -> <8>
  thunky.memzero %b : <8>
  thunky.async_done %t : !thunky.token
  return
}

// -----

// Both write the same bytes.
func.func @both_write(%o: !thunky.buffer<16>) {
  // expected-error @+1 {{races with thunk 2, 'thunky.memset32' at}}
  %t = thunky.async_start stream = 1 {
    thunky.memzero %o : <16>
  } : !thunky.token
  thunky.memset32 %o, 3 : <16>
  thunky.async_done %t : !thunky.token
  return
}

// -----

// Two regions in flight at once: the second reads what the first writes.
// The pair is reported once, from the first start.
func.func @two_regions(%s: !thunky.buffer<64>, %o: !thunky.buffer<16>) {
  %a = thunky.slice_buffer %s offset = 0 : <64> -> <16>
  // expected-error @+1 {{races with thunk 2, 'thunky.async_start' at}}
  %t = thunky.async_start stream = 1 {
    thunky.memzero %a : <16>
  } : !thunky.token
  %u = thunky.async_start stream = 2 {
    thunky.copy %a, %o : <16>, <16>
  } : !thunky.token
  thunky.async_done %t : !thunky.token
  thunky.async_done %u : !thunky.token
  return
}

// -----

// A region whose done is before a use races with nothing; reads of the same
// bytes on both sides do not race; disjoint bytes do not race.
func.func @clean(%s: !thunky.buffer<64>, %o: !thunky.buffer<16>, %p: !thunky.buffer<16>) {
  %a = thunky.slice_buffer %s offset = 0 : <64> -> <16>
  %b = thunky.slice_buffer %s offset = 16 : <64> -> <16>
  %t = thunky.async_start stream = 1 {
    thunky.memzero %a : <16>
  } : !thunky.token
  thunky.async_done %t : !thunky.token
  thunky.copy %a, %o : <16>, <16>
  %u = thunky.async_start stream = 1 {
    thunky.copy %a, %p : <16>, <16>
  } : !thunky.token
  thunky.copy %a, %o : <16>, <16>
  thunky.memzero %b : <16>
  thunky.async_done %u : !thunky.token
  return
}

// -----

// A region in a loop body races within the body; the loop's predicate is
// read by the loop, not beside the region.
func.func @in_loop(%s: !thunky.buffer<64>, %p: !thunky.buffer<1>) {
  %a = thunky.slice_buffer %s offset = 0 : <64> -> <16>
  thunky.while %p : <1> cond {
  } body {
    // expected-error @+1 {{the region writes bytes [0, 16) of argument 0, which that op writes while the region is in flight}}
    %t = thunky.async_start stream = 1 {
      thunky.memzero %a : <16>
    } : !thunky.token
    thunky.memset32 %a, 1 : <16>
    thunky.async_done %t : !thunky.token
  }
  return
}

// -----

// A collective of several pairs reads every source and writes every
// destination: reading its second source beside it is no race, writing it is.
func.func @collective_pairs(%a: !thunky.buffer<8>, %b: !thunky.buffer<8>, %c: !thunky.buffer<16>, %d: !thunky.buffer<16>, %o: !thunky.buffer<8>) {
  // expected-error @+1 {{the region reads bytes [0, 8) of argument 1, which that op writes while the region is in flight}}
  %t = thunky.async_start stream = 1 {
    thunky.all_gather (%a, %b), (%c, %d) <element_type = [ui32, f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>, !thunky.buffer<8>), (!thunky.buffer<16>, !thunky.buffer<16>)
  } : !thunky.token
  thunky.copy %b, %o : <8>, <8>
  thunky.memzero %b : <8>
  thunky.async_done %t : !thunky.token
  return
}

// -----

// XLA's async rules (openxla/xla#40520): collectives in flight together
// each run on an async stream of their own. A collective beside a region of
// collectives breaks it.
func.func @collective_beside(%a: !thunky.buffer<8>, %b: !thunky.buffer<8>, %c: !thunky.buffer<8>, %d: !thunky.buffer<8>) {
  // expected-warning @+1 {{collectives in flight together: thunk 2 at}}
  %t = thunky.async_start stream = 1 {
    thunky.all_reduce (%a), (%b) <reduction_kind = "sum", element_type = [f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>), (!thunky.buffer<8>)
  } <{is_communication = true}> : !thunky.token
  thunky.all_reduce (%c), (%d) <reduction_kind = "sum", element_type = [f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>), (!thunky.buffer<8>)
  thunky.async_done %t : !thunky.token
  return
}

// -----

// Two regions of collectives on one stream: the second waits for the first.
// On two streams they are in flight together as XLA means them to be.
func.func @collectives_one_stream(%a: !thunky.buffer<8>, %b: !thunky.buffer<8>, %c: !thunky.buffer<8>, %d: !thunky.buffer<8>) {
  // expected-warning @+1 {{collectives in flight together on one stream: thunk 2 at}}
  %t = thunky.async_start stream = 1 {
    thunky.all_reduce (%a), (%b) <reduction_kind = "sum", element_type = [f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>), (!thunky.buffer<8>)
  } <{is_communication = true}> : !thunky.token
  %u = thunky.async_start stream = 1 {
    thunky.all_reduce (%c), (%d) <reduction_kind = "sum", element_type = [f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>), (!thunky.buffer<8>)
  } <{is_communication = true}> : !thunky.token
  thunky.async_done %t : !thunky.token
  thunky.async_done %u : !thunky.token
  %v = thunky.async_start stream = 1 {
    thunky.all_reduce (%a), (%b) <reduction_kind = "sum", element_type = [f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>), (!thunky.buffer<8>)
  } <{is_communication = true}> : !thunky.token
  %w = thunky.async_start stream = 2 {
    thunky.all_reduce (%c), (%d) <reduction_kind = "sum", element_type = [f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>), (!thunky.buffer<8>)
  } <{is_communication = true}> : !thunky.token
  thunky.async_done %v : !thunky.token
  thunky.async_done %w : !thunky.token
  return
}

// -----

// XLA orders thunks at run time only through buffers and resources
// (openxla/xla#40667): a region that touches no bytes and holds no
// collective is ordered by nothing.
func.func @ordered_by_nothing() {
  // expected-warning @+1 {{the region touches no bytes and holds no collective: nothing orders it against the ops beside it}}
  %t = thunky.async_start stream = 1 {
  } : !thunky.token
  thunky.async_done %t : !thunky.token
  return
}
