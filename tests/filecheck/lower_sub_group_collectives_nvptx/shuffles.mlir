// RUN: xmux-opt %s -p lower-sub-group-collectives-nvptx | filecheck %s

// broadcast, shuffle and shuffle_xor: one shfl.sync.idx from the source lane when it is a
// live lane (< the warp's size), else from the own lane. shuffle_up / shuffle_down: the
// index i = lane -/+ delta in i64 (no wrap), one shfl.sync.idx for each operand, a select.

func.func @k(%v: i32, %w: i32, %k: i32) -> (i32, i32, i32, i32, i32) {
  %a = mux.sub_group_broadcast %v, %k : i32
  %b = mux.sub_group_shuffle %v, %k : i32
  %c = mux.sub_group_shuffle_xor %v, %k : i32
  %d = mux.sub_group_shuffle_up %w, %v, %k : i32
  %e = mux.sub_group_shuffle_down %v, %w, %k : i32
  func.return %a, %b, %c, %d, %e : i32, i32, i32, i32, i32
}

// CHECK:      %mask = arith.select
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi ult, %k, %size : i32
// CHECK-NEXT: %[[SRC:.*]] = arith.select %[[IN]], %k, %lane : i32
// CHECK-NEXT: %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT: %a = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%mask, %v, %[[SRC]], %[[C31]]) : (i32, i32, i32, i32) -> i32

// CHECK:      %mask_1 = arith.select
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi ult, %k, %size_1 : i32
// CHECK-NEXT: %[[SRC:.*]] = arith.select %[[IN]], %k, %lane_1 : i32
// CHECK-NEXT: %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT: %b = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%mask_1, %v, %[[SRC]], %[[C31]])

// CHECK:      %mask_2 = arith.select
// CHECK-NEXT: %[[X:.*]] = arith.xori %lane_2, %k : i32
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[X]], %size_2 : i32
// CHECK-NEXT: %[[SRC:.*]] = arith.select %[[IN]], %[[X]], %lane_2 : i32
// CHECK-NEXT: %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT: %c = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%mask_2, %v, %[[SRC]], %[[C31]])

// CHECK:      %mask_3 = arith.select
// CHECK-NEXT: %[[L:.*]] = arith.extui %lane_3 : i32 to i64
// CHECK-NEXT: %[[W:.*]] = arith.constant 32 : i64
// CHECK-NEXT: %[[D:.*]] = arith.extsi %k : i32 to i64
// CHECK-NEXT: %[[I:.*]] = arith.subi %[[L]], %[[D]] : i64
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[NEG:.*]] = arith.cmpi slt, %[[I]], %[[Z]] : i64
// CHECK-NEXT: %[[IP:.*]] = arith.addi %[[I]], %[[W]] : i64
// CHECK-NEXT: %[[S:.*]] = arith.extui %size_3 : i32 to i64
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[I]], %[[S]] : i64
// CHECK-NEXT: %[[I32:.*]] = arith.trunci %[[I]] : i64 to i32
// CHECK-NEXT: %[[SRC:.*]] = arith.select %[[IN]], %[[I32]], %lane_3 : i32
// CHECK-NEXT: %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT: %[[CURR:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%mask_3, %v, %[[SRC]], %[[C31]])
// CHECK-NEXT: %[[INP:.*]] = arith.cmpi ult, %[[IP]], %[[S]] : i64
// CHECK-NEXT: %[[OKP:.*]] = arith.andi %[[NEG]], %[[INP]] : i1
// CHECK-NEXT: %[[IP32:.*]] = arith.trunci %[[IP]] : i64 to i32
// CHECK-NEXT: %[[SRCP:.*]] = arith.select %[[OKP]], %[[IP32]], %lane_3 : i32
// CHECK-NEXT: %[[PREV:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%mask_3, %w, %[[SRCP]], %[[C31]])
// CHECK-NEXT: %d = arith.select %[[IN]], %[[CURR]], %[[PREV]] : i32

// CHECK:      %mask_4 = arith.select
// CHECK-NEXT: %[[L:.*]] = arith.extui %lane_4 : i32 to i64
// CHECK-NEXT: %[[W:.*]] = arith.constant 32 : i64
// CHECK-NEXT: %[[D:.*]] = arith.extui %k : i32 to i64
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[L]], %[[D]] : i64
// CHECK-NEXT: %[[ABOVE:.*]] = arith.cmpi uge, %[[I]], %[[W]] : i64
// CHECK-NEXT: %[[IN2:.*]] = arith.subi %[[I]], %[[W]] : i64
// CHECK-NEXT: %[[S:.*]] = arith.extui %size_4 : i32 to i64
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[I]], %[[S]] : i64
// CHECK-NEXT: %[[I32:.*]] = arith.trunci %[[I]] : i64 to i32
// CHECK-NEXT: %[[SRC:.*]] = arith.select %[[IN]], %[[I32]], %lane_4 : i32
// CHECK-NEXT: %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT: %[[CURR:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%mask_4, %v, %[[SRC]], %[[C31]])
// CHECK-NEXT: %[[INN:.*]] = arith.cmpi ult, %[[IN2]], %[[S]] : i64
// CHECK-NEXT: %[[OKN:.*]] = arith.andi %[[ABOVE]], %[[INN]] : i1
// CHECK-NEXT: %[[IN32:.*]] = arith.trunci %[[IN2]] : i64 to i32
// CHECK-NEXT: %[[SRCN:.*]] = arith.select %[[OKN]], %[[IN32]], %lane_4 : i32
// CHECK-NEXT: %[[NEXT:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%mask_4, %w, %[[SRCN]], %[[C31]])
// CHECK-NEXT: %e = arith.select %[[IN]], %[[CURR]], %[[NEXT]] : i32
// CHECK-NEXT: func.return %a, %b, %c, %d, %e : i32, i32, i32, i32, i32
