// RUN: xmux-opt %s -p prepare-barriers | filecheck %s

// A multi-block callee called from the kernel's top level: the block is split at the call,
// the callee's blocks are copied in, its returns branch to the continuation, which receives
// the results as block arguments.

func.func private @pick(%c: i1, %v: i32) -> i32 {
  cf.cond_br %c, ^yes, ^no
^yes:
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  func.return %v : i32
^no:
  %z = arith.constant 0 : i32
  func.return %z : i32
}

func.func @k(%a: memref<?xi32>, %c: i1) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xi32>
  %r = func.call @pick(%c, %v) : (i1, i32) -> i32
  memref.store %r, %a[%i] : memref<?xi32>
  func.return
}

// CHECK-LABEL: func.func @k(%a: memref<?xi32>, %c: i1)
// CHECK-NEXT:    %i = mux.get_global_id 0 : index
// CHECK-NEXT:    %v = memref.load %a[%i] : memref<?xi32>
// CHECK-NEXT:    cf.br ^[[ENTRY:.*]](%c, %v : i1, i32)
// CHECK-NEXT:  ^[[ENTRY]](%[[C:.*]]: i1, %[[V:.*]]: i32):
// CHECK-NEXT:    cf.cond_br %[[C]], ^[[YES:.*]], ^[[NO:.*]]
// CHECK-NEXT:  ^[[YES]]:
// CHECK-NEXT:    mux.work_group_barrier id 1, work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:    cf.br ^[[CONT:.*]](%[[V]] : i32)
// CHECK-NEXT:  ^[[NO]]:
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    cf.br ^[[CONT]](%[[Z]] : i32)
// CHECK-NEXT:  ^[[CONT]](%[[R:.*]]: i32):
// CHECK-NEXT:    memref.store %[[R]], %a[%i] : memref<?xi32>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-NOT:   @pick
