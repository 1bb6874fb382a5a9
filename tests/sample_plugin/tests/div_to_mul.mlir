// RUN: xmux-opt %s -p div-to-mul | filecheck %s
// RUN: xdsl-opt %s -p div-to-mul | filecheck %s

func.func @k(%a: memref<16xf32>) attributes {mux.kernel} {
  %i = mux.get_global_id 0 : index
  %x = memref.load %a[%i] : memref<16xf32>
  %c4 = arith.constant 4.000000e+00 : f32
  %c3 = arith.constant 3.000000e+00 : f32
  %q = arith.divf %x, %c4 : f32
  %t = arith.divf %q, %c3 : f32
  memref.store %t, %a[%i] : memref<16xf32>
  func.return
}

// CHECK-LABEL: func.func @k
// CHECK:         %[[X:.*]] = memref.load
// CHECK:         %[[R:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-NEXT:    %[[Q:.*]] = arith.mulf %[[X]], %[[R]] : f32
// the reciprocal of 3 is not exact: the division stays
// CHECK-NEXT:    %{{.*}} = arith.divf %[[Q]], %{{.*}} : f32
