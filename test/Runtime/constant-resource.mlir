// A constant held as a byte resource runs as one held as a string: its
// bytes reach the output.
// RUN: thunky-run %s --print | FileCheck %s
// CHECK: out0: u32[2] = [1, 1065353216]
module {
  func.func @main(%out: !thunky.buffer<8> {thunky.role = "output {}", thunky.shape = tensor<2xui32>}) {
    %c = thunky.constant <value = dense_resource<blob> : tensor<8xi8>, name = "buffer_for_constant_0"> : <8>
    thunky.copy %c, %out : <8>, <8>
    return
  }
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x01000000010000000000803F"
    }
  }
#-}
