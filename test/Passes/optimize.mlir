// thunky-optimize runs its five stages as one pass: the same module as the
// pipeline spelled out (which verifies after each pass), with or without
// verifying between its stages.
// RUN: thunky-opt --thunky-optimize %s | FileCheck %s
// RUN: thunky-opt --thunky-optimize %s > %t.one
// RUN: thunky-opt -p 'builtin.module(thunky-flatten-sequential,thunky-fold-slices,thunky-elide-copies,thunky-fold-slices,thunky-pack-scratch)' %s > %t.spelled
// RUN: diff %t.one %t.spelled
// RUN: thunky-opt -p 'builtin.module(thunky-optimize{verify-stages=true})' %s > %t.verified
// RUN: diff %t.one %t.verified
// It is one pass: MLIR's timing shows one row for it.
// RUN: thunky-opt --thunky-optimize --mlir-timing %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMING
// TIMING: ThunkyOptimize
// TIMING-NOT: ThunkyFoldSlices

// The sequential is inlined, the slice of a slice folds into one slice of
// %tmp, the copy into scratch is forwarded (its reader reads %src), and the
// two temporaries, whose lifetimes then no longer overlap, share 128 bytes.
// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[SRC:[^:]*]]: !thunky.buffer<128>, %[[OUT:[^:]*]]: !thunky.buffer<128>, %{{[^:]*}}: !thunky.buffer<128> {thunky.role = "scratch"}
// CHECK-NEXT: %[[B:.*]] = thunky.slice_buffer %{{.*}} offset = 0 : <128> -> <128>
// CHECK-NEXT: thunky.copy %[[SRC]], %[[OUT]]
// CHECK-NEXT: thunky.memset32 %[[B]], 1
// CHECK-NEXT: thunky.copy %[[B]], %[[OUT]]
// CHECK-NEXT: return
func.func @main(%src: !thunky.buffer<128>, %out: !thunky.buffer<128>, %tmp: !thunky.buffer<256> {thunky.role = "scratch"}) {
  %hi = thunky.slice_buffer %tmp offset = 128 : <256> -> <128>
  %a = thunky.slice_buffer %tmp offset = 0 : <256> -> <128>
  %b = thunky.slice_buffer %hi offset = 0 : <128> -> <128>
  thunky.sequential {
    thunky.copy %src, %a : <128>, <128>
    thunky.copy %a, %out : <128>, <128>
  }
  thunky.memset32 %b, 1 : <128>
  thunky.copy %b, %out : <128>, <128>
  return
}
