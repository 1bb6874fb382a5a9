// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// A barrier inside a CFG loop: the region that starts after the barrier runs to the latch,
// around the back edge and through the loop header up to the barrier again. %s (defined in
// the header, before the barrier) is used after the barrier: in the region function its
// definition does not dominate that use (the region is entered after the barrier), an
// "internal use". It is stored right after its definition on every iteration and loaded
// right before the use, so the use sees the current iteration's value.

func.func @k(%a: memref<?xi32>, %n: index) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^head(%c0 : index)
^head(%k: index):
  %v = memref.load %a[%i] : memref<?xi32>
  %s = arith.muli %v, %v : i32
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  memref.store %s, %a[%i] : memref<?xi32>
  %k1 = arith.addi %k, %c1 : index
  %more = arith.cmpi ult, %k1, %n : index
  cf.cond_br %more, ^head(%k1 : index), ^done
^done:
  func.return
}

// CHECK:       func.func private @"k.mux-region-0"(%a: memref<?xi32>, %n: index, %lin: index, %state: i32, %[[KA:.*]]: memref<?xindex>, %[[SA:.*]]: memref<?xi32>) -> i32 {
// CHECK:       ^{{.*}}(%k: index):
// CHECK-NEXT:    memref.store %k, %[[KA]][%lin] : memref<?xindex>
// CHECK-NEXT:    %[[I:.*]] = mux.get_global_id 0 : index
// CHECK-NEXT:    %v = memref.load %a[%[[I]]] : memref<?xi32>
// CHECK-NEXT:    %s = arith.muli %v, %v : i32
// CHECK-NEXT:    memref.store %s, %[[SA]][%lin] : memref<?xi32>
// CHECK-NEXT:    %[[B:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    func.return %[[B]] : i32

// The region after the barrier: the use loads %s, the latch loads %k; around the back edge
// the header stores both again before the barrier ends the region.
// CHECK:       func.func private @"k.mux-region-1"(%a: memref<?xi32>, %n: index, %lin: index, %state: i32, %[[KB:.*]]: memref<?xindex>, %[[SB:.*]]: memref<?xi32>) -> i32 {
// CHECK-NEXT:    cf.br ^[[AFTER:.*]]
// CHECK-NEXT:  ^[[HEAD:.*]](%k: index):
// CHECK-NEXT:    memref.store %k, %[[KB]][%lin] : memref<?xindex>
// CHECK:         memref.store %s, %[[SB]][%lin] : memref<?xi32>
// CHECK-NEXT:    %{{.*}} = arith.constant 1 : i32
// CHECK-NEXT:    func.return %{{.*}} : i32
// CHECK-NEXT:  ^[[AFTER]]:
// CHECK-NEXT:    %[[I2:.*]] = mux.get_global_id 0 : index
// CHECK-NEXT:    %[[S:.*]] = memref.load %[[SB]][%lin] : memref<?xi32>
// CHECK-NEXT:    memref.store %[[S]], %a[%[[I2]]] : memref<?xi32>
// CHECK-NEXT:    %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:    %[[K:.*]] = memref.load %[[KB]][%lin] : memref<?xindex>
// CHECK-NEXT:    %k1 = arith.addi %[[K]], %{{.*}} : index
// CHECK-NEXT:    %more = arith.cmpi ult, %k1, %n : index
// CHECK-NEXT:    cf.cond_br %more, ^[[HEAD]](%k1 : index), ^{{.*}}
