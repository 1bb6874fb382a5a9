// RUN: xmux-opt %s -p work-item-loops | filecheck %s
// RUN: xmux-opt %s -p work-item-loops | xmux-opt | filecheck %s

// A barrier region that is an scf.if marked mux.single_work_item (the combining step of a
// lowered work-group collective): its body runs once per group, outside any work-item loop,
// as work-item 0 (local id set to 0, the condition not tested). The per-work-item %v it
// uses is read from its array at index 0; queries inside see work-item 0.

func.func @k(%a: memref<?xf32>, %t: memref<8xf32, 3>, %out: memref<?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  memref.store %v, %t[%l] : memref<8xf32, 3>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %lin = mux.get_local_linear_id : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %lin, %c0 : index
  scf.if %first {
    %w = memref.load %t[%c0] : memref<8xf32, 3>
    %s = arith.addf %w, %v : f32
    %gi = mux.get_global_id 0 : index
    memref.store %s, %out[%gi] : memref<?xf32>
  } {mux.single_work_item}
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %r = memref.load %t[%l] : memref<8xf32, 3>
  memref.store %r, %a[%i] : memref<?xf32>
  func.return
}

// CHECK:      %[[VS:.*]] = memref.alloca(%{{.*}}) {mux.per_work_item, alignment = 64 : i64} : memref<?xf32>
// CHECK-NEXT: scf.for %x = %[[ZERO:.*]] to %{{.*}} step %{{.*}} {
// CHECK:        memref.store %v, %[[VS]][%x] : memref<?xf32>
// CHECK-NEXT: } {mux.work_item_loop}
// CHECK-NEXT: mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: mux.set_local_id 0, %[[ZERO]] : index
// CHECK-NEXT: %w = memref.load %t[%c0] : memref<8xf32, 3 : i64>
// CHECK-NEXT: %[[V0:.*]] = memref.load %[[VS]][%[[ZERO]]] : memref<?xf32>
// CHECK-NEXT: %s = arith.addf %w, %[[V0]] : f32
// CHECK-NEXT: %gi = mux.get_global_id 0 : index
// CHECK-NEXT: memref.store %s, %out[%gi] : memref<?xf32>
// CHECK-NEXT: mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT: scf.for %x_1 = %[[ZERO]] to %{{.*}} step %{{.*}} {
// CHECK-NOT:  mux.single_work_item
// CHECK:      func.return
