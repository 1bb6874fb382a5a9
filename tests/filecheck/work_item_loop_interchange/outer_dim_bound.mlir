// RUN: xmux-opt %s -p 'work-item-loops,work-item-loop-interchange' | filecheck %s

// A loop whose trip count depends on the local id of an outer work-item dimension (here y,
// as an OpenACC worker's chunk) is uniform across the innermost (x) work-item loop: it is
// interchanged inside the y loop, its bound computed once per y, and the x loop inside it
// vectorizes. A bound that depends on x itself is left alone (@varying_x).

// CHECK-LABEL: func.func @rows
// CHECK:         scf.for %y = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      mux.set_local_id 1, %y : index
// CHECK-NEXT:      %[[LY:.*]] = mux.get_local_id 1 : index
// CHECK:           %[[N:.*]] = arith.addi %[[LY]], %n : index
// CHECK-NEXT:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        mux.set_local_id 0
// CHECK-NEXT:        memref.store %zero, %[[ACC:.*]][%{{.*}}] : memref<?xf32>
// CHECK-NEXT:      } {mux.work_item_loop}
// CHECK-NEXT:      scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT:        scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          mux.set_local_id 0
// CHECK:               memref.load %[[ACC]]
// CHECK:             } {mux.work_item_loop}
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             memref.store %{{.*}}, %out[%[[LY]], %{{.*}}]
// CHECK-NEXT:      } {mux.work_item_loop}
// CHECK-NEXT:    }
func.func @rows(%n: index, %a: memref<?x?xf32>, %out: memref<?x?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 32, 4, 1>} {
  %x = mux.get_local_id 0 : index
  %y = mux.get_local_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = arith.addi %y, %n : index
  %r = scf.for %k = %c0 to %m step %c1 iter_args(%s = %zero) -> (f32) {
    %v = memref.load %a[%k, %x] : memref<?x?xf32>
    %t = arith.addf %s, %v : f32
    scf.yield %t : f32
  }
  memref.store %r, %out[%y, %x] : memref<?x?xf32>
  func.return
}

// CHECK-LABEL: func.func @varying_x
// CHECK:           mux.set_local_id 0
// CHECK-NOT:       mux.work_item_loop
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:         } {mux.work_item_loop}
func.func @varying_x(%n: index, %a: memref<?x?xf32>, %out: memref<?x?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 32, 4, 1>} {
  %x = mux.get_local_id 0 : index
  %y = mux.get_local_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = arith.addi %x, %n : index
  %r = scf.for %k = %c0 to %m step %c1 iter_args(%s = %zero) -> (f32) {
    %v = memref.load %a[%k, %y] : memref<?x?xf32>
    %t = arith.addf %s, %v : f32
    scf.yield %t : f32
  }
  memref.store %r, %out[%y, %x] : memref<?x?xf32>
  func.return
}
