// RUN: xmux-opt %s -p lower-work-group-collectives-nvptx | filecheck %s

// A work-group reduce whose value every work-item reads (it is returned): each warp's
// shfl.sync.down tree (a full warp, (linear id | 31) < group size: constant mask -1, no guards; the last, partial warp:
// its lane mask, the p form clamped at its last lane), lane 0 stores the warp's total in
// its slot; a barrier; warp 0, when there are several warps (so it is full), folds the nw
// slots under mask -1 (lanes past nw-1 read slot nw-1, kept out by the clamp); lane 0 of
// warp 0 stores slot 32; a barrier; everyone loads slot 32. Storage: one shared-memory
// global per element type, 32 + 32 slots.

func.func @k(%x: i32) -> i32 {
  %r = mux.work_group_reduce add %x : i32
  func.return %r : i32
}

// CHECK:      memref.global "private" @__mux_wg_nvptx_i32 : memref<1x64xi32, 3 : i64> = uninitialized {alignment = 64 : i64}
// CHECK:      func.func @k(%x: i32) -> i32 {
// CHECK-NEXT:   %lane = mux.get_sub_group_local_id : i32
// CHECK-NEXT:   %size = mux.get_sub_group_size : i32
// CHECK-NEXT:   %warp = mux.get_sub_group_id : i32
// CHECK-NEXT:   %warps = mux.get_num_sub_groups : i32
// CHECK-NEXT:   %scratch = memref.get_global @__mux_wg_nvptx_i32 : memref<1x64xi32, 3 : i64>
// CHECK-NEXT:   %[[LLID:.*]] = mux.get_local_linear_id : index
// CHECK-NEXT:   %[[LLID32:.*]] = arith.index_cast %[[LLID]] : index to i32
// CHECK-NEXT:   %[[NX:.*]] = mux.get_local_size 0 : index
// CHECK-NEXT:   %[[NY:.*]] = mux.get_local_size 1 : index
// CHECK-NEXT:   %[[NZ:.*]] = mux.get_local_size 2 : index
// CHECK-NEXT:   %[[NXY:.*]] = arith.muli %[[NX]], %[[NY]] : index
// CHECK-NEXT:   %[[N:.*]] = arith.muli %[[NXY]], %[[NZ]] : index
// CHECK-NEXT:   %group_size = arith.index_cast %[[N]] : index to i32
// CHECK-NEXT:   %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT:   %warp_last = arith.ori %[[LLID32]], %[[C31]] : i32
// CHECK-NEXT:   %full = arith.cmpi ult, %warp_last, %group_size : i32
// CHECK-NEXT:   %warp_total = scf.if %full -> (i32) {
// CHECK-NEXT:     %[[ALL:.*]] = arith.constant -1 : i32
// CHECK-NEXT:     %[[O16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:     %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT:     %[[Y:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.down.i32"(%[[ALL]], %x, %[[O16]], %[[C31]])
// CHECK-NEXT:     %[[S:.*]] = arith.addi %x, %[[Y]] : i32
// CHECK-COUNT-4:  llvm.call_intrinsic "llvm.nvvm.shfl.sync.down.i32"(%[[ALL]],
// CHECK-NOT:      arith.select
// CHECK:          scf.yield
// CHECK-NEXT:   } else {
// CHECK:          %mask = arith.select
// CHECK-NEXT:     %last = arith.subi %size, %{{.*}} : i32
// CHECK-NEXT:     %[[P16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:     %[[PAIR:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.down.i32p"(%mask, %x, %[[P16]], %last) : (i32, i32, i32, i32) -> !llvm.struct<(i32, i1)>
// CHECK-NEXT:     %[[V:.*]] = llvm.extractvalue %[[PAIR]][0] : !llvm.struct<(i32, i1)>
// CHECK-NEXT:     %[[OK:.*]] = llvm.extractvalue %[[PAIR]][1] : !llvm.struct<(i32, i1)>
// CHECK-NEXT:     %[[SUM:.*]] = arith.addi %x, %[[V]] : i32
// CHECK-NEXT:     %{{.*}} = arith.select %[[OK]], %[[SUM]], %x : i32
// CHECK-COUNT-4:  llvm.call_intrinsic "llvm.nvvm.shfl.sync.down.i32p"(%mask,
// CHECK:          scf.yield
// CHECK-NEXT:   }
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %[[LANE0:.*]] = arith.cmpi eq, %lane, %[[ZERO]] : i32
// CHECK-NEXT:   scf.if %[[LANE0]] {
// CHECK-NEXT:     %[[ROW:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[SLOT:.*]] = arith.index_cast %warp : i32 to index
// CHECK-NEXT:     memref.store %warp_total, %scratch[%[[ROW]], %[[SLOT]]] : memref<1x64xi32, 3 : i64>
// CHECK-NEXT:   }
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   %[[SEVERAL:.*]] = arith.cmpi ugt, %warps, %[[ONE]] : i32
// CHECK-NEXT:   %[[WARP0:.*]] = arith.cmpi eq, %warp, %[[ZERO]] : i32
// CHECK-NEXT:   %[[FOLD:.*]] = arith.andi %[[WARP0]], %[[SEVERAL]] : i1
// CHECK-NEXT:   %group_total = scf.if %[[FOLD]] -> (i32) {
// CHECK-NEXT:     %[[ONE2:.*]] = arith.constant 1 : i32
// CHECK-NEXT:     %last_warp = arith.subi %warps, %[[ONE2]] : i32
// CHECK-NEXT:     %[[FROM:.*]] = arith.minui %lane, %last_warp : i32
// CHECK-NEXT:     %[[ROW:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[IDX:.*]] = arith.index_cast %[[FROM]] : i32 to index
// CHECK-NEXT:     %[[W:.*]] = memref.load %scratch[%[[ROW]], %[[IDX]]] : memref<1x64xi32, 3 : i64>
// CHECK-NEXT:     %[[ALL:.*]] = arith.constant -1 : i32
// CHECK-NEXT:     %[[O16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:     llvm.call_intrinsic "llvm.nvvm.shfl.sync.down.i32p"(%[[ALL]], %[[W]], %[[O16]], %last_warp)
// CHECK-COUNT-4:  llvm.call_intrinsic "llvm.nvvm.shfl.sync.down.i32p"(%[[ALL]],
// CHECK:          scf.yield
// CHECK-NEXT:   } else {
// CHECK-NEXT:     scf.yield %warp_total : i32
// CHECK-NEXT:   }
// CHECK-NEXT:   %[[W0:.*]] = arith.cmpi eq, %warp, %[[ZERO]] : i32
// CHECK-NEXT:   %[[L0:.*]] = arith.cmpi eq, %lane, %[[ZERO]] : i32
// CHECK-NEXT:   %[[FIRST:.*]] = arith.andi %[[W0]], %[[L0]] : i1
// CHECK-NEXT:   scf.if %[[FIRST]] {
// CHECK-NEXT:     %[[R0:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[R32:.*]] = arith.constant 32 : index
// CHECK-NEXT:     memref.store %group_total, %scratch[%[[R0]], %[[R32]]] : memref<1x64xi32, 3 : i64>
// CHECK-NEXT:   }
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   %[[R0:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[R32:.*]] = arith.constant 32 : index
// CHECK-NEXT:   %r = memref.load %scratch[%[[R0]], %[[R32]]] : memref<1x64xi32, 3 : i64>
// CHECK-NEXT:   func.return %r : i32
