// RUN: xmux-opt %s -p privatize-global-atomics | filecheck %s

// A module with mutable global memory: a host could pass @g as %a while the kernel also
// updates it by name, so nothing is privatized (constant and local-memory globals do not
// count: constant_global.mlir).

memref.global "private" @g : memref<4xi32> = dense<0>

func.func @k(%a: memref<4xi32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %0 = memref.atomic_rmw addi %one, %a[%c0] : (i32, memref<4xi32>) -> i32
  %g = memref.get_global @g : memref<4xi32>
  %1 = memref.atomic_rmw addi %one, %g[%c0] : (i32, memref<4xi32>) -> i32
  func.return
}

// CHECK-NOT: mux-privatized
// CHECK-NOT: mux.slice_private
