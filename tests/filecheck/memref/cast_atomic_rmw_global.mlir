// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// The custom forms of memref.cast, memref.atomic_rmw and memref.global as mlir-opt prints
// them read and print back (a declaration without `=` reads as `= uninitialized`).

memref.global "private" @tile : memref<16x16xf32, 3>
memref.global "private" constant @lut : memref<3xi32> = dense<[1, 2, 3]> {alignment = 64 : i64}
memref.global @out : memref<f64> = dense<2.5>

func.func @f(%a: memref<13xf32>, %v: f32, %i: index) -> f32 {
  %d = memref.cast %a : memref<13xf32> to memref<?xf32>
  %u = memref.cast %d : memref<?xf32> to memref<*xf32>
  %old = memref.atomic_rmw addf %v, %d[%i] : (f32, memref<?xf32>) -> f32
  %m = memref.atomic_rmw maximumf %v, %a[%i] : (f32, memref<13xf32>) -> f32
  %t = memref.get_global @tile : memref<16x16xf32, 3>
  return %old : f32
}

// CHECK:      memref.global "private" @tile : memref<16x16xf32, 3 : i64> = uninitialized
// CHECK-NEXT: memref.global "private" constant @lut : memref<3xi32> = dense<[1, 2, 3]> {alignment = 64 : i64}
// CHECK-NEXT: memref.global @out : memref<f64> = dense<2.500000e+00>
// CHECK:      %d = memref.cast %a : memref<13xf32> to memref<?xf32>
// CHECK-NEXT: %u = memref.cast %d : memref<?xf32> to memref<*xf32>
// CHECK-NEXT: %old = memref.atomic_rmw addf %v, %d[%i] : (f32, memref<?xf32>) -> f32
// CHECK-NEXT: %m = memref.atomic_rmw maximumf %v, %a[%i] : (f32, memref<13xf32>) -> f32
