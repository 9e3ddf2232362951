// A malformed thunky.arg_shapes is refused at its launch, with what is wrong.
// RUN: thunky-translate --export-thunky --split-input-file --verify-diagnostics %s -o /dev/null

func.func @main(%a: !thunky.buffer<16> {thunky.role = "parameter 0"}) {
  // expected-error @+1 {{thunky.arg_shapes must be an array of one static tensor type per operand}}
  thunky.launch "k"(%a : !thunky.buffer<16>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]> {thunky.arg_shapes = [tensor<4xf32>, tensor<4xf32>]}
  return
}

// -----

func.func @main(%a: !thunky.buffer<16> {thunky.role = "parameter 0"}) {
  // expected-error @+1 {{arg 0: thunky.arg_shapes must be an array of one static tensor type per operand}}
  thunky.launch "k"(%a : !thunky.buffer<16>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]> {thunky.arg_shapes = [tensor<?xf32>]}
  return
}

// -----

func.func @main(%a: !thunky.buffer<16> {thunky.role = "parameter 0"}) {
  // expected-error @+1 {{arg 0: thunky.arg_shapes must be an array of one static tensor type per operand}}
  thunky.launch "k"(%a : !thunky.buffer<16>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]> {thunky.arg_shapes = ["f32"]}
  return
}

// -----

func.func @main(%a: !thunky.buffer<16> {thunky.role = "parameter 0"}) {
  // expected-error @+1 {{arg 0: thunky.arg_shapes must be an array of one static tensor type per operand, with an encoding of at most {minor_to_major = array<i64: ...>, is_dynamic_dimension = array<i1: ...>, untyped_slice} (minor_to_major a permutation of the dimensions, one flag per dimension)}}
  thunky.launch "k"(%a : !thunky.buffer<16>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]> {thunky.arg_shapes = [tensor<2x2xf32, {minor_to_major = array<i64: 1, 1>}>]}
  return
}

// -----

func.func @main(%a: !thunky.buffer<16> {thunky.role = "parameter 0"}) {
  // expected-error @+1 {{arg 0: thunky.arg_shapes must be an array}}
  thunky.launch "k"(%a : !thunky.buffer<16>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]> {thunky.arg_shapes = [tensor<4xf32, {tiles = []}>]}
  return
}

// -----

func.func @main(%a: !thunky.buffer<16> {thunky.role = "parameter 0"}) {
  // expected-error @+1 {{arg 0: thunky.arg_shapes must be an array}}
  thunky.launch "k"(%a : !thunky.buffer<16>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]> {thunky.arg_shapes = [tensor<4xf32, {is_dynamic_dimension = array<i1: false, false>}>]}
  return
}

// -----

func.func @main(%a: !thunky.buffer<16> {thunky.role = "parameter 0"}) {
  // expected-error @+1 {{a shape's element type has no XLA equivalent}}
  thunky.launch "k"(%a : !thunky.buffer<16>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]> {thunky.arg_shapes = [tensor<4xindex>]}
  return
}

// -----

func.func @main(%a: !thunky.buffer<16> {thunky.role = "parameter 0"}) {
  // expected-error @+1 {{thunky.arg_shapes and thunky.thunk both give the args' shapes}}
  thunky.launch "k"(%a : !thunky.buffer<16>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]> {thunky.arg_shapes = [tensor<4xf32>], thunky.thunk = {kernel_thunk = {args_shape = [{element_type = "F32"}]}}}
  return
}

// -----

func.func @main(%a: !thunky.buffer<16> {thunky.role = "parameter 0"}) {
  // expected-error @+1 {{thunky.arg_shapes and thunky.thunk both give the shape of arg 0}}
  thunky.launch "k"(%a : !thunky.buffer<16>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]> {thunky.arg_shapes = [tensor<4xf32>], thunky.thunk = {kernel_thunk = {args = [{element_type = "F32"}]}}}
  return
}
