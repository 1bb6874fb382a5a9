// RUN: xmux-opt %s -p lower-sub-group-collectives-nvptx | filecheck %s

// A sub-group reduce: a full warp (32 live lanes) runs a butterfly over all lanes; a partial
// warp a shfl.sync.down tree that combines only live lanes, then lane 0's total to all.

func.func @k(%x: i32) -> i32 {
  %r = mux.sub_group_reduce add %x : i32
  func.return %r : i32
}

// CHECK:      func.func @k(%x: i32) -> i32 {
// CHECK-NEXT:   %lane = mux.get_sub_group_local_id : i32
// CHECK-NEXT:   %size = mux.get_sub_group_size : i32
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   %[[SHL:.*]] = arith.shli %[[ONE]], %size : i32
// CHECK-NEXT:   %[[LOW:.*]] = arith.subi %[[SHL]], %[[ONE]] : i32
// CHECK-NEXT:   %[[C32:.*]] = arith.constant 32 : i32
// CHECK-NEXT:   %[[FULL:.*]] = arith.cmpi eq, %size, %[[C32]] : i32
// CHECK-NEXT:   %[[ALL:.*]] = arith.constant -1 : i32
// CHECK-NEXT:   %mask = arith.select %[[FULL]], %[[ALL]], %[[LOW]] : i32
// CHECK-NEXT:   %[[IS_FULL:.*]] = arith.cmpi eq, %size, %[[C32]] : i32
// CHECK-NEXT:   %r = scf.if %[[IS_FULL]] -> (i32) {
// CHECK-NEXT:     %[[EVERY:.*]] = arith.constant -1 : i32
// CHECK-NEXT:     %[[O16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:     %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT:     %[[Y16:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"(%[[EVERY]], %x, %[[O16]], %[[C31]]) : (i32, i32, i32, i32) -> i32
// CHECK-NEXT:     %[[A16:.*]] = arith.addi %x, %[[Y16]] : i32
// CHECK-NEXT:     %[[O8:.*]] = arith.constant 8 : i32
// CHECK-NEXT:     %[[Y8:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"(%[[EVERY]], %[[A16]], %[[O8]], %[[C31]])
// CHECK-NEXT:     %[[A8:.*]] = arith.addi %[[A16]], %[[Y8]] : i32
// CHECK-NEXT:     %[[O4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:     %[[Y4:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"(%[[EVERY]], %[[A8]], %[[O4]], %[[C31]])
// CHECK-NEXT:     %[[A4:.*]] = arith.addi %[[A8]], %[[Y4]] : i32
// CHECK-NEXT:     %[[O2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:     %[[Y2:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"(%[[EVERY]], %[[A4]], %[[O2]], %[[C31]])
// CHECK-NEXT:     %[[A2:.*]] = arith.addi %[[A4]], %[[Y2]] : i32
// CHECK-NEXT:     %[[O1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:     %[[Y1:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"(%[[EVERY]], %[[A2]], %[[O1]], %[[C31]])
// CHECK-NEXT:     %[[A1:.*]] = arith.addi %[[A2]], %[[Y1]] : i32
// CHECK-NEXT:     scf.yield %[[A1]] : i32
// CHECK-NEXT:   } else {
// CHECK-NEXT:     %[[D16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:     %[[D31:.*]] = arith.constant 31 : i32
// CHECK-NEXT:     %[[Z16:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.down.i32"(%mask, %x, %[[D16]], %[[D31]]) : (i32, i32, i32, i32) -> i32
// CHECK-NEXT:     %[[SRC:.*]] = arith.addi %lane, %[[D16]] : i32
// CHECK-NEXT:     %[[LIVE:.*]] = arith.cmpi ult, %[[SRC]], %size : i32
// CHECK-NEXT:     %[[S16:.*]] = arith.addi %x, %[[Z16]] : i32
// CHECK-NEXT:     %{{.*}} = arith.select %[[LIVE]], %[[S16]], %x : i32
// CHECK-COUNT-4:  llvm.call_intrinsic "llvm.nvvm.shfl.sync.down.i32"(%mask,
// CHECK:          %[[TOTAL:.*]] = arith.select %{{.*}} : i32
// CHECK-NEXT:     %[[LANE0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:     %[[B:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%mask, %[[TOTAL]], %[[LANE0]], %[[D31]])
// CHECK-NEXT:     scf.yield %[[B]] : i32
// CHECK-NEXT:   }
// CHECK-NEXT:   func.return %r : i32
