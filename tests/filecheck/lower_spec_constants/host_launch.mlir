// REQUIRES: host-runs-target
// RUN: xmux-opt %s -p 'lower-spec-constants{mode=emulated}' | filecheck %s
// RUN: xmux-opt %s -p 'lower-spec-constants{mode=emulated},convert-mux-launch' | filecheck %s --check-prefix=LOWERED

// Host code (xmux-run's @main) sets no values: in emulated mode its launches of a kernel that
// takes the buffer pass the address of a constant global holding the default blob (aligned
// like the runtime's buffers).

spec.specialization_id @a = 1.5 : f32

// CHECK:      spec.default_values "0x0000C03F"
// CHECK-NEXT: llvm.mlir.global internal constant @xmux.spec_constants.defaults(dense<[0, 0, -64, 63]> : tensor<4xi8>) {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<4 x i8>
// CHECK:      func.func @k(%x: memref<?xf32>, %spec_buffer: !llvm.ptr)
// CHECK-LABEL: func.func @main
// CHECK:        %[[P:.*]] = llvm.mlir.addressof @xmux.spec_constants.defaults : !llvm.ptr
// CHECK-NEXT:   mux.launch @k(%m, %[[P]]) global_size(%c1) local_size(%c1) : (memref<?xf32>, !llvm.ptr)
// LOWERED-LABEL: func.func @main
// LOWERED-NOT:   mux.launch
// LOWERED:       func.call @xmux_launch
func.func @k(%x: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %v = spec.get_scalar "a", @a : f32
  memref.store %v, %x[%c0] : memref<?xf32>
  func.return
}
func.func @main() {
  %c1 = arith.constant 1 : index
  %m = memref.alloc(%c1) : memref<?xf32>
  mux.launch @k(%m) global_size(%c1) local_size(%c1) : (memref<?xf32>)
  func.return
}
