// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// memref.generic_atomic_rmw: the body maps the element's current value to its new one; the
// result is the value before.

func.func @f(%m: memref<4x8xf32, 3>, %i: index, %j: index, %s: f32) -> f32 {
  %old = memref.generic_atomic_rmw %m[%i, %j] : memref<4x8xf32, 3> {
  ^bb0(%cur: f32):
    %new = arith.maximumf %cur, %s : f32
    memref.atomic_yield %new : f32
  }
  return %old : f32
}

// CHECK:      %old = memref.generic_atomic_rmw %m[%i, %j] : memref<4x8xf32, 3 : i64> {
// CHECK-NEXT: ^bb0(%cur: f32):
// CHECK-NEXT:   %new = arith.maximumf %cur, %s : f32
// CHECK-NEXT:   memref.atomic_yield %new : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return %old : f32
