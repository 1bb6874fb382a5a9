// RUN: xmux-opt %s -p 'work-item-loops{vector-width=8}' | filecheck %s

// Vector only: reqd_work_group_size x = 32 is a multiple of 8, so the main part covers the
// whole row with constant bounds and no tail loop is emitted; the schedule says "no tail".

func.func @k(%a: memref<?x?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 32, 2, 1>} {
  %i = mux.get_global_id 0 : index
  %j = mux.get_global_id 1 : index
  %v = memref.load %a[%j, %i] : memref<?x?xf32>
  memref.store %v, %a[%j, %i] : memref<?x?xf32>
  func.return
}

// CHECK-LABEL: func.func @k
// CHECK-SAME:    mux.vector_schedule = array<i64: 8, 0, 0>
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    mux.set_local_id 2, %[[C0]] : index
// CHECK-NEXT:    scf.for %y = %[[C0]] to %[[C2]] step %[[C1]] {
// CHECK-NEXT:      mux.set_local_id 1, %y : index
// CHECK-NEXT:      %[[W:.*]] = arith.constant 8 : index
// CHECK-NEXT:      scf.for %xb = %[[C0]] to %[[C32]] step %[[W]] {
// CHECK-NEXT:        scf.for %xi = %[[C0]] to %[[W]] step %[[C1]] {
// CHECK-NEXT:          %x = arith.addi %xb, %xi : index
// CHECK-NEXT:          mux.set_local_id 0, %x : index
// CHECK-NEXT:          %i = mux.get_global_id 0 : index
// CHECK-NEXT:          %j = mux.get_global_id 1 : index
// CHECK-NEXT:          %v = memref.load %a[%j, %i] : memref<?x?xf32>
// CHECK-NEXT:          memref.store %v, %a[%j, %i] : memref<?x?xf32>
// CHECK-NEXT:        } {mux.work_item_loop, xmux.loop_vectorize_width = 8 : i64}
// CHECK-NEXT:      } {xmux.loop_vectorize_width = 1 : i64}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
