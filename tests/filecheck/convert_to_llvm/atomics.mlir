// RUN: xmux-opt %s -p convert-to-llvm | filecheck %s

// memref.atomic_rmw on memory other threads share is a relaxed (monotonic) llvm.atomicrmw, in
// upstream's syntax; no fence around it. Kinds LLVM's atomicrmw lacks are a relaxed cmpxchg loop.
func.func @global_kinds(%m: memref<?xi32>, %f: memref<?xf32>, %i: index, %v: i32, %x: f32) {
  %0 = memref.atomic_rmw addi %v, %m[%i] : (i32, memref<?xi32>) -> i32
  %1 = memref.atomic_rmw assign %v, %m[%i] : (i32, memref<?xi32>) -> i32
  %2 = memref.atomic_rmw maxs %v, %m[%i] : (i32, memref<?xi32>) -> i32
  %3 = memref.atomic_rmw maxu %v, %m[%i] : (i32, memref<?xi32>) -> i32
  %4 = memref.atomic_rmw mins %v, %m[%i] : (i32, memref<?xi32>) -> i32
  %5 = memref.atomic_rmw minu %v, %m[%i] : (i32, memref<?xi32>) -> i32
  %6 = memref.atomic_rmw ori %v, %m[%i] : (i32, memref<?xi32>) -> i32
  %7 = memref.atomic_rmw andi %v, %m[%i] : (i32, memref<?xi32>) -> i32
  %8 = memref.atomic_rmw addf %x, %f[%i] : (f32, memref<?xf32>) -> f32
  %9 = memref.atomic_rmw maxnumf %x, %f[%i] : (f32, memref<?xf32>) -> f32
  %10 = memref.atomic_rmw minnumf %x, %f[%i] : (f32, memref<?xf32>) -> f32
  %11 = memref.atomic_rmw muli %v, %m[%i] : (i32, memref<?xi32>) -> i32
  return
}
// CHECK-LABEL: llvm.func internal @global_kinds(
// CHECK-NOT:     llvm.fence
// CHECK:         llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK:         llvm.atomicrmw xchg %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK:         llvm.atomicrmw max %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK:         llvm.atomicrmw umax %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK:         llvm.atomicrmw min %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK:         llvm.atomicrmw umin %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK:         llvm.atomicrmw or %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK:         llvm.atomicrmw and %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK:         llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr, f32
// CHECK:         llvm.atomicrmw fmax %{{.*}}, %{{.*}} monotonic : !llvm.ptr, f32
// CHECK:         llvm.atomicrmw fmin %{{.*}}, %{{.*}} monotonic : !llvm.ptr, f32
// CHECK:         %[[P:.*]] = llvm.getelementptr inbounds
// CHECK-NEXT:    %[[FIRST:.*]] = llvm.load %[[P]] atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT:    llvm.br ^bb1(%[[FIRST]] : i32)
// CHECK-NEXT:  ^bb1(%[[OLD:.*]]: i32):
// CHECK-NEXT:    %[[NEW:.*]] = llvm.mul %[[OLD]], %{{.*}} : i32
// CHECK-NEXT:    %[[PAIR:.*]] = llvm.cmpxchg %[[P]], %[[OLD]], %[[NEW]] monotonic monotonic : !llvm.ptr, i32
// CHECK-NOT:     llvm.fence
// CHECK:         llvm.return

// Work-group local memory (space 3) is one thread's on the CPU target: a plain load, the
// operation and a store, outside the work-item loop's access group (updates of different
// work-items to one element are dependent); the old value is the load. A global atomic in the
// same loop stays atomic and in the group.
func.func @local_in_work_item_loop(%l: memref<256xi32, 3>, %g: memref<?xi32>, %d: memref<?xi32>,
                                   %n: index, %out: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %d[%i] : memref<?xi32>
    %b = arith.index_cast %v : i32 to index
    %old = memref.atomic_rmw addi %one, %l[%b] : (i32, memref<256xi32, 3>) -> i32
    memref.store %old, %out[%i] : memref<?xi32>
    %og = memref.atomic_rmw addi %v, %g[%b] : (i32, memref<?xi32>) -> i32
  } {mux.work_item_loop}
  return
}
// CHECK-LABEL: llvm.func internal @local_in_work_item_loop(
// CHECK:         llvm.load %{{.*}} {access_groups = [#llvm.access_group<id = distinct[[[G:[0-9]+]]]<>>]} : !llvm.ptr -> i32
// CHECK:         %[[LP:.*]] = llvm.getelementptr inbounds
// CHECK-NEXT:    %[[OLDL:.*]] = llvm.load %[[LP]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[SUM:.*]] = llvm.add %[[OLDL]], %{{.*}} : i32
// CHECK-NEXT:    llvm.store %[[SUM]], %[[LP]] : i32, !llvm.ptr
// CHECK:         llvm.store %[[OLDL]], %{{.*}} {access_groups = [#llvm.access_group<id = distinct[[[G]]]<>>]} : i32, !llvm.ptr
// CHECK:         llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic {access_groups = [#llvm.access_group<id = distinct[[[G]]]<>>]} : !llvm.ptr, i32
// CHECK:         llvm.br ^bb1({{.*}}) {loop_annotation = #llvm.loop_annotation<mustProgress = true, parallelAccesses = #llvm.access_group<id = distinct[[[G]]]<>>>}

