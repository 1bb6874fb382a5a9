// RUN: xmux-opt %s -p convert-to-llvm | filecheck %s

// A memref.atomic_rmw marked mux.slice_private (privatize-global-atomics: the memory is a
// thread slice's own copy) is a plain update inside a work-item loop, left out of the loop's
// access group like local memory; an unmarked one in the same loop stays atomic, and a marked
// one outside a work-item loop stays atomic too (its accesses could not be kept out of a
// caller's groups).
func.func @marked(%p: memref<?xi32>, %g: memref<?xi32>, %d: memref<?xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %d[%i] : memref<?xi32>
    %b = arith.index_cast %v : i32 to index
    %0 = memref.atomic_rmw maxs %v, %p[%b] {mux.slice_private} : (i32, memref<?xi32>) -> i32
    %1 = memref.atomic_rmw addi %one, %g[%b] : (i32, memref<?xi32>) -> i32
  } {mux.work_item_loop}
  %2 = memref.atomic_rmw addi %one, %p[%c0] {mux.slice_private} : (i32, memref<?xi32>) -> i32
  return
}
// CHECK-LABEL: llvm.func internal @marked(
// CHECK:         llvm.load %{{.*}} {access_groups = [#llvm.access_group<id = distinct[[[G:[0-9]+]]]<>>]} : !llvm.ptr -> i32
// CHECK:         %[[P:.*]] = llvm.getelementptr inbounds
// CHECK-NEXT:    %[[OLD:.*]] = llvm.load %[[P]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[NEW:.*]] = llvm.call_intrinsic "llvm.smax.i32"(%[[OLD]], %{{.*}})
// CHECK-NEXT:    llvm.store %[[NEW]], %[[P]] : i32, !llvm.ptr
// CHECK:         llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic {access_groups = [#llvm.access_group<id = distinct[[[G]]]<>>]} : !llvm.ptr, i32
// CHECK:         llvm.br ^bb1({{.*}}) {loop_annotation = #llvm.loop_annotation<mustProgress = true, parallelAccesses = #llvm.access_group<id = distinct[[[G]]]<>>>}
// CHECK:         llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK:         llvm.return
