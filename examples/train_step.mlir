// A small training step as XLA:GPU lays it out at the thunk level: two
// parameters, one output, a scratch buffer, a constant, a fused kernel, a
// loop, and a gradient all-reduce overlapped on a communication stream.
// Each argument's thunky.role says what it is to the executable, and its
// thunky.shape what it holds (docs/lit-fixtures.md).
module {
  func.func @main(%params: !thunky.buffer<256> {thunky.role = "parameter 0", thunky.shape = tensor<64xf32>},
                  %grads: !thunky.buffer<256> {thunky.role = "parameter 1", thunky.shape = tensor<64xf32>},
                  %out: !thunky.buffer<256> {thunky.role = "output {}", thunky.shape = tensor<64xf32>},
                  %scratch: !thunky.buffer<132> {thunky.role = "scratch"}) {
    // Learning rate, as XLA would embed it: 4 bytes of f32 0.01.
    %lr = thunky.constant <value = "\0A\D7#<"> : <4>
    %step = thunky.slice_buffer %scratch offset = 0 : <132> -> <4>
    %pred = thunky.slice_buffer %scratch offset = 4 : <132> -> <1>
    %acc = thunky.slice_buffer %scratch offset = 68 : <132> -> <64>
    thunky.memzero %step : <4>

    // Average gradients across two replicas while the step counter loops.
    %t = thunky.async_start stream = 1 {
      thunky.all_reduce %grads, %grads <reduction_kind = "sum", element_type = f32, replica_groups = [array<i64: 0, 1>], group_mode = "cross_replica"> : <256>, <256>
    } <is_communication = true> : !thunky.token

    thunky.while %pred : <1> cond {
      thunky.ptx_kernel %step, %pred : !thunky.buffer<4>, !thunky.buffer<1> name = "step_lt_4" <ptx = ".entry step_lt_4", grid_dim = [1, 1, 1], block_dim = [1, 1, 1], written = [false, true], shmem_bytes = 0>
    } body {
      thunky.sequential {
        thunky.memset32 %acc, 1065353216 : <64>
        thunky.ptx_kernel %step : !thunky.buffer<4> name = "next_step" <ptx = ".entry next_step", grid_dim = [1, 1, 1], block_dim = [1, 1, 1], written = [true], shmem_bytes = 0>
      }
    }

    thunky.async_done %t : !thunky.token
    thunky.ptx_kernel %params, %grads, %lr, %out : !thunky.buffer<256>, !thunky.buffer<256>, !thunky.buffer<4>, !thunky.buffer<256> name = "sgd_update" <ptx = ".entry sgd_update", grid_dim = [1, 1, 1], block_dim = [64, 1, 1], written = [false, false, false, true], shmem_bytes = 0>
    return
  }
}
