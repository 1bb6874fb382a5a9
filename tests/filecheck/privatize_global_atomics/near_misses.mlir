// RUN: xmux-opt %s -p privatize-global-atomics | filecheck %s

// Near misses: no variant where an argument's uses are not all result-less atomics of one
// privatizable kind on global integer memory.

func.func private @use(memref<4xi32>)

// CHECK-NOT: mux-privatized
// CHECK-NOT: mux.slice_private

// the old value is used
func.func @result_used(%a: memref<4xi32>, %o: memref<4xi32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %t = memref.atomic_rmw addi %one, %a[%c0] : (i32, memref<4xi32>) -> i32
  memref.store %t, %o[%c0] : memref<4xi32>
  func.return
}

// two kinds on one array
func.func @two_kinds(%a: memref<4xi32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %0 = memref.atomic_rmw addi %one, %a[%c0] : (i32, memref<4xi32>) -> i32
  %1 = memref.atomic_rmw ori %one, %a[%c0] : (i32, memref<4xi32>) -> i32
  func.return
}

// a plain load of the array
func.func @loaded(%a: memref<4xi32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %0 = memref.atomic_rmw addi %one, %a[%c0] : (i32, memref<4xi32>) -> i32
  %v = memref.load %a[%c0] : memref<4xi32>
  func.return
}

// passed to a call
func.func @called(%a: memref<4xi32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %0 = memref.atomic_rmw addi %one, %a[%c0] : (i32, memref<4xi32>) -> i32
  func.call @use(%a) : (memref<4xi32>) -> ()
  func.return
}

// a view of it
func.func @viewed(%a: memref<4xi32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %0 = memref.atomic_rmw addi %one, %a[%c0] : (i32, memref<4xi32>) -> i32
  %s = memref.subview %a[1] [2] [1] : memref<4xi32> to memref<2xi32, strided<[1], offset: 1>>
  func.return
}

// floats (addf is not associative)
func.func @float(%a: memref<4xf32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %0 = memref.atomic_rmw addf %one, %a[%c0] : (f32, memref<4xf32>) -> f32
  func.return
}

// a kind without an atomicrmw flush (muli) and one that is not commutative (assign)
func.func @muli_assign(%a: memref<4xi32>, %b: memref<4xi32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 3 : i32
  %0 = memref.atomic_rmw muli %one, %a[%c0] : (i32, memref<4xi32>) -> i32
  %1 = memref.atomic_rmw assign %one, %b[%c0] : (i32, memref<4xi32>) -> i32
  func.return
}

// work-group local memory (already plain updates on the CPU)
func.func @local(%a: memref<4xi32, 3>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %0 = memref.atomic_rmw addi %one, %a[%c0] : (i32, memref<4xi32, 3>) -> i32
  func.return
}

// a pointer argument could reach the array
func.func @pointer_arg(%a: memref<4xi32>, %p: !llvm.ptr) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %0 = memref.atomic_rmw addi %one, %a[%c0] : (i32, memref<4xi32>) -> i32
  func.return
}

// not a kernel
func.func @helper(%a: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %0 = memref.atomic_rmw addi %one, %a[%c0] : (i32, memref<4xi32>) -> i32
  func.return
}
