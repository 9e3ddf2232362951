// RUN: thunky-opt --thunky-flatten-sequential --split-input-file %s | FileCheck %s
// Running it twice changes nothing the second time.
// RUN: thunky-opt --thunky-flatten-sequential --split-input-file %s > %t.once
// RUN: thunky-opt --thunky-flatten-sequential --split-input-file %t.once > %t.twice
// RUN: diff %t.once %t.twice

// Bodies are inlined in order, nested ones too, and nothing else moves.
// CHECK-LABEL: func.func @nested
// CHECK-NEXT: thunky.memzero %{{.*}} : <4>
// CHECK-NEXT: thunky.memset32 %{{.*}}, 1
// CHECK-NEXT: thunky.memset32 %{{.*}}, 2
// CHECK-NEXT: thunky.memset32 %{{.*}}, 3
// CHECK-NEXT: thunky.memset32 %{{.*}}, 4
// CHECK-NEXT: return
func.func @nested(%a: !thunky.buffer<4>) {
  thunky.memzero %a : <4>
  thunky.sequential {
    thunky.memset32 %a, 1 : <4>
    thunky.sequential {
      thunky.memset32 %a, 2 : <4>
      thunky.sequential {
        thunky.memset32 %a, 3 : <4>
      }
    }
    thunky.memset32 %a, 4 : <4>
  }
  return
}

// -----

// A sequential inside control flow is inlined into that region's block; a
// slice defined inside keeps dominating its uses.
// CHECK-LABEL: func.func @in_regions
// CHECK:      thunky.while %{{.*}} : <1> cond {
// CHECK-NEXT:   thunky.memzero %{{.*}} : <1>
// CHECK-NEXT: } body {
// CHECK-NEXT:   %[[S:.*]] = thunky.slice_buffer
// CHECK-NEXT:   thunky.memzero %[[S]]
// CHECK-NEXT: }
// CHECK-NOT: thunky.sequential
func.func @in_regions(%p: !thunky.buffer<1>, %a: !thunky.buffer<8>) {
  thunky.while %p : <1> cond {
    thunky.sequential {
      thunky.memzero %p : <1>
    }
  } body {
    thunky.sequential {
      %s = thunky.slice_buffer %a offset = 4 : <8> -> <4>
      thunky.memzero %s : <4>
    }
  }
  return
}

// -----

// An empty sequential simply disappears.
// CHECK-LABEL: func.func @empty
// CHECK-NEXT: return
func.func @empty() {
  thunky.sequential {
  }
  return
}
