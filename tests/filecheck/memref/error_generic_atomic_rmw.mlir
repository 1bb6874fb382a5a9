// RUN: not xmux-opt %s 2>&1 | filecheck %s
// The body's argument is the element type.

func.func @f(%m: memref<8xi32>, %i: index) -> i32 {
  %old = memref.generic_atomic_rmw %m[%i] : memref<8xi32> {
  ^bb0(%cur: i64):
    %t = arith.trunci %cur : i64 to i32
    memref.atomic_yield %t : i32
  }
  return %old : i32
}

// CHECK: memref.generic_atomic_rmw: the body takes one argument of type i32
