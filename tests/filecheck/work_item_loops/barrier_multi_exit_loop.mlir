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
// work-item is not at the exit (2), run the ones waiting at the lowest barrier, through the
// copy of the region function that starts there.
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
// CHECK-NEXT:      %[[CI:.*]] = arith.index_cast %cur : i32 to index
// CHECK-NEXT:      scf.index_switch %[[CI]]
// CHECK-NEXT:      case 0 {
// CHECK-NEXT:        scf.for %[[X:.*]] = {{.*}} {
// CHECK-NEXT:          mux.set_local_id 0, %[[X]] : index
// CHECK-NEXT:          %[[S:.*]] = memref.load %[[STATE]][%[[X]]] : memref<?xi32>
// CHECK-NEXT:          %[[ACTIVE:.*]] = arith.cmpi eq, %[[S]], %cur : i32
// CHECK-NEXT:          scf.if %[[ACTIVE]] {
// CHECK-NEXT:            %[[NEXT:.*]] = func.call @"k.mux-region-0"(%a, %t, %n, %[[X]], %cur, %[[K]], %[[ACC]])
// CHECK-NEXT:            memref.store %[[NEXT]], %[[STATE]][%[[X]]] : memref<?xi32>
// CHECK-NEXT:          }
// CHECK-NEXT:        } {mux.work_item_loop}
// CHECK-NEXT:        scf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      case 1 {
// CHECK:               func.call @"k.mux-region-1"
// CHECK:           default {
// CHECK-NEXT:        scf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK:           %[[MIN:.*]] = scf.for {{.*}} iter_args(%[[M:.*]] = %[[EXIT]]) -> (i32) {
// CHECK-NEXT:        %[[Y:.*]] = memref.load %[[STATE]][%{{.*}}] : memref<?xi32>
// CHECK-NEXT:        %[[M2:.*]] = arith.minui %[[M]], %[[Y]] : i32
// CHECK-NEXT:        scf.yield %[[M2]] : i32
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[MIN]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// Region 0: from the entry to the barrier (returns 1) or the return (returns 2). The loop
// header's arguments are stored where they are defined.
// CHECK:       func.func private @"k.mux-region-0"(%a: memref<?xi32>, %t: memref<8xi32, 3 : i64>, %n: index, %lin: index, %state: i32, %[[KA:.*]]: memref<?xindex>, %[[ACCA:.*]]: memref<?xi32>) -> i32 {
// CHECK-NEXT:    cf.br ^{{.*}}
// CHECK:         cf.br ^[[HEAD:.*]](%c0, %v : index, i32)
// CHECK-NEXT:  ^[[HEAD]](%k: index, %acc: i32):
// CHECK-NEXT:    memref.store %acc, %[[ACCA]][%lin] : memref<?xi32>
// CHECK-NEXT:    memref.store %k, %[[KA]][%lin] : memref<?xindex>
// CHECK-NEXT:    %more = arith.cmpi ult, %k, %n : index
// CHECK-NEXT:    cf.cond_br %more, ^[[BODY:.*]], ^[[DONE:.*]](%acc : i32)
// CHECK-NEXT:  ^[[BODY]]:
// CHECK:         memref.store %acc, %t[%{{.*}}] : memref<8xi32, 3 : i64>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    func.return %[[ONE]] : i32
// CHECK-NEXT:  ^[[DONE]](%r: i32):
// CHECK:         %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    func.return %[[TWO]] : i32
// CHECK-NEXT:  }

// Region 1: from the barrier around the loop: %k and %acc come from storage.
// CHECK:       func.func private @"k.mux-region-1"(%a: memref<?xi32>, %t: memref<8xi32, 3 : i64>, %n: index, %lin: index, %state: i32, %[[KB:.*]]: memref<?xindex>, %[[ACCB:.*]]: memref<?xi32>) -> i32 {
// CHECK-NEXT:    cf.br ^[[AFTER:.*]]
// CHECK:       ^[[AFTER]]:
// CHECK:         %[[K2:.*]] = memref.load %[[KB]][%lin] : memref<?xindex>
// CHECK-NEXT:    %k1 = arith.addi %[[K2]], %{{.*}} : index
// CHECK-NEXT:    %[[ACC2:.*]] = memref.load %[[ACCB]][%lin] : memref<?xi32>
// CHECK-NEXT:    %acc1 = arith.addi %[[ACC2]], %first : i32
// CHECK-NEXT:    cf.cond_br %stop, ^{{.*}}(%acc1 : i32), ^{{.*}}(%k1, %acc1 : index, i32)