// Every kind as a plain update of local memory: the new value as the cmpxchg loop or LLVM's
// atomicrmw would compute it (maximumf/minimumf propagate NaN, maxnumf/minnumf ignore it),
// assign stores the value.
func.func @local_kinds(%l: memref<16xf32, 3>, %li: memref<16xi32, 3>, %x: f32, %v: i32,
                       %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %0 = memref.atomic_rmw maximumf %x, %l[%c0] : (f32, memref<16xf32, 3>) -> f32
    %1 = memref.atomic_rmw minnumf %x, %l[%c0] : (f32, memref<16xf32, 3>) -> f32
    %2 = memref.atomic_rmw mulf %x, %l[%c0] : (f32, memref<16xf32, 3>) -> f32
    %3 = memref.atomic_rmw assign %v, %li[%c0] : (i32, memref<16xi32, 3>) -> i32
    %4 = memref.atomic_rmw minu %v, %li[%c0] : (i32, memref<16xi32, 3>) -> i32
    %5 = memref.atomic_rmw ori %v, %li[%c0] : (i32, memref<16xi32, 3>) -> i32
  } {mux.work_item_loop}
  return
}
// CHECK-LABEL: llvm.func internal @local_kinds(
// CHECK-NOT:     llvm.atomicrmw
// CHECK-NOT:     llvm.cmpxchg
// CHECK:         %[[A:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[AN:.*]] = llvm.call_intrinsic "llvm.maximum.f32"(%[[A]], %{{.*}}) : (f32, f32) -> f32
// CHECK-NEXT:    llvm.store %[[AN]]
// CHECK:         %[[B:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[BN:.*]] = llvm.call_intrinsic "llvm.minnum.f32"(%[[B]], %{{.*}}) : (f32, f32) -> f32
// CHECK-NEXT:    llvm.store %[[BN]]
// CHECK:         %[[C:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[CN:.*]] = llvm.fmul %[[C]], %{{.*}} : f32
// CHECK-NEXT:    llvm.store %[[CN]]
// CHECK:         %{{.*}} = llvm.load %[[DP:.*]] : !llvm.ptr -> i32
// CHECK-NEXT:    llvm.store %[[V:.*]], %[[DP]] : i32, !llvm.ptr
// CHECK:         %[[E:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[EN:.*]] = llvm.call_intrinsic "llvm.umin.i32"(%[[E]], %[[V]]) : (i32, i32) -> i32
// CHECK-NEXT:    llvm.store %[[EN]]
// CHECK:         %[[F:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[FN:.*]] = llvm.or %[[F]], %[[V]] : i32
// CHECK-NEXT:    llvm.store %[[FN]]
// CHECK-NOT:     llvm.atomicrmw
// CHECK:         llvm.return

// Outside a work-item loop (a helper function the kernel calls from one, code between the
// loops) local memory keeps relaxed atomics: after inlining, the call's access group would
// reach plain accesses and the vectorizer would take updates of different work-items to one
// element for independent.
func.func @helper(%l: memref<256xi32, 3>, %b: index, %v: i32) {
  %o = memref.atomic_rmw addi %v, %l[%b] : (i32, memref<256xi32, 3>) -> i32
  return
}
// CHECK-LABEL: llvm.func internal @helper(
// CHECK:         llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK-NEXT:    llvm.return

// A buffer private to one work-item iteration (an alloca inside the work-item loop) is one
// thread's too.
func.func @private(%n: index, %out: memref<?xi32>, %v: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %t = memref.alloca() : memref<4xi32>
    memref.store %v, %t[%c0] : memref<4xi32>
    %o = memref.atomic_rmw addi %v, %t[%c0] : (i32, memref<4xi32>) -> i32
    memref.store %o, %out[%i] : memref<?xi32>
  } {mux.work_item_loop}
  return
}
// CHECK-LABEL: llvm.func internal @private(
// CHECK-NOT:     llvm.atomicrmw
// CHECK:         %[[T:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[TN:.*]] = llvm.add %[[T]], %{{.*}} : i32
// CHECK-NEXT:    llvm.store %[[TN]], %{{.*}} : i32, !llvm.ptr
// CHECK:         llvm.return
