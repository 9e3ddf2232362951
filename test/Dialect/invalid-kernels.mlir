// RUN: thunky-opt %s --split-input-file --verify-diagnostics

func.func @call_thunk_proto_empty_proto(%arg0: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.call_thunk_proto' op thunk_proto is empty; it must hold a serialized ThunkProto}}
  thunky.call_thunk_proto %arg0 : !thunky.buffer<16> name = "fusion" <{thunk_proto = "", asm_text = "", binary = ""}>
  return
}

// -----

func.func @ptx_kernel_grid_dim_two_values(%arg0: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.ptx_kernel' op grid_dim must have exactly 3 values (x, y, z), got 2}}
  thunky.ptx_kernel %arg0 : !thunky.buffer<16> name = "k" <ptx = ".version 8.0", grid_dim = [4, 1], block_dim = [128, 1, 1], written = [true], shmem_bytes = 0>
  return
}

// -----

func.func @ptx_kernel_block_dim_zero(%arg0: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.ptx_kernel' op block_dim values must be positive, got 0 at index 1}}
  thunky.ptx_kernel %arg0 : !thunky.buffer<16> name = "k" <{ptx = ".version 8.0", grid_dim = array<i64: 4, 1, 1>, block_dim = array<i64: 128, 0, 1>, written = array<i1: true>, shmem_bytes = 0 : i64}>
  return
}

// -----

func.func @ptx_kernel_block_dim_negative(%arg0: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.ptx_kernel' op block_dim values must be positive, got -32 at index 0}}
  thunky.ptx_kernel %arg0 : !thunky.buffer<16> name = "k" <ptx = ".version 8.0", grid_dim = [4, 1, 1], block_dim = [-32, 1, 1], written = [true], shmem_bytes = 0>
  return
}

// -----

func.func @ptx_kernel_written_length_mismatch(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.ptx_kernel' op written has 1 entries for 2 buffers}}
  thunky.ptx_kernel %arg0, %arg1 : !thunky.buffer<16>, !thunky.buffer<16> name = "k" <ptx = ".version 8.0", grid_dim = [4, 1, 1], block_dim = [128, 1, 1], written = [true], shmem_bytes = 0>
  return
}

// -----

func.func @ptx_kernel_negative_shmem(%arg0: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.ptx_kernel' op shmem_bytes must be >= 0, got -1}}
  thunky.ptx_kernel %arg0 : !thunky.buffer<16> name = "k" <{ptx = ".version 8.0", grid_dim = array<i64: 4, 1, 1>, block_dim = array<i64: 128, 1, 1>, written = array<i1: false>, shmem_bytes = -1 : i64}>
  return
}

// -----

func.func @custom_call_buffer_count_mismatch(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.custom_call' op num_operands (1) + num_results (2) must equal the number of buffers (2)}}
  thunky.custom_call %arg0, %arg1 : !thunky.buffer<16>, !thunky.buffer<16> target = "my_ffi" <num_operands = 1, num_results = 2, backend_config = {}>
  return
}

// -----

func.func @custom_call_more_operands_than_buffers(%arg0: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.custom_call' op num_operands (2) + num_results (0) must equal the number of buffers (1)}}
  thunky.custom_call %arg0 : !thunky.buffer<16> target = "my_ffi" <{num_operands = 2 : i64, num_results = 0 : i64, backend_config = {}}>
  return
}

// -----

func.func @custom_call_negative_num_operands(%arg0: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.custom_call' op num_operands and num_results must be >= 0, got -1 and 2}}
  thunky.custom_call %arg0 : !thunky.buffer<16> target = "my_ffi" <{num_operands = -1 : i64, num_results = 2 : i64, backend_config = {}}>
  return
}

// -----

func.func @custom_call_operand_shapes_length(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.custom_call' op operand_shapes has 2 entries, expected 1}}
  thunky.custom_call %arg0, %arg1 : !thunky.buffer<16>, !thunky.buffer<16> target = "my_ffi" <num_operands = 1, num_results = 1, backend_config = {}, operand_shapes = [tensor<4xf32>, tensor<4xf32>], result_shapes = [tensor<4xf32>]>
  return
}

// -----

func.func @custom_call_result_shapes_length(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.custom_call' op result_shapes has 0 entries, expected 1}}
  thunky.custom_call %arg0, %arg1 : !thunky.buffer<16>, !thunky.buffer<16> target = "my_ffi" <{num_operands = 1 : i64, num_results = 1 : i64, backend_config = {}, operand_shapes = [tensor<4xf32>], result_shapes = []}>
  return
}

// -----

func.func @custom_call_shape_not_a_type(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<4>) {
  // expected-error @+1 {{'thunky.custom_call' op result_shapes[0] must be a type (tensor or scalar)}}
  thunky.custom_call %arg0, %arg1 : !thunky.buffer<16>, !thunky.buffer<4> target = "my_ffi" <num_operands = 1, num_results = 1, backend_config = {api_version = 4 : i32}, operand_shapes = [tensor<4xf32>], result_shapes = [4 : i64]>
  return
}

// -----

func.func @custom_call_operand_shape_not_a_type(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.custom_call' op operand_shapes[1] must be a type (tensor or scalar)}}
  thunky.custom_call %arg0, %arg1 : !thunky.buffer<16>, !thunky.buffer<16> target = "my_ffi" <num_operands = 2, num_results = 0, backend_config = {}, operand_shapes = [tensor<4xf32>, "tensor<4xf32>"]>
  return
}
