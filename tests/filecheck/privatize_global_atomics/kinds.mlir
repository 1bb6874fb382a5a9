// RUN: xmux-opt %s -p privatize-global-atomics | filecheck %s

// A kernel whose global integer arrays are only updated by result-less atomics of one
// commutative, associative kind each gets a variant, @"<k>.mux-privatized" (a sub_kernel),
// with those atomics marked mux.slice_private; the kernel itself is unchanged. Other
// arguments (%d: loaded) and their accesses are left as they are.

func.func @k(%d: memref<?xi8>, %add: memref<256xi32>, %or: memref<?xi64>, %and: memref<4xi8>,
             %smax: memref<2x3xi16>, %umax: memref<?xi32>, %smin: memref<1xi32>,
             %umin: memref<1xi32>, %n: index, %x: f32)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %b = memref.load %d[%i] : memref<?xi8>
  %b32 = arith.extui %b : i8 to i32
  %bin = arith.index_cast %b32 : i32 to index
  %one = arith.constant 1 : i32
  %w = arith.constant 5 : i64
  %v8 = arith.constant 7 : i8
  %v16 = arith.constant -3 : i16
  %0 = memref.atomic_rmw addi %one, %add[%bin] : (i32, memref<256xi32>) -> i32
  %1 = memref.atomic_rmw addi %one, %add[%c0] : (i32, memref<256xi32>) -> i32
  %2 = memref.atomic_rmw ori %w, %or[%i] : (i64, memref<?xi64>) -> i64
  %3 = memref.atomic_rmw andi %v8, %and[%c0] : (i8, memref<4xi8>) -> i8
  %4 = memref.atomic_rmw maxs %v16, %smax[%c0, %c0] : (i16, memref<2x3xi16>) -> i16
  %5 = memref.atomic_rmw maxu %b32, %umax[%i] : (i32, memref<?xi32>) -> i32
  %6 = memref.atomic_rmw mins %b32, %smin[%c0] : (i32, memref<1xi32>) -> i32
  %7 = memref.atomic_rmw minu %b32, %umin[%c0] : (i32, memref<1xi32>) -> i32
  func.return
}

// CHECK:      func.func @k(
// CHECK-SAME:   attributes {mux.kernel = "entry_point"}
// CHECK-NOT:  mux.slice_private
// CHECK:      func.return
// CHECK:      func.func @"k.mux-privatized"(%d: memref<?xi8>, %add: memref<256xi32>
// CHECK-SAME:   attributes {mux.kernel = "sub_kernel"}
// CHECK:        %b = memref.load %d[%i] : memref<?xi8>
// CHECK:        memref.atomic_rmw addi %one, %add[%bin] {mux.slice_private} : (i32, memref<256xi32>) -> i32
// CHECK-NEXT:   memref.atomic_rmw addi %one, %add[%c0] {mux.slice_private}
// CHECK-NEXT:   memref.atomic_rmw ori %w, %or[%i] {mux.slice_private}
// CHECK-NEXT:   memref.atomic_rmw andi %v8, %and[%c0] {mux.slice_private}
// CHECK-NEXT:   memref.atomic_rmw maxs %v16, %smax[%c0, %c0] {mux.slice_private}
// CHECK-NEXT:   memref.atomic_rmw maxu %b32, %umax[%i] {mux.slice_private}
// CHECK-NEXT:   memref.atomic_rmw mins %b32, %smin[%c0] {mux.slice_private}
// CHECK-NEXT:   memref.atomic_rmw minu %b32, %umin[%c0] {mux.slice_private}
// CHECK-NEXT:   func.return
