// thunky-stats lists under the kernels each kernel whose launch carries
// thunky.hlo (thunky-translate --thunky-hlo-names), once however often it
// is launched, as HLO text names the instruction and what it calls; a
// launch without it is counted and not listed.
// RUN: thunky-opt --thunky-stats %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TEXT
// RUN: thunky-opt -p 'builtin.module(thunky-stats{json=true})' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON

// TEXT: kernels: 4
// TEXT-NEXT: loop_add_fusion_1: %loop_add_fusion.1, calls=%fused_add.1
// TEXT-NEXT: custom_call_kernel: %custom_call_kernel
// TEXT-NEXT: collectives:

// JSON: "constant_bytes": 0, "hlo": [{"kernel": "loop_add_fusion_1", "instruction": "loop_add_fusion.1", "computation": "fused_add.1"}, {"kernel": "custom_call_kernel", "instruction": "custom_call_kernel", "computation": null}]}

func.func @main(%a: !thunky.buffer<64>) {
  thunky.launch "loop_add_fusion_1"(%a : !thunky.buffer<64>) <grid = [1, 1, 1], block = [16, 1, 1], written = [true]> {thunky.hlo = {computation = "fused_add.1", instruction = "loop_add_fusion.1"}}
  thunky.launch "loop_add_fusion_1"(%a : !thunky.buffer<64>) <grid = [1, 1, 1], block = [16, 1, 1], written = [true]> {thunky.hlo = {computation = "fused_add.1", instruction = "loop_add_fusion.1"}}
  thunky.launch "custom_call_kernel"(%a : !thunky.buffer<64>) <grid = [1, 1, 1], block = [16, 1, 1], written = [true]> {thunky.hlo = {instruction = "custom_call_kernel"}}
  thunky.launch "plain"(%a : !thunky.buffer<64>) <grid = [1, 1, 1], block = [16, 1, 1], written = [true]>
  return
}
