// RUN: xmux-opt %s -p lower-work-group-collectives-nvptx | filecheck %s

// A work-group reduce: each warp's shfl.sync.down tree (live lanes only), lane 0 stores the
// warp's total in its slot; a barrier; warp 0 folds the nw slots with the same tree (lanes
// past nw read slot nw-1, never combined) and lane 0 stores slot 32; a barrier; everyone
// loads slot 32. Storage: one shared-memory global per element type, 32 + 32 slots.

func.func @k(%x: i32) -> i32 {
  %r = mux.work_group_reduce add %x : i32
  func.return %r : i32
}

// CHECK:      memref.global "private" @__mux_wg_nvptx_i32 : memref<1x64xi32, 3 : i64> = uninitialized {alignment = 64 : i64}
// CHECK:      func.func @k(%x: i32) -> i32 {
// CHECK-NEXT:   %lane = mux.get_sub_group_local_id : i32
// CHECK-NEXT:   %size = mux.get_sub_group_size : i32
// CHECK:        %mask = arith.select
// CHECK-NEXT:   %warp = mux.get_sub_group_id : i32
// CHECK-NEXT:   %warps = mux.get_num_sub_groups : i32
// CHECK-NEXT:   %scratch = memref.get_global @__mux_wg_nvptx_i32 : memref<1x64xi32, 3 : i64>
// CHECK-COUNT-5: llvm.call_intrinsic "llvm.nvvm.shfl.sync.down.i32"(%mask,
// CHECK:        %[[TOTAL:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %[[LANE0:.*]] = arith.cmpi eq, %lane, %[[ZERO]] : i32
// CHECK-NEXT:   scf.if %[[LANE0]] {
// CHECK-NEXT:     %[[ROW:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[SLOT:.*]] = arith.index_cast %warp : i32 to index
// CHECK-NEXT:     memref.store %[[TOTAL]], %scratch[%[[ROW]], %[[SLOT]]] : memref<1x64xi32, 3 : i64>
// CHECK-NEXT:   }
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   %[[WARP0:.*]] = arith.cmpi eq, %warp, %[[ZERO]] : i32
// CHECK-NEXT:   scf.if %[[WARP0]] {
// CHECK-NEXT:     %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:     %[[LAST:.*]] = arith.subi %warps, %[[ONE]] : i32
// CHECK-NEXT:     %[[FROM:.*]] = arith.minui %lane, %[[LAST]] : i32
// CHECK-NEXT:     %[[ROW:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[IDX:.*]] = arith.index_cast %[[FROM]] : i32 to index
// CHECK-NEXT:     %[[V:.*]] = memref.load %scratch[%[[ROW]], %[[IDX]]] : memref<1x64xi32, 3 : i64>
// CHECK-NEXT:     %[[O16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:     %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT:     %[[Y:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.down.i32"(%mask, %[[V]], %[[O16]], %[[C31]])
// CHECK-NEXT:     %[[SRC:.*]] = arith.addi %lane, %[[O16]] : i32
// CHECK-NEXT:     %[[OK:.*]] = arith.cmpi ult, %[[SRC]], %warps : i32
// CHECK-COUNT-4:  llvm.call_intrinsic "llvm.nvvm.shfl.sync.down.i32"(%mask,
// CHECK:          %[[GROUP:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:     %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:     %[[L0:.*]] = arith.cmpi eq, %lane, %[[Z]] : i32
// CHECK-NEXT:     scf.if %[[L0]] {
// CHECK-NEXT:       %[[R0:.*]] = arith.constant 0 : index
// CHECK-NEXT:       %[[R32:.*]] = arith.constant 32 : index
// CHECK-NEXT:       memref.store %[[GROUP]], %scratch[%[[R0]], %[[R32]]] : memref<1x64xi32, 3 : i64>
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   %[[R0:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[R32:.*]] = arith.constant 32 : index
// CHECK-NEXT:   %r = memref.load %scratch[%[[R0]], %[[R32]]] : memref<1x64xi32, 3 : i64>
// CHECK-NEXT:   func.return %r : i32
