// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// A CFG loop with two exits (count exhausted; a flag read after the barrier) takes the
// region-dispatch form. Region 0 runs from the entry to the barrier, region 1 from the
// barrier to the next barrier or the return. %k and %acc are defined in region 0 (the loop
// header's block arguments) and used in region 1: stored where defined, loaded where used.

func.func @k(%a: memref<?xi32>, %t: memref<8xi32, 3>, %n: index)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %a[%i] : memref<?xi32>
  cf.br ^head(%c0, %v : index, i32)
^head(%k: index, %acc: i32):
  %more = arith.cmpi ult, %k, %n : index
  cf.cond_br %more, ^body, ^done(%acc : i32)
^body:
  memref.store %acc, %t[%l] : memref<8xi32, 3>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %first = memref.load %t[%c0] : memref<8xi32, 3>
  %zero = arith.constant 0 : i32
  %stop = arith.cmpi slt, %first, %zero : i32
  %k1 = arith.addi %k, %c1 : index
  %acc1 = arith.addi %acc, %first : i32
  cf.cond_br %stop, ^done(%acc1 : i32), ^head(%k1, %acc1 : index, i32)
^done(%r: i32):
  memref.store %r, %a[%i] : memref<?xi32>
  func.return
}

// The work-group function: every work-item's state starts at 0 (entry); while some
// work-item is not at the exit (2), run the ones waiting at the lowest barrier.
// CHECK-LABEL: func.func @k(
// CHECK:         %[[K:.*]] = memref.alloca(%{{.*}}) {mux.per_work_item, alignment = 64 : i64} : memref<?xindex>
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloca(%{{.*}}) {mux.per_work_item, alignment = 64 : i64} : memref<?xi32>
// CHECK-NEXT:    %[[STATE:.*]] = memref.alloca(%{{.*}}) {mux.per_work_item, alignment = 64 : i64} : memref<?xi32>
// CHECK-NEXT:    %[[ENTRY:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[EXIT:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    scf.for %x = {{.*}} {
// CHECK-NEXT:      mux.set_local_id 0, %x : index
// CHECK-NEXT:      memref.store %[[ENTRY]], %[[STATE]][%x] : memref<?xi32>
// CHECK-NEXT:    } {mux.work_item_loop}
// CHECK-NEXT:    %{{.*}} = scf.while (%[[C:.*]] = %[[ENTRY]]) : (i32) -> i32 {
// CHECK-NEXT:      %[[GO:.*]] = arith.cmpi ne, %[[C]], %[[EXIT]] : i32
// CHECK-NEXT:      scf.condition(%[[GO]]) %[[C]] : i32
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^{{.*}}(%cur: i32):
// CHECK-NEXT:      scf.for %[[X:.*]] = {{.*}} {
// CHECK-NEXT:        mux.set_local_id 0, %[[X]] : index
// CHECK-NEXT:        %[[S:.*]] = memref.load %[[STATE]][%[[X]]] : memref<?xi32>
// CHECK-NEXT:        %[[ACTIVE:.*]] = arith.cmpi eq, %[[S]], %cur : i32
// CHECK-NEXT:        scf.if %[[ACTIVE]] {
// CHECK-NEXT:          %[[NEXT:.*]] = func.call @"k.mux-regions"(%a, %t, %n, %[[X]], %cur, %[[K]], %[[ACC]])
// CHECK-NEXT:          memref.store %[[NEXT]], %[[STATE]][%[[X]]] : memref<?xi32>
// CHECK-NEXT:        }
// CHECK-NEXT:      } {mux.work_item_loop}
// CHECK-NEXT:      mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK:           %[[MIN:.*]] = scf.for {{.*}} iter_args(%[[M:.*]] = %[[EXIT]]) -> (i32) {
// CHECK-NEXT:        %[[Y:.*]] = memref.load %[[STATE]][%{{.*}}] : memref<?xi32>
// CHECK-NEXT:        %[[M2:.*]] = arith.minui %[[M]], %[[Y]] : i32
// CHECK-NEXT:        scf.yield %[[M2]] : i32
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[MIN]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// CHECK-LABEL: func.func private @"k.mux-regions"(%a: memref<?xi32>, %t: memref<8xi32, 3 : i64>, %n: index, %lin: index, %state: i32, %{{.*}}: memref<?xindex>, %{{.*}}: memref<?xi32>) -> i32 {
// CHECK-NEXT:    cf.switch %state : i32, [
// CHECK-NEXT:    default: ^[[R0:.*]],
// CHECK-NEXT:      1: ^[[R1:.*]]
// CHECK-NEXT:    ]
// CHECK-NEXT:  ^[[R0]]:
// CHECK:         cf.br ^head(%c0, %v : index, i32)
// CHECK-NEXT:  ^head(%k: index, %acc: i32):
// CHECK-NEXT:    memref.store %acc, %[[ACCA:.*]][%lin] : memref<?xi32>
// CHECK-NEXT:    memref.store %k, %[[KA:.*]][%lin] : memref<?xindex>
// CHECK:       ^body:
// CHECK:         memref.store %acc, %t[%{{.*}}] : memref<8xi32, 3 : i64>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    func.return %[[ONE]] : i32
// CHECK-NEXT:  ^[[R1]]:
// CHECK:         %[[K2:.*]] = memref.load %[[KA]][%lin] : memref<?xindex>
// CHECK-NEXT:    %k1 = arith.addi %[[K2]], %{{.*}} : index
// CHECK-NEXT:    %[[ACC2:.*]] = memref.load %[[ACCA]][%lin] : memref<?xi32>
// CHECK-NEXT:    %acc1 = arith.addi %[[ACC2]], %first : i32
// CHECK-NEXT:    cf.cond_br %stop, ^done(%acc1 : i32), ^head(%k1, %acc1 : index, i32)
// CHECK-NEXT:  ^done(%r: i32):
// CHECK:         memref.store %r, %a[%{{.*}}] : memref<?xi32>
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    func.return %[[TWO]] : i32
// CHECK-NEXT:  }
