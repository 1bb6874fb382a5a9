// RUN: xmux-opt %s -p privatize-global-atomics | filecheck %s

// Constant globals and work-group local memory (space 3) cannot be a kernel's global
// argument: the kernel is privatized, and only the argument's atomics are marked.

memref.global "private" constant @table : memref<4xi32> = dense<[0, 1, 2, 3]>
memref.global "private" @scratch : memref<4xi32, 3> = uninitialized

func.func @k(%a: memref<4xi32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %t = memref.get_global @table : memref<4xi32>
  %v = memref.load %t[%c0] : memref<4xi32>
  %s = memref.get_global @scratch : memref<4xi32, 3>
  %0 = memref.atomic_rmw addi %v, %s[%c0] : (i32, memref<4xi32, 3 : i64>) -> i32
  %1 = memref.atomic_rmw addi %v, %a[%c0] : (i32, memref<4xi32>) -> i32
  func.return
}

// CHECK:      func.func @"k.mux-privatized"(%a: memref<4xi32>)
// CHECK:        memref.atomic_rmw addi %v, %s[%c0] : (i32, memref<4xi32, 3 : i64>) -> i32
// CHECK-NEXT:   memref.atomic_rmw addi %v, %a[%c0] {mux.slice_private} : (i32, memref<4xi32>) -> i32
