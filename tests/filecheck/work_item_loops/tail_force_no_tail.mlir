// RUN: xmux-opt %s -p 'work-item-loops{vector-width=4 force-no-tail=true}' | filecheck %s

// force-no-tail: the main part runs over the whole (run-time) local size 4 work-items at a
// time, with no tail loop; the launcher then only accepts group sizes that are multiples of
// 4 in x (schedule array<i64: 4, 0, 0>).

func.func @k(%a: memref<?xi32>) attributes {mux.kernel = "entry_point", mux.max_work_dim = 1 : i64} {
  %i = mux.get_global_id 0 : index
  %c = arith.constant 7 : i32
  memref.store %c, %a[%i] : memref<?xi32>
  func.return
}

// CHECK-LABEL: func.func @k
// CHECK-SAME:    mux.vector_schedule = array<i64: 4, 0, 0>
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[LS0:.*]] = mux.get_local_size 0 : index
// CHECK-NEXT:    mux.set_local_id 1, %[[C0]] : index
// CHECK-NEXT:    mux.set_local_id 2, %[[C0]] : index
// CHECK-NEXT:    %[[W:.*]] = arith.constant 4 : index
// CHECK-NEXT:    scf.for %xb = %[[C0]] to %[[LS0]] step %[[W]] {
// CHECK-NEXT:      scf.for %xi = %[[C0]] to %[[W]] step %[[C1]] {
// CHECK-NEXT:        %x = arith.addi %xb, %xi : index
// CHECK-NEXT:        mux.set_local_id 0, %x : index
// CHECK-NEXT:        %i = mux.get_global_id 0 : index
// CHECK-NEXT:        %c = arith.constant 7 : i32
// CHECK-NEXT:        memref.store %c, %a[%i] : memref<?xi32>
// CHECK-NEXT:      } {mux.work_item_loop, xmux.loop_vectorize_width = 4 : i64}
// CHECK-NEXT:    } {xmux.loop_vectorize_width = 1 : i64}
// CHECK-NEXT:    func.return
