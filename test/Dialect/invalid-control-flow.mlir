// RUN: thunky-opt %s --split-input-file --verify-diagnostics

func.func @cond_no_branches(%arg0: !thunky.buffer<4>) {
  // expected-error @+1 {{'thunky.cond' op needs at least one branch}}
  thunky.cond %arg0 : <4>
  return
}

// -----

func.func @cond_no_branches_generic(%arg0: !thunky.buffer<4>) {
  // expected-error @+1 {{'thunky.cond' op needs at least one branch}}
  "thunky.cond"(%arg0) : (!thunky.buffer<4>) -> ()
  return
}

// -----

func.func @cond_two_byte_predicate(%arg0: !thunky.buffer<2>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.cond' op branch_index must be a 1-byte bool or a 4-byte s32, got 2 bytes}}
  thunky.cond %arg0 : <2> {
    thunky.memzero %arg1 : <16>
  }, {
    thunky.memset32 %arg1, 1 : <16>
  }
  return
}

// -----

func.func @cond_bool_predicate_three_branches(%arg0: !thunky.buffer<1>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.cond' op a bool predicate selects between exactly 2 branches, got 3}}
  thunky.cond %arg0 : <1> {
    thunky.memzero %arg1 : <16>
  }, {
    thunky.memset32 %arg1, 1 : <16>
  }, {
    thunky.memset32 %arg1, 2 : <16>
  }
  return
}

// -----

func.func @cond_bool_predicate_one_branch(%arg0: !thunky.buffer<1>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.cond' op a bool predicate selects between exactly 2 branches, got 1}}
  thunky.cond %arg0 : <1> {
    thunky.memzero %arg1 : <16>
  }
  return
}

// -----

func.func @while_eight_byte_condition(%arg0: !thunky.buffer<8>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.while' op condition_buffer must be a 1-byte bool or a 4-byte s32, got 8 bytes}}
  thunky.while %arg0 : <8> cond {
    thunky.memzero %arg0 : <8>
  } body {
    thunky.memzero %arg1 : <16>
  }
  return
}

// -----

func.func @async_start_negative_stream(%arg0: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.async_start' op stream_id must be >= 0, got -1}}
  %0 = thunky.async_start stream = -1 {
    thunky.memzero %arg0 : <16>
  } : !thunky.token
  thunky.async_done %0 : !thunky.token
  return
}

// -----

func.func @async_start_awaited_twice(%arg0: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.async_start' op token is awaited by 2 thunky.async_done ops; exactly one must}}
  %0 = thunky.async_start stream = 1 {
    thunky.memzero %arg0 : <16>
  } <{is_communication = true}> : !thunky.token
  thunky.async_done %0 : !thunky.token
  thunky.async_done %0 : !thunky.token
  return
}

// -----

func.func @async_start_never_done(%arg0: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.async_start' op token is awaited by no thunky.async_done: the region is never done}}
  %0 = thunky.async_start stream = 1 {
    thunky.memzero %arg0 : <16>
  } : !thunky.token
  return
}

// -----

// Started in a branch and done after it: the done may not run where the
// region did not (issue 44).
func.func @async_done_in_a_branch(%arg0: !thunky.buffer<16>, %p: !thunky.buffer<4>) {
  // expected-error @+1 {{'thunky.async_start' op token is awaited in another block than the region starts in; its thunky.async_done must follow it in the same block, where it always runs}}
  %0 = thunky.async_start stream = 1 {
    thunky.memzero %arg0 : <16>
  } : !thunky.token
  thunky.cond %p : !thunky.buffer<4> {
    thunky.async_done %0 : !thunky.token
  }, {
  }
  return
}

// -----

func.func @async_done_token_from_argument(%arg0: !thunky.token) {
  // expected-error @+1 {{'thunky.async_done' op token must come from a thunky.async_start}}
  thunky.async_done %arg0 : !thunky.token
  return
}

// -----

func.func @yield_outside_allowed_parent() {
  // expected-error @+1 {{'thunky.yield' op expects parent op to be one of 'thunky.cond, thunky.while, thunky.async_start, thunky.collective_group, thunky.sequential'}}
  thunky.yield
}

// -----

func.func @collective_group_with_memzero(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.collective_group' op may hold only collectives, copies, call_thunk_proto and slices, found 'thunky.memzero'}}
  thunky.collective_group {
    thunky.all_reduce %arg0, %arg1 <reduction_kind = "sum", element_type = f32, replica_groups = [[0, 1]], group_mode = "cross_replica"> : <16>, <16>
    thunky.memzero %arg0 : <16>
  }
  return
}
