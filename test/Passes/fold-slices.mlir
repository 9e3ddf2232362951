// RUN: thunky-opt --thunky-fold-slices --split-input-file %s | FileCheck %s
// Running it twice changes nothing the second time.
// RUN: thunky-opt --thunky-fold-slices --split-input-file %s > %t.once
// RUN: thunky-opt --thunky-fold-slices --split-input-file %t.once > %t.twice
// RUN: diff %t.once %t.twice

// A slice of a slice becomes one slice of the root.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[A:.*]]: !thunky.buffer<128>)
// CHECK-NEXT: %[[S:.*]] = thunky.slice_buffer %[[A]] offset = 48 : <128> -> <16>
// CHECK-NEXT: thunky.memzero %[[S]] : <16>
func.func @chain(%a: !thunky.buffer<128>) {
  %0 = thunky.slice_buffer %a offset = 32 : <128> -> <64>
  %1 = thunky.slice_buffer %0 offset = 8 : <64> -> <32>
  %2 = thunky.slice_buffer %1 offset = 8 : <32> -> <16>
  thunky.memzero %2 : <16>
  return
}

// -----

// A slice of a whole buffer is the buffer.
// CHECK-LABEL: func.func @whole
// CHECK-SAME: (%[[A:.*]]: !thunky.buffer<64>)
// CHECK-NEXT: thunky.memzero %[[A]] : <64>
// CHECK-NEXT: return
func.func @whole(%a: !thunky.buffer<64>) {
  %0 = thunky.slice_buffer %a offset = 0 : <64> -> <64>
  thunky.memzero %0 : <64>
  return
}

// -----

// Identical slices merge, and slices used inside regions move next to their
// buffer, so that the regions share them.
// CHECK-LABEL: func.func @shared
// CHECK-SAME: (%[[P:.*]]: !thunky.buffer<1>, %[[A:.*]]: !thunky.buffer<64>)
// CHECK-NEXT: %[[S:.*]] = thunky.slice_buffer %[[A]] offset = 16 : <64> -> <16>
// CHECK-NEXT: %[[T:.*]] = thunky.slice_buffer %[[A]] offset = 0 : <64> -> <16>
// CHECK-NEXT: thunky.memzero %[[S]]
// CHECK-NEXT: thunky.cond %[[P]] : <1> {
// CHECK-NEXT:   thunky.memset32 %[[S]], 1
// CHECK-NEXT: }, {
// CHECK-NEXT:   thunky.memset32 %[[T]], 2
// CHECK-NEXT:   thunky.memset32 %[[S]], 3
// CHECK-NEXT: }
func.func @shared(%p: !thunky.buffer<1>, %a: !thunky.buffer<64>) {
  %0 = thunky.slice_buffer %a offset = 16 : <64> -> <16>
  thunky.memzero %0 : <16>
  thunky.cond %p : <1> {
    %1 = thunky.slice_buffer %a offset = 16 : <64> -> <16>
    thunky.memset32 %1, 1 : <16>
  }, {
    %2 = thunky.slice_buffer %a offset = 0 : <64> -> <16>
    thunky.memset32 %2, 2 : <16>
    %3 = thunky.slice_buffer %a offset = 16 : <64> -> <16>
    thunky.memset32 %3, 3 : <16>
  }
  return
}

// -----

// Different sizes at one offset are different slices; a constant's slices
// go right after the constant.
// CHECK-LABEL: func.func @distinct
// CHECK-NEXT: %[[C:.*]] = thunky.constant
// CHECK-NEXT: %[[X:.*]] = thunky.slice_buffer %[[C]] offset = 0 : <8> -> <4>
// CHECK-NEXT: %[[Y:.*]] = thunky.slice_buffer %[[C]] offset = 0 : <8> -> <2>
// CHECK-NEXT: thunky.memzero
// CHECK-NEXT: thunky.copy %[[X]]
// CHECK-NEXT: thunky.copy %[[Y]]
func.func @distinct(%a: !thunky.buffer<4>, %b: !thunky.buffer<2>) {
  %c = thunky.constant <value = "abcdefgh"> : <8>
  thunky.memzero %a : <4>
  %x = thunky.slice_buffer %c offset = 0 : <8> -> <4>
  thunky.copy %x, %a : <4>, <4>
  %y = thunky.slice_buffer %c offset = 0 : <8> -> <2>
  thunky.copy %y, %b : <2>, <2>
  return
}
