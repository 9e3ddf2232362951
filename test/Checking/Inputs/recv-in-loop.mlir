// The ring of send-recv-ring.textproto with its recv in a loop whose
// predicate a kernel computes: on symbols the loop is a function, and
// which runs of the recv happen is not known (send-recv.test).
module attributes {thunky.executable = {buffer_allocations = {}, module_name = "jit_pipeline_stage"}} {
  func.func @main(%arg0: !thunky.buffer<8192> {thunky.allocation = #thunky.allocation<index = 0, parameter 0, tensor<2048xf32, {is_dynamic_dimension = array<i1>}>>}, %arg1: !thunky.buffer<8192> {thunky.allocation = #thunky.allocation<index = 1, output {}, tensor<2048xf32, {is_dynamic_dimension = array<i1>}>, live_out>}, %arg2: !thunky.buffer<8192> {thunky.allocation = #thunky.allocation<index = 2, scratch>}) {
    thunky.call_thunk_proto %arg0, %arg2 : !thunky.buffer<8192>, !thunky.buffer<8192> name = "thunk" <thunk_proto = {
      copy_thunk = {
        destination_buffer = {shape = tensor<2048xf32, {is_dynamic_dimension = array<i1>}>, slice = {buffer_allocation_index = 1 : i64, element_type = "F32", size = 8192 : i64}},
        mem_size = 8192 : i64,
        source_buffer = {shape = tensor<2048xf32, {is_dynamic_dimension = array<i1>}>, slice = {element_type = "F32", size = 8192 : i64}}
      }
    }, asm_text = "", binary = "", written = [false, true]> {thunky.info = #thunky.info<id = 1, "copy.1">, thunky.thunk_kind = "copy_thunk"}
    thunky.call_thunk_proto %arg2 : !thunky.buffer<8192> name = "thunk" <thunk_proto = {
      send_thunk = {
        buffer = {
          destination_buffer = {shape = tensor<2048xf32, {is_dynamic_dimension = array<i1>}>, slice = {element_type = "F32", size = 8192 : i64}},
          element_count = 2048 : i64,
          source_buffer = {shape = tensor<2048xf32, {is_dynamic_dimension = array<i1>}>, slice = {element_type = "F32", size = 8192 : i64}}
        },
        collective_config = {group_mode = "COLLECTIVE_OP_GROUP_MODE_CROSS_PARTITION", operand_element_type = ["F32"]},
        instruction_name = "send.2",
        source_target_pairs = [{source = 0 : i64, target = 1 : i64}, {source = 1 : i64, target = 2 : i64}, {source = 2 : i64, target = 3 : i64}, {source = 3 : i64, target = 0 : i64}]
      }
    }, asm_text = "", binary = "", written = [true]> {thunky.info = #thunky.info<id = 2, "send.2">, thunky.thunk_kind = "send_thunk"}
    %p = thunky.slice_buffer %arg2 offset = 0 : !thunky.buffer<8192> -> !thunky.buffer<1>
    thunky.while %p : !thunky.buffer<1> cond {
      thunky.launch "keep_going"(%p : !thunky.buffer<1>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]>
    } body {
      thunky.call_thunk_proto %arg1 : !thunky.buffer<8192> name = "thunk" <thunk_proto = {
        recv_thunk = {
          buffer = {
            destination_buffer = {shape = tensor<2048xf32, {is_dynamic_dimension = array<i1>}>, slice = {element_type = "F32", size = 8192 : i64}},
            element_count = 2048 : i64,
            source_buffer = {shape = tensor<2048xf32, {is_dynamic_dimension = array<i1>}>, slice = {element_type = "F32", size = 8192 : i64}}
          },
          collective_config = {group_mode = "COLLECTIVE_OP_GROUP_MODE_CROSS_PARTITION", operand_element_type = ["F32"]},
          instruction_name = "recv.3",
          source_target_pairs = [{source = 3 : i64, target = 0 : i64}, {source = 0 : i64, target = 1 : i64}, {source = 1 : i64, target = 2 : i64}, {source = 2 : i64, target = 3 : i64}]
        }
      }, asm_text = "", binary = "", written = [true]> {thunky.info = #thunky.info<id = 3, "recv.3">, thunky.thunk_kind = "recv_thunk"}
    }
    return
  }
}
