// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// Private memory that lives across a barrier (%p) becomes one 16-byte-aligned slice per
// work-item of a byte buffer allocated once per group (a memref.view of the same type, in
// each region that uses it); private memory used in one region only (%q) is one allocation
// shared by the work-items, which run that region one after the other.

func.func @k(%a: memref<?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %p = memref.alloca() : memref<2xf32>
  %q = memref.alloca() : memref<4xi32>
  %v = memref.load %a[%i] : memref<?xf32>
  memref.store %v, %p[%c0] : memref<2xf32>
  %z = arith.constant 0 : i32
  memref.store %z, %q[%c0] : memref<4xi32>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %w = memref.load %p[%c0] : memref<2xf32>
  memref.store %w, %a[%i] : memref<?xf32>
  func.return
}

// CHECK:        %[[N:.*]] = arith.constant 8 : index
// CHECK:        %[[STRIDE:.*]] = arith.constant 16 : index
// CHECK-NEXT:   %[[BYTES:.*]] = arith.muli %[[N]], %[[STRIDE]] : index
// CHECK-NEXT:   %[[BUF:.*]] = memref.alloca(%[[BYTES]]) {mux.per_work_item, alignment = 64 : i64} : memref<?xi8>
// CHECK-NEXT:   %q = memref.alloca() : memref<4xi32>
// CHECK:        scf.for %x = {{.*}} {
// CHECK:          %[[OFF:.*]] = arith.muli %x, %[[STRIDE]] : index
// CHECK-NEXT:     %[[P:.*]] = memref.view %[[BUF]][%[[OFF]]][] : memref<?xi8> to memref<2xf32>
// CHECK-NEXT:     memref.store %v, %[[P]][%c0] : memref<2xf32>
// CHECK-NEXT:     memref.store %z, %q[%c0] : memref<4xi32>
// CHECK-NEXT:   } {mux.work_item_loop}
// CHECK-NEXT:   mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   scf.for %[[X:.*]] = {{.*}} {
// CHECK-NEXT:     mux.set_local_id 0, %[[X]] : index
// CHECK-NEXT:     %[[OFF2:.*]] = arith.muli %[[X]], %[[STRIDE]] : index
// CHECK-NEXT:     %[[P2:.*]] = memref.view %[[BUF]][%[[OFF2]]][] : memref<?xi8> to memref<2xf32>
// CHECK-NEXT:     %w = memref.load %[[P2]][%c0] : memref<2xf32>
