// RUN: xmux-opt %s -p privatize-global-atomics | filecheck %s

// The checking mode's guards: a memref.dim of the array (its size, which the copy keeps) and
// an atomic under an scf.if that yields the old value, the if's result unused: privatized.
// When the yielded value is used, it is not.

func.func @guarded(%a: memref<?xi32>, %i: index) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %n = memref.dim %a, %c0 : memref<?xi32>
  %in = arith.cmpi ult, %i, %n : index
  %r = scf.if %in -> (i32) {
    %old = memref.atomic_rmw addi %one, %a[%i] : (i32, memref<?xi32>) -> i32
    scf.yield %old : i32
  } else {
    scf.yield %one : i32
  }
  func.return
}

func.func @yield_used(%a: memref<?xi32>, %o: memref<?xi32>, %i: index) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %t = arith.constant true
  %r = scf.if %t -> (i32) {
    %old = memref.atomic_rmw addi %one, %a[%i] : (i32, memref<?xi32>) -> i32
    scf.yield %old : i32
  } else {
    scf.yield %one : i32
  }
  memref.store %r, %o[%c0] : memref<?xi32>
  func.return
}

// CHECK:      func.func @"guarded.mux-privatized"(%a: memref<?xi32>, %i: index)
// CHECK:        %n = memref.dim %a, %c0 : memref<?xi32>
// CHECK:        memref.atomic_rmw addi %one, %a[%i] {mux.slice_private}
// CHECK-NOT:  yield_used.mux-privatized
