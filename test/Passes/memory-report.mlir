// thunky-memory-report on a module whose peak is worked out by hand below;
// it changes nothing, and json=true gives the same figures with the live
// bytes at every thunk.
// RUN: thunky-opt --thunky-memory-report %s -o %t.mlir 2>&1 | FileCheck %s
// RUN: thunky-opt %s | diff - %t.mlir
// RUN: thunky-opt -p 'builtin.module(thunky-memory-report{json=true})' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON

// Thunks, depth first (slices and the constant are none):
//   0 memzero %a            1 memset32 %b          2 while (3, 4 in it)
//   5 async_start (6 in it) 7 memzero %out         8 async_done
//   9 copy %c -> %out
// An entry-block op is one step over its thunks, so what the loop touches
// is used at 2-4, and the async region's bytes at 5-6 and at its done, 8.
//
// Allocations and their live thunks:
//   %p    64  parameter: from the start to the end          0-9
//   %out  128 only an output: from its first use to the end 7-9
//   %tmp  1024 scratch, per group of overlapping slices:
//         [0, 256)    %a: 0, async 5-6, done 8               0-8
//         [256, 640)  %b [256, 512) + %b2 [384, 640): 1, 2-4 1-4
//         [768, 1024) %d: 2-4                                2-4
//         ([640, 768) is never sliced, so never live)
//   %idle 32  scratch nothing uses                          never
//   %c    4   constant: the whole program                   0-9
//
// Live bytes per thunk:
//   0: 64 + 4 + 256                  = 324
//   1: 324 + 384                     = 708
//   2-4: 708 + 256 (%d)              = 964   <- the peak, first at thunk 2
//   5-6: 964 - 384 - 256             = 324
//   7-8: 324 + 128 (%out)            = 452
//   9: 452 - 256 (%a ended at 8)     = 196

// CHECK: thunky-memory-report: 10 thunks, 5 allocations (1252 bytes)
// CHECK-NEXT: argument 0 (parameter 0, tensor<16xf32>): 64 bytes, used 2-4, live 0-9
// CHECK-NEXT: argument 1 (output {}, tensor<32xf32>): 128 bytes, used 7-9, live 7-9
// CHECK-NEXT: argument 2 (scratch): 1024 bytes, used 0-8, live in 3 groups of slices
// CHECK-NEXT: argument 3 (scratch): 32 bytes, unused, never live
// CHECK-NEXT: constant 0: 4 bytes, used 9-9, live 0-9
// CHECK-NEXT: peak: 964 bytes at thunk 2 (while.3, id 7): while
// CHECK-NEXT: argument 2 bytes [256, 640) (scratch): 384 bytes, live 1-4
// CHECK-NEXT: argument 2 bytes [0, 256) (scratch): 256 bytes, live 0-8
// CHECK-NEXT: argument 2 bytes [768, 1024) (scratch): 256 bytes, live 2-4
// CHECK-NEXT: argument 0 (parameter 0, tensor<16xf32>): 64 bytes, live 0-9
// CHECK-NEXT: constant 0: 4 bytes, live 0-9
// CHECK-NOT: {{.}}

// JSON: {"thunks": 10, "allocations": [
// JSON-SAME: {"name": "argument 2", "role": "scratch", "shape": null, "bytes": 1024, "first_use": 0, "last_use": 8, "groups": [{"offset": 0, "bytes": 256, "live_from": 0, "live_to": 8}, {"offset": 256, "bytes": 384, "live_from": 1, "live_to": 4}, {"offset": 768, "bytes": 256, "live_from": 2, "live_to": 4}]}
// JSON-SAME: {"name": "argument 3", "role": "scratch", "shape": null, "bytes": 32, "first_use": null, "last_use": null, "groups": []}
// JSON-SAME: "peak": {"bytes": 964, "thunk": 2, "name": "thunk 2 (while.3, id 7)", "op": "while", "kernel_name": null, "location": "loc(unknown)", "live": [
// JSON-SAME: "live_bytes": [324, 708, 964, 964, 964, 324, 324, 452, 452, 196]}

func.func @main(%p: !thunky.buffer<64> {thunky.role = "parameter 0", thunky.shape = tensor<16xf32>},
                %out: !thunky.buffer<128> {thunky.role = "output {}", thunky.shape = tensor<32xf32>},
                %tmp: !thunky.buffer<1024> {thunky.role = "scratch"},
                %idle: !thunky.buffer<32> {thunky.role = "scratch"}) {
  %c = thunky.constant <value = "abcd"> : <4>
  %pred = thunky.slice_buffer %p offset = 0 : <64> -> <1>
  %a = thunky.slice_buffer %tmp offset = 0 : <1024> -> <256>
  %b = thunky.slice_buffer %tmp offset = 256 : <1024> -> <256>
  %b2 = thunky.slice_buffer %tmp offset = 384 : <1024> -> <256>
  %d = thunky.slice_buffer %tmp offset = 768 : <1024> -> <256>
  %o4 = thunky.slice_buffer %out offset = 0 : <128> -> <4>
  thunky.memzero %a : <256>
  thunky.memset32 %b, 1 : <256>
  thunky.while %pred : <1> cond {
  } body {
    thunky.memzero %b2 : <256>
    thunky.memzero %d : <256>
  } loc("thunk 7 while.3")
  %t = thunky.async_start stream = 1 {
    thunky.all_reduce %a, %a <reduction_kind = "sum", element_type = f32, replica_groups = [], group_mode = "cross_replica"> : <256>, <256>
  } : !thunky.token
  thunky.memzero %out : <128>
  thunky.async_done %t : !thunky.token
  thunky.copy %c, %o4 : <4>, <4>
  return
}
