// RUN: thunky-opt --thunky-remove-redundant-async --split-input-file %s | FileCheck %s

// A collective kept as call_thunk_proto is a collective to
// thunky-remove-redundant-async, as a first-class one is: a region holding
// one, whose done follows its start, in flight while an all-reduce region
// is, stays, since inlined it would run beside that region, two
// collectives in flight together (openxla/xla#40520). One case for each
// kind import keeps so (the protos of
// expand-async-scope-call-thunk-proto.mlir).
// -----

// collective broadcast
module attributes {thunky.executable = {buffer_allocations = {}, module_name = "jit_broadcast_weights"}} {
  func.func @main(%x: !thunky.buffer<8>, %y: !thunky.buffer<8>, %arg0: !thunky.buffer<1024> {thunky.allocation = #thunky.allocation<index = 0, parameter 0, tensor<256xi32, {is_dynamic_dimension = array<i1>}>>}, %arg1: !thunky.buffer<1024> {thunky.allocation = #thunky.allocation<index = 1, output {}, tensor<256xi32, {is_dynamic_dimension = array<i1>}>, live_out>}) {
    // CHECK-LABEL: func.func @main(
    // CHECK: thunky.async_start stream = 2
    // CHECK-NEXT: thunky.call_thunk_proto
    // CHECK: thunky.async_done
    // CHECK-NEXT: thunky.async_done
    %t = thunky.async_start stream = 1 {
      thunky.all_reduce (%x), (%y) <reduction_kind = "sum", element_type = [f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>), (!thunky.buffer<8>)
    } <{is_communication = true}> : !thunky.token
    %u = thunky.async_start stream = 2 {
      thunky.call_thunk_proto %arg0, %arg1 : !thunky.buffer<1024>, !thunky.buffer<1024> name = "thunk" <thunk_proto = {
        collective_broadcast_thunk = {
          buffers = [
            {
              destination_buffer = {shape = tensor<256xi32, {is_dynamic_dimension = array<i1>}>, slice = {buffer_allocation_index = 1 : i64, element_type = "S32", size = 1024 : i64}},
              element_count = 256 : i64,
              source_buffer = {shape = tensor<256xi32, {is_dynamic_dimension = array<i1>}>, slice = {element_type = "S32", size = 1024 : i64}}
            }
          ],
          collective_config = {operand_element_type = ["S32"], replica_groups = [{replica_ids = array<i64: 0, 1>}, {replica_ids = array<i64: 2, 3>}]}
        }
      }, asm_text = "", binary = "", written = [false, true]> {thunky.info = #thunky.info<id = 1, "collective-broadcast.1">, thunky.thunk_kind = "collective_broadcast_thunk"}
    } <{is_communication = true}> : !thunky.token
    thunky.async_done %u : !thunky.token
    thunky.async_done %t : !thunky.token
    return
  }
}

// -----

// send
module attributes {thunky.executable = {buffer_allocations = {}, module_name = "jit_pipeline_stage", program_shape = {parameters = [tensor<2048xf32, {is_dynamic_dimension = array<i1>}>], result = {element_type = "TOKEN"}}}} {
  func.func @main(%x: !thunky.buffer<8>, %y: !thunky.buffer<8>, %arg0: !thunky.buffer<8192> {thunky.allocation = #thunky.allocation<index = 0, parameter 0, tensor<2048xf32, {is_dynamic_dimension = array<i1>}>>}) {
    // CHECK-LABEL: func.func @main(
    // CHECK: thunky.async_start stream = 2
    // CHECK-NEXT: thunky.call_thunk_proto
    // CHECK: thunky.async_done
    // CHECK-NEXT: thunky.async_done
    %t = thunky.async_start stream = 1 {
      thunky.all_reduce (%x), (%y) <reduction_kind = "sum", element_type = [f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>), (!thunky.buffer<8>)
    } <{is_communication = true}> : !thunky.token
    %u = thunky.async_start stream = 2 {
      thunky.call_thunk_proto %arg0 : !thunky.buffer<8192> name = "thunk" <thunk_proto = {
        send_thunk = {
          buffer = {
            destination_buffer = {shape = tensor<2048xf32, {is_dynamic_dimension = array<i1>}>, slice = {element_type = "F32", size = 8192 : i64}},
            element_count = 2048 : i64,
            source_buffer = {shape = tensor<2048xf32, {is_dynamic_dimension = array<i1>}>, slice = {element_type = "F32", size = 8192 : i64}}
          },
          collective_config = {group_mode = "COLLECTIVE_OP_GROUP_MODE_CROSS_PARTITION", operand_element_type = ["F32"]},
          instruction_name = "send.5",
          source_target_pairs = [{target = 1 : i64}, {source = 1 : i64, target = 2 : i64}]
        }
      }, asm_text = "", binary = "", written = [false]> {thunky.info = #thunky.info<id = 1, "send.5">, thunky.thunk_kind = "send_thunk"}
    } <{is_communication = true}> : !thunky.token
    thunky.async_done %u : !thunky.token
    thunky.async_done %t : !thunky.token
    return
  }
}

// -----

// recv
module attributes {thunky.executable = {buffer_allocations = {}, module_name = "jit_pipeline_stage"}} {
  func.func @main(%x: !thunky.buffer<8>, %y: !thunky.buffer<8>, %arg0: !thunky.buffer<8192> {thunky.allocation = #thunky.allocation<index = 0, output {}, tensor<2048xf32, {is_dynamic_dimension = array<i1>}>, live_out>}) {
    // CHECK-LABEL: func.func @main(
    // CHECK: thunky.async_start stream = 2
    // CHECK-NEXT: thunky.call_thunk_proto
    // CHECK: thunky.async_done
    // CHECK-NEXT: thunky.async_done
    %t = thunky.async_start stream = 1 {
      thunky.all_reduce (%x), (%y) <reduction_kind = "sum", element_type = [f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>), (!thunky.buffer<8>)
    } <{is_communication = true}> : !thunky.token
    %u = thunky.async_start stream = 2 {
      thunky.call_thunk_proto %arg0 : !thunky.buffer<8192> name = "thunk" <thunk_proto = {
        recv_thunk = {
          buffer = {
            destination_buffer = {shape = tensor<2048xf32, {is_dynamic_dimension = array<i1>}>, slice = {element_type = "F32", size = 8192 : i64}},
            element_count = 2048 : i64,
            source_buffer = {shape = tensor<2048xf32, {is_dynamic_dimension = array<i1>}>, slice = {element_type = "F32", size = 8192 : i64}}
          },
          collective_config = {group_mode = "COLLECTIVE_OP_GROUP_MODE_CROSS_PARTITION", operand_element_type = ["F32"]},
          instruction_name = "recv.6",
          source_target_pairs = [{target = 1 : i64}]
        }
      }, asm_text = "", binary = "", written = [true]> {thunky.info = #thunky.info<id = 1, "recv.6">, thunky.thunk_kind = "recv_thunk"}
    } <{is_communication = true}> : !thunky.token
    thunky.async_done %u : !thunky.token
    thunky.async_done %t : !thunky.token
    return
  }
}

// -----

// ragged all to all
module attributes {thunky.executable = {buffer_allocations = {}, module_name = "jit_ragged_all_to_all"}} {
  func.func @main(%x: !thunky.buffer<8>, %y: !thunky.buffer<8>, %arg0: !thunky.buffer<4096> {thunky.allocation = #thunky.allocation<index = 0, parameter 0, tensor<64x16xf32, {is_dynamic_dimension = array<i1>}>>}, %arg1: !thunky.buffer<32> {thunky.allocation = #thunky.allocation<index = 1, parameter 1, tensor<4xi64, {is_dynamic_dimension = array<i1>}>>}, %arg2: !thunky.buffer<32> {thunky.allocation = #thunky.allocation<index = 2, parameter 2, tensor<4xi64, {is_dynamic_dimension = array<i1>}>>}, %arg3: !thunky.buffer<32> {thunky.allocation = #thunky.allocation<index = 3, parameter 3, tensor<4xi64, {is_dynamic_dimension = array<i1>}>>}, %arg4: !thunky.buffer<32> {thunky.allocation = #thunky.allocation<index = 4, parameter 4, tensor<4xi64, {is_dynamic_dimension = array<i1>}>>}, %arg5: !thunky.buffer<4096> {thunky.allocation = #thunky.allocation<index = 5, output {}, tensor<64x16xf32, {is_dynamic_dimension = array<i1>}>, live_out>}) {
    // CHECK-LABEL: func.func @main(
    // CHECK: thunky.async_start stream = 2
    // CHECK-NEXT: thunky.call_thunk_proto
    // CHECK: thunky.async_done
    // CHECK-NEXT: thunky.async_done
    thunky.memzero %arg5 {thunky.info = #thunky.info<id = 1, "ragged-all-to-all.1">, thunky.thunk = {memzero_thunk = {dest_buffer = {shape = tensor<64x16xf32, {is_dynamic_dimension = array<i1>}>, slice = {element_type = "F32"}}}}} : <4096>
    %t = thunky.async_start stream = 1 {
      thunky.all_reduce (%x), (%y) <reduction_kind = "sum", element_type = [f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>), (!thunky.buffer<8>)
    } <{is_communication = true}> : !thunky.token
    %u = thunky.async_start stream = 2 {
      thunky.call_thunk_proto %arg0, %arg5, %arg1, %arg2, %arg3, %arg4 : !thunky.buffer<4096>, !thunky.buffer<4096>, !thunky.buffer<32>, !thunky.buffer<32>, !thunky.buffer<32>, !thunky.buffer<32> name = "thunk" <thunk_proto = {
        ragged_all_to_all_thunk = {
          buffers = [
            {
              destination_buffer = {shape = tensor<64x16xf32, {is_dynamic_dimension = array<i1>}>, slice = {buffer_allocation_index = 1 : i64, element_type = "F32", size = 4096 : i64}},
              element_count = 1024 : i64,
              source_buffer = {shape = tensor<64x16xf32, {is_dynamic_dimension = array<i1>}>, slice = {element_type = "F32", size = 4096 : i64}}
            },
            {
              destination_buffer = {shape = tensor<4xi64, {is_dynamic_dimension = array<i1>}>, slice = {buffer_allocation_index = 2 : i64, element_type = "S64", size = 32 : i64}},
              element_count = 4 : i64,
              source_buffer = {shape = tensor<4xi64, {is_dynamic_dimension = array<i1>}>, slice = {buffer_allocation_index = 2 : i64, element_type = "S64", size = 32 : i64}}
            },
            {
              destination_buffer = {shape = tensor<4xi64, {is_dynamic_dimension = array<i1>}>, slice = {buffer_allocation_index = 3 : i64, element_type = "S64", size = 32 : i64}},
              element_count = 4 : i64,
              source_buffer = {shape = tensor<4xi64, {is_dynamic_dimension = array<i1>}>, slice = {buffer_allocation_index = 3 : i64, element_type = "S64", size = 32 : i64}}
            },
            {
              destination_buffer = {shape = tensor<4xi64, {is_dynamic_dimension = array<i1>}>, slice = {buffer_allocation_index = 4 : i64, element_type = "S64", size = 32 : i64}},
              element_count = 4 : i64,
              source_buffer = {shape = tensor<4xi64, {is_dynamic_dimension = array<i1>}>, slice = {buffer_allocation_index = 4 : i64, element_type = "S64", size = 32 : i64}}
            },
            {
              destination_buffer = {shape = tensor<4xi64, {is_dynamic_dimension = array<i1>}>, slice = {buffer_allocation_index = 5 : i64, element_type = "S64", size = 32 : i64}},
              element_count = 4 : i64,
              source_buffer = {shape = tensor<4xi64, {is_dynamic_dimension = array<i1>}>, slice = {buffer_allocation_index = 5 : i64, element_type = "S64", size = 32 : i64}}
            }
          ],
          collective_config = {operand_element_type = ["F32", "S64", "S64", "S64", "S64"], replica_groups = [{replica_ids = array<i64: 0, 1, 2, 3>}]},
          collectives_mode = "COLLECTIVES_PRIVATE_MEMORY",
          num_input_rows = 64 : i64,
          num_row_elements = 16 : i64,
          num_total_updates = 4 : i64
        }
      }, asm_text = "", binary = "", written = [false, false, true, false, false, false]> {thunky.info = #thunky.info<id = 2, "ragged-all-to-all.1">, thunky.thunk_kind = "ragged_all_to_all_thunk"}
    } <{is_communication = true}> : !thunky.token
    thunky.async_done %u : !thunky.token
    thunky.async_done %t : !thunky.token
    return
  }
}

// -----

// collective kernel
module attributes {thunky.executable = {buffer_allocations = {}, gpu_compute_capability = {cuda_compute_capability = {major = 9 : i32}}, module_name = "jit_small_psum"}} {
  func.func @main(%x: !thunky.buffer<8>, %y: !thunky.buffer<8>, %arg0: !thunky.buffer<4096> {thunky.allocation = #thunky.allocation<index = 0, parameter 0, tensor<1024xf32, {is_dynamic_dimension = array<i1>}>>}, %arg1: !thunky.buffer<4096> {thunky.allocation = #thunky.allocation<index = 1, output {}, tensor<1024xf32, {is_dynamic_dimension = array<i1>}>, live_out>}) {
    // CHECK-LABEL: func.func @main(
    // CHECK: thunky.async_start stream = 2
    // CHECK-NEXT: thunky.call_thunk_proto
    // CHECK: thunky.async_done
    // CHECK-NEXT: thunky.async_done
    %t = thunky.async_start stream = 1 {
      thunky.all_reduce (%x), (%y) <reduction_kind = "sum", element_type = [f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>), (!thunky.buffer<8>)
    } <{is_communication = true}> : !thunky.token
    %u = thunky.async_start stream = 2 {
      thunky.call_thunk_proto %arg0, %arg1 : !thunky.buffer<4096>, !thunky.buffer<4096> name = "thunk" <thunk_proto = {
        collective_kernel_thunk = {
          buffers = [
            {
              destination_buffer = {shape = tensor<1024xf32, {is_dynamic_dimension = array<i1>}>, slice = {buffer_allocation_index = 1 : i64, element_type = "F32", size = 4096 : i64}},
              element_count = 1024 : i64,
              source_buffer = {shape = tensor<1024xf32, {is_dynamic_dimension = array<i1>}>, slice = {element_type = "F32", size = 4096 : i64}}
            }
          ],
          collective_config = {group_mode = "COLLECTIVE_OP_GROUP_MODE_FLATTENED_ID", operand_element_type = ["F32"], replica_groups = [{replica_ids = array<i64: 0, 1, 2, 3, 4, 5, 6, 7>}], use_symmetric_buffer = true},
          collective_kernel_enabled = true,
          kernel_name = "one_shot_all_reduce_f32_sum",
          kernel_spec = {
            argument_descriptors = [
              {type = "KERNEL_ARG_TYPE_INPUT_BUFFER"},
              {type = "KERNEL_ARG_TYPE_OUTPUT_BUFFER"},
              {type = "KERNEL_ARG_TYPE_RUNTIME_RANK"},
              {type = "KERNEL_ARG_TYPE_SCRATCH_BUFFER"},
              {type = "KERNEL_ARG_TYPE_INVOCATION_COUNT"}
            ],
            input_buffer_specs = [{symmetric_memory_type = "SYMMETRIC_MEMORY_TYPE_LOAD_STORE_ACCESSIBLE"}],
            invocation_count_increment = 1 : i32,
            output_buffer_specs = [{}],
            scratch_buffers = [{should_memzero = true, size_bytes = 32768 : i64, symmetric_memory_type = "SYMMETRIC_MEMORY_TYPE_XLA_RENDEZVOUS"}]
          },
          launch_dimensions = {block_counts = {coordinates = {x = 8 : i64, y = 1 : i64, z = 1 : i64}}, thread_counts_per_block = {coordinates = {x = 512 : i64, y = 1 : i64, z = 1 : i64}}},
          shmem_bytes = 1024 : i32
        }
      }, asm_text = "", binary = "", written = [false, true]> {thunky.info = #thunky.info<id = 1, "all-reduce.7">, thunky.thunk_kind = "collective_kernel_thunk"}
    } <{is_communication = true}> : !thunky.token
    thunky.async_done %u : !thunky.token
    thunky.async_done %t : !thunky.token
    return
  }
}
