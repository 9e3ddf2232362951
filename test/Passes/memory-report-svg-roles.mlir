// The plot stacks live bytes by what holds them, and its legend gives each
// kind's bytes at the peak; the title names the module (module @name,
// before the executable's module_name). Worked out by hand:
//
// Thunks: 0 memzero %a   1 memzero %tl   2 copy %a1 -> %b
//         3 copy %b -> %o   4 memzero %tl
// Live the whole program (1712 bytes): %p 1024 (parameters), %q 512
// (aliased outputs: a parameter that is also an output), %n 128 (no role),
// %x 16 (other roles: "weird"), the constant 32 (constants).
// From first use to the end: %o 1024 (outputs), 3-4.
// From first to last use: %tl 64 (thread-local scratch), 1-4; of %tmp
// (scratch) the group [0, 2048) of %a and %a1, 0-2, and [2048, 3072) of
// %b, 2-3.
//
// Live bytes: 3760, 3824, 4848, 3824, 2800. The peak, 4848 at thunk 2, is
// parameters 1024 + aliased outputs 512 + no role 128 + other roles 16 +
// constants 32 + outputs 0 + scratch 3072 + thread-local scratch 64.
//
// The byte axis goes to 6 KiB (three steps of 2 KiB), so y = 440 - 390 *
// bytes / 6144 over x from 100 to 950, 170 a thunk. The top band's edge is
// the total; the constants' band is 32 bytes high at every thunk.
// RUN: rm -rf %t && mkdir -p %t
// RUN: thunky-opt -p 'builtin.module(thunky-memory-report{json=true svg=%t/r.svg})' %s -o /dev/null 2> %t/r.json
// RUN: FileCheck %s < %t/r.svg
// RUN: %python %S/Inputs/memory_report_check.py %t/r.json %t/r.svg | FileCheck %s --check-prefix=CONSISTENT

// CHECK: <text class="title" {{.*}}>tiny_step: live bytes over 5 thunks</text>
// CHECK-NEXT: <path class="band" data-holds="thread-local scratch" {{.*}} d="M100 440.0 V201.3 H270.0 V197.3 H440.0 V132.3 H610.0 V197.3 H780.0 V262.3 H950.0 V440.0 Z"/>
// CHECK-NEXT: <path class="band" data-holds="scratch"
// CHECK-NEXT: <path class="band" data-holds="outputs"
// CHECK-NEXT: <path class="band" data-holds="other roles"
// CHECK-NEXT: <path class="band" data-holds="no role"
// CHECK-NEXT: <path class="band" data-holds="aliased outputs"
// CHECK-NEXT: <path class="band" data-holds="parameters"
// CHECK-NEXT: <path class="band" data-holds="constants" {{.*}} d="M100 440.0 V438.0 H950.0 V440.0 Z"/>
// CHECK: >0 KiB</text>
// CHECK: >2 KiB</text>
// CHECK: >4 KiB</text>
// CHECK: >6 KiB</text>
// CHECK: peak 4.7 KiB at thunk 2</text>
// CHECK-NEXT: at the peak (thunk 2):
// CHECK-NEXT: data-peak-bytes="64">{{.*}}>thread-local scratch: 64 bytes</text></g>
// CHECK-NEXT: data-peak-bytes="3072">{{.*}}>scratch: 3.0 KiB</text></g>
// CHECK-NEXT: data-peak-bytes="0">{{.*}}>outputs: 0 bytes</text></g>
// CHECK-NEXT: data-peak-bytes="16">{{.*}}>other roles: 16 bytes</text></g>
// CHECK-NEXT: data-peak-bytes="128">{{.*}}>no role: 128 bytes</text></g>
// CHECK-NEXT: data-peak-bytes="512">{{.*}}>aliased outputs: 512 bytes</text></g>
// CHECK-NEXT: data-peak-bytes="1024">{{.*}}>parameters: 1.0 KiB</text></g>
// CHECK-NEXT: data-peak-bytes="32">{{.*}}>constants: 32 bytes</text></g>
// CHECK-NEXT: </svg>

// CONSISTENT: consistent: 5 thunks, peak 4848 bytes at thunk 2 (copy), 8 live there, 5 columns
// CONSISTENT-NEXT: legend: aliased outputs 512, constants 32, no role 128, other roles 16, outputs 0, parameters 1024, scratch 3072, thread-local scratch 64
// CONSISTENT-NEXT: ticks: 0 KiB, 2 KiB, 4 KiB, 6 KiB; thunks 0 1 2 3 4

module @tiny_step attributes {thunky.executable = {module_name = "jit_not_this_name"}} {
func.func @main(%p: !thunky.buffer<1024> {thunky.role = "parameter 0"},
                %q: !thunky.buffer<512> {thunky.role = "parameter 1, output {0}"},
                %o: !thunky.buffer<1024> {thunky.role = "output {1}"},
                %tmp: !thunky.buffer<4096> {thunky.role = "scratch"},
                %tl: !thunky.buffer<64> {thunky.role = "thread-local scratch"},
                %n: !thunky.buffer<128>,
                %x: !thunky.buffer<16> {thunky.role = "weird"}) {
  %c = thunky.constant <value = "0123456789abcdef0123456789abcdef"> : <32>
  %a = thunky.slice_buffer %tmp offset = 0 : <4096> -> <2048>
  %a1 = thunky.slice_buffer %tmp offset = 0 : <4096> -> <1024>
  %b = thunky.slice_buffer %tmp offset = 2048 : <4096> -> <1024>
  thunky.memzero %a : <2048>
  thunky.memzero %tl : <64>
  thunky.copy %a1, %b : <1024>, <1024>
  thunky.copy %b, %o : <1024>, <1024>
  thunky.memzero %tl : <64>
  return
}
}
