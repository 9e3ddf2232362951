// thunky-stats counts thunks by kind, and apart the ops that are no thunk,
// and changes nothing; json=true prints one object, and
// the option is kept in the pipeline (crash reproducers, --dump-pass-pipeline).
// RUN: thunky-opt --thunky-stats %s -o %t.mlir 2>&1 | FileCheck %s --check-prefix=TEXT
// RUN: thunky-opt %s | diff - %t.mlir
// RUN: thunky-opt -p 'builtin.module(thunky-stats{json=true})' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON
// RUN: thunky-opt -p 'builtin.module(thunky-stats{json=true})' --dump-pass-pipeline %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE
// output=FILE writes the same report there, and nothing on stderr.
// RUN: thunky-opt -p 'builtin.module(thunky-stats{json=true output=%t.json})' %s -o /dev/null 2> %t.err
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: count 0 < %t.err

// TEXT: thunky-stats:
// TEXT-NEXT: thunks: 7
// TEXT-NEXT: memzero 1
// TEXT-NEXT: memset32 1
// TEXT-NEXT: copy 1
// TEXT-NEXT: ptx_kernel 1
// TEXT-NEXT: while 1
// TEXT-NEXT: all_reduce 1
// TEXT-NEXT: all_gather 1
// TEXT-NEXT: other ops: 2
// TEXT-NEXT: slice_buffer 1
// TEXT-NEXT: constant 1
// TEXT-NEXT: bytes set: 96, copied: 4
// TEXT-NEXT: kernels: 1
// TEXT-NEXT: collectives: 2 (128 bytes sent)
// TEXT-NEXT: arguments: 3 (196 bytes, 4 scratch)
// TEXT-NEXT: constants: 1 (4 bytes)

// JSON: {"thunk_ops": {"memzero": 1, "memset32": 1, "copy": 1, "ptx_kernel": 1, "while": 1, "all_reduce": 1, "all_gather": 1}, "other_ops": {"slice_buffer": 1, "constant": 1}, "thunks": 7, "bytes_set": 96, "bytes_copied": 4, "kernels": 1, "collectives": 2, "bytes_communicated": 128, "arguments": 3, "argument_bytes": 196, "scratch_bytes": 4, "constants": 1, "constant_bytes": 4}

// PIPE: thunky-stats{json=true output=}

func.func @main(%a: !thunky.buffer<64>, %b: !thunky.buffer<128>,
                %scratch: !thunky.buffer<4> {thunky.role = "scratch"}) {
  %c = thunky.constant <value = "abcd"> : <4>
  thunky.copy %c, %scratch : <4>, <4>
  %s = thunky.slice_buffer %b offset = 0 : <128> -> <32>
  thunky.memzero %s : <32>
  thunky.while %scratch : <4> cond {
    thunky.memset32 %a, 0 : <64>
  } body {
    thunky.ptx_kernel %a : !thunky.buffer<64> name = "k" <ptx = "", grid_dim = [1, 1, 1], block_dim = [1, 1, 1], written = [true], shmem_bytes = 0>
  }
  thunky.all_reduce %a, %a <reduction_kind = "sum", element_type = f32, replica_groups = [], group_mode = "cross_replica"> : <64>, <64>
  thunky.all_gather %a, %b <element_type = f32, replica_groups = [], group_mode = "cross_replica"> : <64>, <128>
  return
}
