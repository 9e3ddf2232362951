// The fixture of docs/lit-fixtures.md, with its RUN lines: it runs,
// prints, compares same with itself and different after a bad edit.
// RUN: thunky-run --seed 1 %s --print | FileCheck %s
// CHECK: out0: f32[4] =
// RUN: thunky-run %s --compare %s | FileCheck %s --check-prefix=SAME
// SAME: same: 1 output(s) on 1 rank(s), bit for bit
// RUN: sed 's/memset32 %%out, 0/memset32 %%out, 1/' %s > %t.bad.mlir
// RUN: not thunky-run %s --compare %t.bad.mlir | FileCheck %s --check-prefix=BAD
// BAD: different: output 0 (f32[4])
module {
  func.func @main(%x: !thunky.buffer<16> {thunky.role = "parameter 0", thunky.shape = tensor<4xf32>},
                  %out: !thunky.buffer<16> {thunky.role = "output {}", thunky.shape = tensor<4xf32>},
                  %tmp: !thunky.buffer<16> {thunky.role = "scratch"}) {
    thunky.copy %x, %tmp : <16>, <16>
    thunky.memset32 %out, 0 : <16>
    %half = thunky.slice_buffer %out offset = 0 : <16> -> <8>
    %low = thunky.slice_buffer %tmp offset = 0 : <16> -> <8>
    thunky.copy %low, %half : <8>, <8>
    return
  }
}
