// RUN: xmux-opt %s -p 'lower-kernel-asserts,define-check-failed-nvptx' | filecheck %s
// The checking mode's report function defined in the device module: two assertion sites
// get site numbers 0 and 1 (module order of their messages), the first failure of a launch
// (atomic count 0 -> 1) writes site, rank, values, sizes and ids to the visible record.

func.func @k(%n: i32) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : i32
  %pos = arith.cmpi sgt, %n, %c0 : i32
  cf.assert %pos, "n must be positive"
  %small = arith.cmpi slt, %n, %c0 : i32
  cf.assert %small, "n must be negative"
  func.return
}

// CHECK:      llvm.mlir.global internal constant @xmux.check.0("kernel @k: assertion failed: n must be positive\00")
// CHECK:      llvm.mlir.global internal constant @xmux.check.1("kernel @k: assertion failed: n must be negative\00")
// CHECK:      func.func @xmux_check_failed(%[[MSG:[^:]*]]: !llvm.ptr, %[[RANK:[^:]*]]: i64, {{.*}}) {
// CHECK-NEXT:   %[[M:.*]] = llvm.ptrtoint %[[MSG]] : !llvm.ptr to i64
// CHECK-NEXT:   %[[NONE:.*]] = arith.constant -1 : i64
// CHECK-NEXT:   %[[S0:.*]] = llvm.mlir.addressof @xmux.check.0 : !llvm.ptr
// CHECK-NEXT:   %[[A0:.*]] = llvm.ptrtoint %[[S0]] : !llvm.ptr to i64
// CHECK-NEXT:   %[[EQ0:.*]] = arith.cmpi eq, %[[M]], %[[A0]] : i64
// CHECK-NEXT:   %[[K0:.*]] = arith.constant 0 : i64
// CHECK-NEXT:   %[[SITE0:.*]] = arith.select %[[EQ0]], %[[K0]], %[[NONE]] : i64
// CHECK:        %[[EQ1:.*]] = arith.cmpi eq, %[[M]], %{{.*}} : i64
// CHECK-NEXT:   %[[K1:.*]] = arith.constant 1 : i64
// CHECK-NEXT:   %[[SITE:.*]] = arith.select %[[EQ1]], %[[K1]], %[[SITE0]] : i64
// CHECK-NEXT:   %[[REC:.*]] = llvm.mlir.addressof @__xmux_check_record : !llvm.ptr
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT:   %[[OLD:.*]] = llvm.atomicrmw add %[[REC]], %[[ONE]] monotonic : !llvm.ptr, i64
// CHECK-NEXT:   %[[Z:.*]] = arith.constant 0 : i64
// CHECK-NEXT:   %[[FIRST:.*]] = arith.cmpi eq, %[[OLD]], %[[Z]] : i64
// CHECK-NEXT:   scf.if %[[FIRST]] {
// CHECK-NEXT:     %[[P1:.*]] = llvm.getelementptr %[[REC]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:     llvm.store %[[SITE]], %[[P1]] : i64, !llvm.ptr
// CHECK-NEXT:     %[[P2:.*]] = llvm.getelementptr %[[REC]][2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:     llvm.store %[[RANK]], %[[P2]] : i64, !llvm.ptr
// CHECK-COUNT-12: llvm.store
// CHECK-NEXT:   }
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
// CHECK:      llvm.mlir.global external @__xmux_check_record() {addr_space = 0 : i32} : !llvm.array<16 x i64> {
// CHECK-NEXT:   %{{.*}} = llvm.mlir.zero : !llvm.array<16 x i64>
// CHECK:      llvm.mlir.global external constant @__xmux_check_messages("kernel @k: assertion failed: n must be positive\00kernel @k: assertion failed: n must be negative\00")
