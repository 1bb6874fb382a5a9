// RUN: xmux-opt %s -p lower-generic-atomic-rmw | filecheck %s
// The element's address from the strided metadata, then a cmpxchg loop around the body: the
// op's result is the value the successful swap replaced.

func.func @f(%m: memref<?x4xi32>, %i: index, %j: index, %c3: i32) -> i32 {
  %old = memref.generic_atomic_rmw %m[%i, %j] : memref<?x4xi32> {
  ^bb0(%cur: i32):
    %new = arith.muli %cur, %c3 : i32
    memref.atomic_yield %new : i32
  }
  return %old : i32
}

// CHECK:      %{{.*}}, %[[OFF:.*]], %{{.*}}, %{{.*}}, %[[S0:.*]], %[[S1:.*]] = memref.extract_strided_metadata %m
// CHECK-NEXT: %[[A:.*]] = arith.muli %i, %[[S0]] : index
// CHECK-NEXT: %[[B:.*]] = arith.addi %[[OFF]], %[[A]] : index
// CHECK-NEXT: %[[C:.*]] = arith.muli %j, %[[S1]] : index
// CHECK-NEXT: %[[LIN:.*]] = arith.addi %[[B]], %[[C]] : index
// CHECK:      %[[P:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT: %[[START:.*]] = llvm.load %[[P]] : !llvm.ptr -> i32
// CHECK-NEXT: %old, %{{.*}} = scf.while (%[[CUR:.*]] = %[[START]]) : (i32) -> (i32, i32) {
// CHECK-NEXT:   %new = arith.muli %[[CUR]], %c3 : i32
// CHECK-NEXT:   %[[PAIR:.*]] = llvm.cmpxchg %[[P]], %[[CUR]], %new monotonic monotonic
// CHECK-NEXT:   %[[SEEN:.*]] = llvm.extractvalue %[[PAIR]][0]
// CHECK-NEXT:   %[[OK:.*]] = llvm.extractvalue %[[PAIR]][1]
// CHECK:        scf.condition(%{{.*}}) %[[SEEN]], %new : i32, i32
// CHECK:      func.return %old : i32
// CHECK-NOT:  memref.generic_atomic_rmw
