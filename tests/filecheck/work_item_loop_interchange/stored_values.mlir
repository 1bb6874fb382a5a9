// RUN: xmux-opt %s -p 'work-item-loops,work-item-loop-interchange' | filecheck %s

// A loaded value defined before the uniform loop and used after it is kept in an array
// (a load is not re-computed); the bound computed in the body is hoisted, so it is uniform.
func.func @k(%n: i32, %a: memref<?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nn = arith.index_cast %n : i32 to index
  %r = scf.for %k = %c0 to %nn step %c1 iter_args(%s = %v) -> (f32) {
    %t = arith.mulf %s, %s : f32
    scf.yield %t : f32
  }
  %w = arith.addf %r, %v : f32
  memref.store %w, %a[%i] : memref<?xf32>
  func.return
}

// CHECK:      %[[ACC:.*]] = memref.alloca(%{{.*}}) {mux.per_work_item, alignment = 64 : i64} : memref<?xf32>
// CHECK-NEXT: %[[VARR:.*]] = memref.alloca(%{{.*}}) {mux.per_work_item, alignment = 64 : i64} : memref<?xf32>
// CHECK:      %[[NN:.*]] = arith.index_cast %n : i32 to index
// CHECK-NEXT: scf.for %[[X0:.*]] = {{.*}} {
// CHECK:        %[[V:.*]] = memref.load %a[%{{.*}}] : memref<?xf32>
// CHECK-NEXT:   memref.store %[[V]], %[[ACC]][%[[X0]]] : memref<?xf32>
// CHECK-NEXT:   memref.store %[[V]], %[[VARR]][%[[X0]]] : memref<?xf32>
// CHECK:      } {mux.work_item_loop}
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[NN]] step %{{.*}} {
// CHECK:      } {mux.work_item_loop}
// CHECK:      scf.for %[[X2:.*]] = {{.*}} {
// CHECK:        %[[R:.*]] = memref.load %[[ACC]][%[[X2]]] : memref<?xf32>
// CHECK-NEXT:   %[[V2:.*]] = memref.load %[[VARR]][%[[X2]]] : memref<?xf32>
// CHECK-NEXT:   arith.addf %[[R]], %[[V2]] : f32
