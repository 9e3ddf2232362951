// svg=<path> writes the plot of live bytes over the thunks: one SVG
// document with labelled axes, the line and the peak marked; a module with
// no name and no executable's name has none in the title. The path is
// kept in the pipeline (crash reproducers, --dump-pass-pipeline).
// RUN: rm -f %t.svg
// RUN: thunky-opt -p 'builtin.module(thunky-memory-report{svg=%t.svg})' %s -o /dev/null 2>/dev/null
// RUN: FileCheck %s < %t.svg
// RUN: %python -c "import sys, xml.dom.minidom as m; m.parse(sys.argv[1]); print('well formed')" %t.svg | FileCheck %s --check-prefix=XML
// RUN: thunky-opt -p 'builtin.module(thunky-memory-report{svg=%t.svg})' --dump-pass-pipeline %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE

// CHECK: <svg xmlns="http://www.w3.org/2000/svg"
// CHECK: <text class="title" x="100" y="24" font-size="16">live bytes over 3 thunks</text>
// CHECK: >0 KiB</text>
// CHECK: >1 KiB</text>
// CHECK: >thunk</text>
// CHECK: >live bytes</text>
// CHECK: <polyline {{.*}} points="{{[0-9., ]+}}"/>
// CHECK: <circle
// CHECK-SAME: peak 3.0 KiB at thunk 1</text>
// CHECK: </svg>

// XML: well formed

// PIPE: thunky-memory-report{json=false output= svg={{.*}}memory-report-svg.mlir.tmp.svg}

// Live bytes: 1024, then 3072, then 2048 (the first slice ends at 1).
func.func @main(%tmp: !thunky.buffer<4096> {thunky.role = "scratch"}) {
  %a = thunky.slice_buffer %tmp offset = 0 : <4096> -> <1024>
  %b = thunky.slice_buffer %tmp offset = 2048 : <4096> -> <2048>
  %b1 = thunky.slice_buffer %tmp offset = 2048 : <4096> -> <1024>
  thunky.memzero %a : <1024>
  thunky.copy %a, %b1 : <1024>, <1024>
  thunky.memzero %b : <2048>
  return
}
