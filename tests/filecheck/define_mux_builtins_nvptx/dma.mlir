// RUN: xmux-opt %s -p define-mux-builtins-nvptx | filecheck %s

// A DMA copy is shared by the work-group: each work-item copies the elements local linear
// id, + work-group size, ...; the wait is a work-group barrier (every work-item reaches it, as
// OpenCL's wait_group_events).

func.func @k(%src: memref<?xf32>, %dst: memref<64xf32, 3>, %n: index)
    attributes {mux.kernel = "entry_point"} {
  %e = mux.dma_read_1d %dst, %src width(%n) : memref<64xf32, 3>, memref<?xf32>
  mux.dma_wait %e
  func.return
}

// CHECK-LABEL: func.func @k(
// CHECK:         llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ntid.z"
// CHECK:         arith.muli
// CHECK-NEXT:    arith.addi
// CHECK-NEXT:    arith.muli
// CHECK-NEXT:    %[[LLID:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:    %[[S01:.*]] = arith.muli %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:    %[[SIZE:.*]] = arith.muli %[[S01]], %{{.*}} : i64
// CHECK:         %[[FIRST:.*]] = arith.index_cast %[[LLID]] : i64 to index
// CHECK-NEXT:    %[[STEP:.*]] = arith.index_cast %[[SIZE]] : i64 to index
// CHECK:         scf.for %[[I:.*]] = %[[FIRST]] to %{{.*}} step %[[STEP]] {
// CHECK-NEXT:      %[[V:.*]] = memref.load %src[%[[I]]] : memref<?xf32>
// CHECK-NEXT:      memref.store %[[V]], %dst[%[[I]]] : memref<64xf32, 3 : i64>
// CHECK:         llvm.call_intrinsic "llvm.nvvm.barrier0"() : () -> ()
// CHECK-NEXT:    func.return
