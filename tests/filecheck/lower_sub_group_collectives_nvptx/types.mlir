// RUN: xmux-opt %s -p lower-sub-group-collectives-nvptx | filecheck %s

// Values travel as 32-bit words: f64 and index (as i64) as two halves (two shuffles), i8 and
// f16 widened to i32, i128 as four words.

func.func @k(%a: f64, %b: i8, %c: index, %d: f16, %e: i128, %k: i32) -> (f64, i8, index, f16, i128) {
  %ra = mux.sub_group_shuffle %a, %k : f64
  %rb = mux.sub_group_shuffle %b, %k : i8
  %rc = mux.sub_group_shuffle %c, %k : index
  %rd = mux.sub_group_shuffle %d, %k : f16
  %re = mux.sub_group_shuffle %e, %k : i128
  func.return %ra, %rb, %rc, %rd, %re : f64, i8, index, f16, i128
}

// CHECK:      %[[SRC:.*]] = arith.select %{{.*}}, %k, %lane : i32
// CHECK-NEXT: %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT: %[[BITS:.*]] = arith.bitcast %a : f64 to i64
// CHECK-NEXT: %[[LO:.*]] = arith.trunci %[[BITS]] : i64 to i32
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : i64
// CHECK-NEXT: %[[SH:.*]] = arith.shrui %[[BITS]], %[[C32]] : i64
// CHECK-NEXT: %[[HI:.*]] = arith.trunci %[[SH]] : i64 to i32
// CHECK-NEXT: %[[LO2:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%mask, %[[LO]], %[[SRC]], %[[C31]])
// CHECK-NEXT: %[[HI2:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%mask, %[[HI]], %[[SRC]], %[[C31]])
// CHECK-NEXT: %[[LO64:.*]] = arith.extui %[[LO2]] : i32 to i64
// CHECK-NEXT: %[[S32:.*]] = arith.constant 32 : i64
// CHECK-NEXT: %[[HI64:.*]] = arith.extui %[[HI2]] : i32 to i64
// CHECK-NEXT: %[[HIS:.*]] = arith.shli %[[HI64]], %[[S32]] : i64
// CHECK-NEXT: %[[ALL:.*]] = arith.ori %[[LO64]], %[[HIS]] : i64
// CHECK-NEXT: %ra = arith.bitcast %[[ALL]] : i64 to f64

// CHECK:      %[[WB:.*]] = arith.extui %b : i8 to i32
// CHECK-NEXT: %[[SB:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%mask_1, %[[WB]],
// CHECK-NEXT: %rb = arith.trunci %[[SB]] : i32 to i8

// CHECK:      %[[IC:.*]] = arith.index_cast %c : index to i64
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%mask_2,
// CHECK:      %rc = arith.index_cast %{{.*}} : i64 to index

// CHECK:      %[[HB:.*]] = arith.bitcast %d : f16 to i16
// CHECK-NEXT: %[[HW:.*]] = arith.extui %[[HB]] : i16 to i32
// CHECK-NEXT: %[[HS:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%mask_3, %[[HW]],
// CHECK-NEXT: %[[HT:.*]] = arith.trunci %[[HS]] : i32 to i16
// CHECK-NEXT: %rd = arith.bitcast %[[HT]] : i16 to f16

// CHECK-COUNT-4: llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%mask_4,
// CHECK:      %re = arith.ori %{{.*}}, %{{.*}} : i128
