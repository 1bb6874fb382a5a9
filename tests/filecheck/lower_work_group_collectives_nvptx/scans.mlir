// RUN: xmux-opt %s -p lower-work-group-collectives-nvptx | filecheck %s

// Work-group scans: each warp's Kogge-Stone scan; the warp's last live lane stores the
// warp's total; a barrier; warp 0 scans the totals and lane l < nw-1 stores the prefix of
// warps 0..l at slot 33 + l; a barrier; warp w > 0 folds slot 32 + w (the prefix of the
// warps before it) with its own scan. Exclusive: the own scan moved up a lane (before the
// branch: every lane of the warp shuffles), lane 0 of warp w > 0 gets the prefix itself.

func.func @incl(%x: f64) -> f64 {
  %a = mux.work_group_scan_inclusive fadd %x : f64
  func.return %a : f64
}

// CHECK-LABEL: func.func @incl(%x: f64) -> f64 {
// CHECK-COUNT-10: llvm.call_intrinsic "llvm.nvvm.shfl.sync.up.i32"(%mask,
// CHECK:          %[[INCL:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f64
// CHECK:          %[[LASTLANE:.*]] = arith.subi %size, %{{.*}} : i32
// CHECK-NEXT:     %[[IS_LAST:.*]] = arith.cmpi eq, %lane, %[[LASTLANE]] : i32
// CHECK-NEXT:     scf.if %[[IS_LAST]] {
// CHECK:            memref.store %[[INCL]], %scratch[%{{.*}}, %{{.*}}] : memref<1x64xf64, 3 : i64>
// CHECK:          mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:     %[[W0:.*]] = arith.cmpi eq, %warp, %{{.*}} : i32
// CHECK-NEXT:     scf.if %[[W0]] {
// CHECK:            memref.load %scratch
// CHECK-COUNT-10:   llvm.call_intrinsic "llvm.nvvm.shfl.sync.up.i32"(%mask,
// CHECK:            %[[TOTALS:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:       %[[NEXT:.*]] = arith.addi %lane, %{{.*}} : i32
// CHECK-NEXT:       %[[STORE:.*]] = arith.cmpi ult, %[[NEXT]], %warps : i32
// CHECK-NEXT:       %[[C32:.*]] = arith.constant 32 : i32
// CHECK-NEXT:       %[[SLOT:.*]] = arith.addi %[[NEXT]], %[[C32]] : i32
// CHECK-NEXT:       scf.if %[[STORE]] {
// CHECK:              memref.store %[[TOTALS]], %scratch
// CHECK:          mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:     %[[FIRST:.*]] = arith.cmpi eq, %warp, %{{.*}} : i32
// CHECK-NEXT:     %a = scf.if %[[FIRST]] -> (f64) {
// CHECK-NEXT:       scf.yield %[[INCL]] : f64
// CHECK-NEXT:     } else {
// CHECK-NEXT:       %[[C32:.*]] = arith.constant 32 : i32
// CHECK-NEXT:       %[[PSLOT:.*]] = arith.addi %warp, %[[C32]] : i32
// CHECK-NEXT:       %[[R0:.*]] = arith.constant 0 : index
// CHECK-NEXT:       %[[PI:.*]] = arith.index_cast %[[PSLOT]] : i32 to index
// CHECK-NEXT:       %[[P:.*]] = memref.load %scratch[%[[R0]], %[[PI]]] : memref<1x64xf64, 3 : i64>
// CHECK-NEXT:       %[[F:.*]] = arith.addf %[[P]], %[[INCL]] : f64
// CHECK-NEXT:       scf.yield %[[F]] : f64
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %a : f64

func.func @excl(%x: i32) -> i32 {
  %b = mux.work_group_scan_exclusive umin %x : i32
  func.return %b : i32
}

// CHECK-LABEL: func.func @excl(%x: i32) -> i32 {
// CHECK-COUNT-5:  llvm.call_intrinsic "llvm.nvvm.shfl.sync.up.i32"(%mask,
// CHECK:          %[[INCL:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK:          mux.work_group_barrier
// CHECK:          scf.if
// CHECK:          %[[UP:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.up.i32"(%mask, %[[INCL]], %{{.*}}, %{{.*}})
// CHECK-NEXT:     %[[L0:.*]] = arith.cmpi eq, %lane, %{{.*}} : i32
// CHECK-NEXT:     %[[ID:.*]] = arith.constant -1 : i32
// CHECK-NEXT:     %[[OWN:.*]] = arith.select %[[L0]], %[[ID]], %[[UP]] : i32
// CHECK-NEXT:     mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:     %[[FIRST:.*]] = arith.cmpi eq, %warp, %{{.*}} : i32
// CHECK-NEXT:     %b = scf.if %[[FIRST]] -> (i32) {
// CHECK-NEXT:       scf.yield %[[OWN]] : i32
// CHECK-NEXT:     } else {
// CHECK:            %[[P:.*]] = memref.load %scratch
// CHECK-NEXT:       %[[F:.*]] = arith.minui %[[P]], %[[OWN]] : i32
// CHECK-NEXT:       %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:       %[[IS0:.*]] = arith.cmpi eq, %lane, %[[Z]] : i32
// CHECK-NEXT:       %[[R:.*]] = arith.select %[[IS0]], %[[P]], %[[F]] : i32
// CHECK-NEXT:       scf.yield %[[R]] : i32
// CHECK-NEXT:     }
