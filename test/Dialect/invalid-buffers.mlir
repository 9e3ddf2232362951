// RUN: thunky-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{buffer size must be >= 0, got -4}}
func.func @negative_buffer_size(%arg0: !thunky.buffer<-4>) {
  return
}

// -----

func.func @slice_negative_offset(%arg0: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.slice_buffer' op offset must be >= 0, got -4}}
  %0 = thunky.slice_buffer %arg0 offset = -4 : <16> -> <4>
  return
}

// -----

func.func @slice_out_of_bounds(%arg0: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.slice_buffer' op slice of 16 bytes at offset 8 is out of bounds of its 16-byte parent}}
  %0 = thunky.slice_buffer %arg0 offset = 8 : <16> -> <16>
  return
}

// -----

func.func @slice_offset_past_end(%arg0: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.slice_buffer' op slice of 0 bytes at offset 20 is out of bounds of its 16-byte parent}}
  %0 = thunky.slice_buffer %arg0 offset = 20 : <16> -> <0>
  return
}

// -----

func.func @memset32_size_not_multiple_of_4(%arg0: !thunky.buffer<10>) {
  // expected-error @+1 {{'thunky.memset32' op buffer size 10 is not a multiple of 4}}
  thunky.memset32 %arg0, 0 : <10>
  return
}

// -----

func.func @copy_size_mismatch(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<8>) {
  // expected-error @+1 {{'thunky.copy' op source and destination sizes differ: 16 vs 8 bytes}}
  thunky.copy %arg0, %arg1 : <16>, <8>
  return
}

// -----

func.func @constant_value_too_short() -> !thunky.buffer<8> {
  // expected-error @+1 {{'thunky.constant' op value holds 4 bytes but the result buffer has 8}}
  %0 = thunky.constant <{value = "\00\01\02\03"}> : <8>
  return %0 : !thunky.buffer<8>
}

// -----

func.func @constant_value_too_long() -> !thunky.buffer<2> {
  // expected-error @+1 {{'thunky.constant' op value holds 3 bytes but the result buffer has 2}}
  %0 = thunky.constant <value = "abc"> : <2>
  return %0 : !thunky.buffer<2>
}

// -----

// Sizes near the int64 limit are reported without overflowing.
func.func @slice_huge(%arg0: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.slice_buffer' op slice of 9223372036854775807 bytes at offset 8 is out of bounds of its 16-byte parent}}
  %0 = thunky.slice_buffer %arg0 offset = 8 : <16> -> <9223372036854775807>
  return
}

// -----

func.func @constant_resource_too_short() -> !thunky.buffer<8> {
  // expected-error @+1 {{'thunky.constant' op value holds 4 bytes but the result buffer has 8}}
  %0 = thunky.constant <value = dense_resource<blob> : tensor<4xi8>> : <8>
  return %0 : !thunky.buffer<8>
}

// -----

func.func @constant_resource_not_bytes() -> !thunky.buffer<8> {
  // expected-error @+1 {{'thunky.constant' op value must be a string or a byte resource (tensor<Nxi8>)}}
  %0 = thunky.constant <value = dense_resource<blob> : tensor<2xi32>> : <8>
  return %0 : !thunky.buffer<8>
}

// -----

func.func @constant_value_integer() -> !thunky.buffer<8> {
  // expected-error @+1 {{'thunky.constant' op value must be a string or a byte resource (tensor<Nxi8>)}}
  %0 = thunky.constant <value = 8 : i64> : <8>
  return %0 : !thunky.buffer<8>
}
