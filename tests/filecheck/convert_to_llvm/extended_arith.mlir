// RUN: xmux-opt %s -p convert-to-llvm | filecheck %s
// Extended arithmetic as MLIR's ArithToLLVM lowers it (issue 31): addui_extended is an add
// and an unsigned compare (the carry), mului/mulsi_extended one multiplication at twice the
// width (zext / sext), whose low and high halves are truncated out; i64 multiplies in i128,
// index as i64, vectors lane-wise in one vector op.

func.func @addui(%a: i32, %b: i32) -> (i32, i1) {
  %s, %o = arith.addui_extended %a, %b : i32, i1
  return %s, %o : i32, i1
}
// CHECK-LABEL: llvm.func internal @addui(%{{.*}}: i32, %{{.*}}: i32)
// CHECK-NEXT:    %[[S:.*]] = llvm.add %[[A:.*]], %{{.*}} : i32
// CHECK-NEXT:    %[[O:.*]] = llvm.icmp "ult" %[[S]], %[[A]] : i32

func.func @mului(%a: i32, %b: i32) -> (i32, i32) {
  %lo, %hi = arith.mului_extended %a, %b : i32
  return %lo, %hi : i32, i32
}
// CHECK-LABEL: llvm.func internal @mului(
// CHECK-NEXT:    %[[X:.*]] = llvm.zext %{{.*}} : i32 to i64
// CHECK-NEXT:    %[[Y:.*]] = llvm.zext %{{.*}} : i32 to i64
// CHECK-NEXT:    %[[P:.*]] = llvm.mul %[[X]], %[[Y]] : i64
// CHECK-NEXT:    %[[C:.*]] = llvm.mlir.constant(32) : i64
// CHECK-NEXT:    %[[H:.*]] = llvm.lshr %[[P]], %[[C]] : i64
// CHECK-NEXT:    %{{.*}} = llvm.trunc %[[P]] : i64 to i32
// CHECK-NEXT:    %{{.*}} = llvm.trunc %[[H]] : i64 to i32

func.func @mulsi_i64(%a: i64, %b: i64) -> (i64, i64) {
  %lo, %hi = arith.mulsi_extended %a, %b : i64
  return %lo, %hi : i64, i64
}
// CHECK-LABEL: llvm.func internal @mulsi_i64(
// CHECK-NEXT:    %[[X:.*]] = llvm.sext %{{.*}} : i64 to i128
// CHECK-NEXT:    %[[Y:.*]] = llvm.sext %{{.*}} : i64 to i128
// CHECK-NEXT:    %[[P:.*]] = llvm.mul %[[X]], %[[Y]] : i128
// CHECK-NEXT:    %[[C:.*]] = llvm.mlir.constant(64 : i128) : i128
// CHECK-NEXT:    %[[H:.*]] = llvm.lshr %[[P]], %[[C]] : i128
// CHECK-NEXT:    %{{.*}} = llvm.trunc %[[P]] : i128 to i64
// CHECK-NEXT:    %{{.*}} = llvm.trunc %[[H]] : i128 to i64

func.func @mului_index(%a: index, %b: index) -> index {
  %lo, %hi = arith.mului_extended %a, %b : index
  return %hi : index
}
// CHECK-LABEL: llvm.func internal @mului_index(%{{.*}}: i64, %{{.*}}: i64) -> i64
// CHECK-NEXT:    llvm.zext %{{.*}} : i64 to i128

func.func @vectors(%v: vector<4xi16>, %w: vector<4xi16>) -> (vector<4xi1>, vector<4xi16>) {
  %s, %o = arith.addui_extended %v, %w : vector<4xi16>, vector<4xi1>
  %lo, %hi = arith.mulsi_extended %v, %w : vector<4xi16>
  return %o, %hi : vector<4xi1>, vector<4xi16>
}
// CHECK-LABEL: llvm.func internal @vectors(
// CHECK-NEXT:    %[[S:.*]] = llvm.add %[[V:.*]], %{{.*}} : vector<4xi16>
// CHECK-NEXT:    llvm.icmp "ult" %[[S]], %[[V]] : vector<4xi16>
// CHECK-NEXT:    llvm.sext %{{.*}} : vector<4xi16> to vector<4xi32>
// CHECK-NEXT:    llvm.sext %{{.*}} : vector<4xi16> to vector<4xi32>
// CHECK-NEXT:    %[[P:.*]] = llvm.mul %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK-NEXT:    %[[C:.*]] = llvm.mlir.constant(dense<16> : vector<4xi32>) : vector<4xi32>
// CHECK-NEXT:    llvm.lshr %[[P]], %[[C]] : vector<4xi32>
