// The plot's axes tick at round steps that do not crowd: bytes in 2 to 4
// steps of 1, 2 or 5 times a power of ten of B, KiB, MiB or GiB (a step
// that would be a fraction of the peak's unit is taken in the unit below),
// thunks in at most 10 steps of a round whole number. Checked at 1 thunk,
// at 100,000 (where the plot stays 1000 columns) and on the 3 GiB module
// below; Inputs/memory_report_check.py checks the labels are round, cover
// the peak and the thunks, and do not overlap. The title names the
// module, escaped for XML.
// RUN: rm -rf %t && mkdir -p %t
// RUN: thunky-opt -p 'builtin.module(thunky-memory-report{json=true svg=%t/gib.svg})' %s -o /dev/null 2> %t/gib.json
// RUN: %python %S/Inputs/memory_report_check.py %t/gib.json %t/gib.svg | FileCheck %s --check-prefix=GIB
// RUN: %python %S/Inputs/memzero_module.py 1 '"step<1>&co"' > %t/one.mlir
// RUN: thunky-opt -p 'builtin.module(thunky-memory-report{json=true svg=%t/one.svg})' %t/one.mlir -o /dev/null 2> %t/one.json
// RUN: %python %S/Inputs/memory_report_check.py %t/one.json %t/one.svg | FileCheck %s --check-prefix=ONE
// RUN: FileCheck %s --check-prefix=ONE-TITLE < %t/one.svg
// RUN: %python -c "import sys, xml.dom.minidom as m; m.parse(sys.argv[1]); print('well formed')" %t/one.svg | FileCheck %s --check-prefix=XML
// RUN: %python %S/Inputs/memzero_module.py 100000 > %t/many.mlir
// RUN: thunky-opt -p 'builtin.module(thunky-memory-report{json=true svg=%t/many.svg})' %t/many.mlir -o /dev/null 2> %t/many.json
// RUN: %python %S/Inputs/memory_report_check.py %t/many.json %t/many.svg | FileCheck %s --check-prefix=MANY

// GIB: consistent: 1 thunks, peak 3221225476 bytes at thunk 0 (memzero), 2 live there, 1 columns
// GIB: ticks: 0 GiB, 1 GiB, 2 GiB, 3 GiB, 4 GiB; thunks 0

// ONE: consistent: 1 thunks, peak 1280 bytes at thunk 0 (memzero), 2 live there, 1 columns
// ONE: ticks: 0 B, 500 B, 1000 B, 1500 B; thunks 0
// ONE-TITLE: <text class="title" {{.*}}>step&lt;1&gt;&amp;co: live bytes over 1 thunk</text>
// XML: well formed

// MANY: consistent: 100000 thunks, peak 1280 bytes at thunk 0 (memzero), 2 live there, 1000 columns
// MANY: ticks: 0 B, 500 B, 1000 B, 1500 B; thunks 0 10000 20000 30000 40000 50000 60000 70000 80000 90000

func.func @main(%w: !thunky.buffer<3221225472> {thunky.role = "parameter 0"},
                %out: !thunky.buffer<4> {thunky.role = "output {}"}) {
  thunky.memzero %out : <4>
  return
}
