// RUN: xmux-opt %s -p convert-to-llvm | filecheck %s

// An scf.for marked mux.work_item_loop gets a fresh access group: its latch branch carries
// upstream's loop_annotation with parallelAccesses = that group, and the memory accesses
// lowered from its body (nested loops, calls and atomics included) carry access_groups. Left
// out: accesses to allocas made inside the work-item loop (private to one work-item, hoisted
// to the entry block) and llvm ops written by earlier passes (scheduling-struct accesses).
// Each work-item loop has its own group.
func.func @helper(%p: memref<?xf32>, %i: index) {
  %x = memref.load %p[%i] : memref<?xf32>
  memref.store %x, %p[%i] : memref<?xf32>
  return
}
func.func @k(%a: memref<?xf32>, %n: index, %wi: !llvm.ptr) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %n step %c1 {
    %lid = arith.index_cast %i : index to i64
    llvm.store %lid, %wi : i64, !llvm.ptr
    %again = llvm.load %wi : !llvm.ptr -> i64
    %tmp = memref.alloca() : memref<4xf32>
    %s = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %lid) -> (i64) {
      %x = memref.load %a[%j] : memref<?xf32>
      memref.store %x, %tmp[%j] : memref<4xf32>
      scf.yield %acc : i64
    }
    func.call @helper(%a, %i) : (memref<?xf32>, index) -> ()
    %y = memref.load %tmp[%c1] : memref<4xf32>
    %o = "memref.atomic_rmw"(%y, %a, %i) <{kind = 0 : i64}> : (f32, memref<?xf32>, index) -> f32
  } {mux.work_item_loop}
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
  } {mux.work_item_loop}
  %z = memref.load %a[%c0] : memref<?xf32>
  return
}
// CHECK:      llvm.func internal @helper(
// CHECK-NOT:    access_groups
// CHECK:        llvm.return

// CHECK:      llvm.func @k(%[[A:.*]]: !llvm.struct<{{.*}}>, %[[N:.*]]: i64, %[[WI:.*]]: !llvm.ptr)
// CHECK:        %[[TMP:.*]] = llvm.alloca %{{.*}} x f32
// CHECK:      ^bb2:
// CHECK-NEXT:   llvm.store %{{.*}}, %[[WI]] : i64, !llvm.ptr
// CHECK-NEXT:   llvm.load %[[WI]] : !llvm.ptr -> i64
// CHECK:      ^bb4:
// CHECK:        llvm.load %{{.*}} {access_groups = [#llvm.access_group<id = distinct[1]<>>]} : !llvm.ptr -> f32
// CHECK:        llvm.store %{{[0-9]+}}, %{{[0-9]+}} : f32, !llvm.ptr
// CHECK:        llvm.br ^bb3(%{{.*}}, %{{.*}} : i64, i64){{$}}
// CHECK:      ^bb5:
// CHECK-NEXT:   llvm.call @helper(%[[A]], %{{.*}}) {access_groups = [#llvm.access_group<id = distinct[1]<>>]}
// CHECK:        llvm.load %{{[0-9]+}} : !llvm.ptr -> f32
// CHECK:        llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic {access_groups = [#llvm.access_group<id = distinct[1]<>>]}
// CHECK-NEXT:   %[[NEXT:.*]] = llvm.add
// CHECK-NEXT:   llvm.br ^bb1(%[[NEXT]] : i64) {loop_annotation = #llvm.loop_annotation<mustProgress = true, parallelAccesses = #llvm.access_group<id = distinct[1]<>>>}
// CHECK:      ^bb8:
// CHECK:        llvm.load %{{.*}} {access_groups = [#llvm.access_group<id = distinct[2]<>>]} : !llvm.ptr -> f32
// CHECK:        llvm.br ^bb7(%{{.*}} : i64) {loop_annotation = #llvm.loop_annotation<mustProgress = true, parallelAccesses = #llvm.access_group<id = distinct[2]<>>>}
// CHECK:      ^bb9:
// CHECK:        llvm.load %{{[0-9]+}} : !llvm.ptr -> f32
// CHECK-NEXT:   llvm.return
