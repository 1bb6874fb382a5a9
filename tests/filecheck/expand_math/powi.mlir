// RUN: xmux-opt %s -p 'expand-math{all=true}' | filecheck %s
// RUN: xmux-opt %s -p expand-math | filecheck %s --check-prefix=CPU

// fpowi: compiler-rt's __powidf2 loop (what the CPU's llvm.powi calls), one iteration per
// bit of the exponent, 1 / r for a negative exponent
func.func @fpowi(%x: f64, %n: i32) -> f64 {
  %r = math.fpowi %x, %n : f64, i32
  func.return %r : f64
}

// CHECK-LABEL: func.func @fpowi
// CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK:         %[[W:.*]] = arith.constant 32 : index
// CHECK:         %[[L:.*]], %{{.*}}, %{{.*}} = scf.for %{{.*}} = %{{.*}} to %[[W]] step %{{.*}} iter_args(%[[R:.*]] = %[[ONE]], %[[A:.*]] = %x, %[[B:.*]] = %n) -> (f64, f64, i32) {
// CHECK-NEXT:      %[[BIT:.*]] = arith.andi %[[B]], %{{.*}} : i32
// CHECK-NEXT:      %[[SET:.*]] = arith.cmpi ne, %[[BIT]], %{{.*}} : i32
// CHECK-NEXT:      %[[RA:.*]] = arith.mulf %[[R]], %[[A]] : f64
// CHECK-NEXT:      %[[R2:.*]] = arith.select %[[SET]], %[[RA]], %[[R]] : f64
// CHECK-NEXT:      %[[B2:.*]] = arith.divsi %[[B]], %{{.*}} : i32
// CHECK-NEXT:      %[[A2:.*]] = arith.mulf %[[A]], %[[A]] : f64
// CHECK-NEXT:      scf.yield %[[R2]], %[[A2]], %[[B2]] : f64, f64, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[NEG:.*]] = arith.cmpi slt, %n, %{{.*}} : i32
// CHECK-NEXT:    %[[INV:.*]] = arith.divf %[[ONE]], %[[L]] : f64
// CHECK-NEXT:    %r = arith.select %[[NEG]], %[[INV]], %[[L]] : f64

// CPU-LABEL: func.func @fpowi
// CPU-NEXT:    %r = math.fpowi %x, %n : f64, i32

// ipowi: the same loop on integers; a negative exponent gives 0 unless the base is 1 or -1
// (upstream's results). On a CPU target (libm computes the rest) it is the only op expanded.
func.func @ipowi(%x: i64, %n: i64, %y: f32) -> (i64, f32) {
  %r = math.ipowi %x, %n : i64
  %e = math.exp %y : f32
  func.return %r, %e : i64, f32
}

// CHECK-LABEL: func.func @ipowi
// CHECK:         %[[W:.*]] = arith.constant 64 : index
// CHECK:         scf.for
// CHECK:           arith.muli
// CHECK:         arith.cmpi slt, %n
// CHECK:         arith.cmpi eq, %x
// CHECK:         %r = arith.select
// CHECK-NOT:     math.exp

// CPU-LABEL: func.func @ipowi
// CPU:         scf.for
// CPU:         %r = arith.select
// CPU-NEXT:    %e = math.exp %y : f32
