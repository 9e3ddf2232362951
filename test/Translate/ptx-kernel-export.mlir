// As upstream, a thunky.ptx_kernel exports as a CustomKernelThunk holding
// its PTX; import keeps that thunk whole (call_thunk_proto), and from there
// the module is a fixed point.
// RUN: thunky-translate --export-thunky %s -o %t.pb
// RUN: %decode_exe < %t.pb | FileCheck %s --check-prefix=PROTO
// RUN: thunky-translate --import-thunky %t.pb > %t.1.mlir
// RUN: FileCheck %s --check-prefix=MLIR < %t.1.mlir
// RUN: thunky-translate --export-thunky %t.1.mlir | thunky-translate --import-thunky > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir

// PROTO: custom_kernel_thunk {
// PROTO-NEXT: args {
// PROTO-NEXT: slice {
// PROTO-NEXT: size: 64
// PROTO: written: true
// PROTO: custom_kernel {
// PROTO-NEXT: name: "my_kernel"
// PROTO-NEXT: kernel_spec {
// PROTO-NEXT: ptx {
// PROTO-NEXT: data: ".entry my_kernel"
// PROTO: arity: 1
// PROTO-NEXT: kernel_name: "my_kernel"
// PROTO: block_dims {
// PROTO-NEXT: coordinates {
// PROTO-NEXT: x: 1
// PROTO-NEXT: y: 2
// PROTO-NEXT: z: 3
// PROTO: thread_dims {
// PROTO-NEXT: coordinates {
// PROTO-NEXT: x: 32
// PROTO: shared_memory_bytes: 16

// MLIR: thunky.launch "my_kernel"(%arg0 : !thunky.buffer<64>)
func.func @main(%arg0: !thunky.buffer<64>) {
  thunky.ptx_kernel %arg0 : !thunky.buffer<64> name = "my_kernel" <ptx = ".entry my_kernel", grid_dim = [1, 2, 3], block_dim = [32, 1, 1], written = [true], shmem_bytes = 16>
  return
}
