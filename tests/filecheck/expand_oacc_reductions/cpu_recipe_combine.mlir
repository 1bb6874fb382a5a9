// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=cpu}' | filecheck %s
// Builtins naming an oacc.reduction_recipe take the identity from its init region and the
// combine from its combiner region (cloned), whatever their kind says: a gang fini whose
// combiner is one atomicrmw operation (arith.minsi) is that atomic; one that is not
// (arith.muli) runs under the gang lock; worker finis combine with the cloned ops. The
// recipes are gone after the pass.

oacc.reduction_recipe @prod : i32 init {
  %one = arith.constant 1 : i32
  oacc.yield %one : i32
} combiner {
^bb0(%x: i32, %y: i32):
  %m = arith.muli %x, %y : i32
  oacc.yield %m : i32
}
oacc.reduction_recipe @least : i32 init {
  %big = arith.constant 2147483647 : i32
  oacc.yield %big : i32
} combiner {
^bb0(%x: i32, %y: i32):
  %m = arith.minsi %y, %x : i32
  oacc.yield %m : i32
}
func.func @k(%a: i32, %b: i32, %r: memref<i32>, %s: memref<i32>) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 4, 1>} {
  %a1 = oacc.reduction_setup gang add %a res(%r : memref<i32>) recipe @prod lid 0 rid 0 : i32
  %b1 = oacc.reduction_setup gang max %b res(%s : memref<i32>) recipe @least lid 0 rid 1 : i32
  oacc.fork gang
  %a2 = oacc.reduction_init gang add %a1 res(%r : memref<i32>) recipe @prod lid 0 rid 0 : i32
  %b2 = oacc.reduction_init gang max %b1 res(%s : memref<i32>) recipe @least lid 0 rid 1 : i32
  %a3 = oacc.reduction_setup worker add %a2 recipe @prod lid 1 rid 0 : i32
  oacc.fork worker
  %a4 = oacc.reduction_init worker add %a3 recipe @prod lid 1 rid 0 : i32
  "test.op"(%a4, %b2) : (i32, i32) -> ()
  oacc.lock worker lid 1
  %a5 = oacc.reduction_fini worker add %a4 recipe @prod lid 1 rid 0 : i32
  oacc.unlock worker lid 1
  oacc.join worker
  %a6 = oacc.reduction_teardown worker add %a5 recipe @prod lid 1 rid 0 : i32
  oacc.lock gang lid 0
  %a7 = oacc.reduction_fini gang add %a6 res(%r : memref<i32>) recipe @prod lid 0 rid 0 : i32
  %b7 = oacc.reduction_fini gang max %b2 res(%s : memref<i32>) recipe @least lid 0 rid 1 : i32
  oacc.unlock gang lid 0
  oacc.join gang
  func.return
}

// CHECK-NOT:  oacc.reduction_recipe
// CHECK:      llvm.mlir.global internal @__oacc_gang_lock
// CHECK:      func.func @k(
// CHECK-NEXT:   %[[A2:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   %[[B2:.*]] = arith.constant 2147483647 : i32
// worker setup: the slot starts as the gang's value
// CHECK:        memref.store %[[A2]], %{{.*}}[%{{.*}}] : memref<1xi32, 3 : i64>
// CHECK:        %[[A4:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   "test.op"(%[[A4]], %[[B2]]) : (i32, i32) -> ()
// worker fini: slot = slot * LOCAL (between the worker lock's cmpxchg and xchg)
// CHECK:        llvm.cmpxchg %{{.*}} syncscope("singlethread")
// CHECK:        %[[SLOT:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<1xi32, 3 : i64>
// CHECK-NEXT:   %{{.*}} = arith.muli %[[SLOT]], %[[A4]] : i32
// CHECK:        llvm.atomicrmw xchg %{{.*}} syncscope("singlethread")
// CHECK:        %[[A6:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<1xi32, 3 : i64>
// gang: *r = *r * LOCAL inside the gang lock; the minimum is one atomicrmw
// CHECK:        llvm.mlir.addressof @__oacc_gang_lock
// CHECK:        llvm.cmpxchg
// CHECK:        %[[CUR:.*]] = memref.load %r[] : memref<i32>
// CHECK-NEXT:   %[[Q:.*]] = arith.muli %[[CUR]], %[[A6]] : i32
// CHECK-NEXT:   memref.store %[[Q]], %r[] : memref<i32>
// CHECK:        llvm.atomicrmw min %{{.*}}, %[[B2]] acq_rel : !llvm.ptr, i32
// CHECK:        llvm.mlir.addressof @__oacc_gang_lock
// CHECK:        llvm.atomicrmw xchg
// CHECK-NOT:    oacc.
