// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// memref.global in the custom form mlir-opt prints parses and prints back in that form.

memref.global "private" constant @c : memref<2xi32> = dense<[1, 4]> {alignment = 64 : i64}
memref.global @buf : memref<64xf32, 3> = uninitialized
memref.global "private" @s : memref<2x2xf32> = dense<1.5>

// CHECK:      memref.global "private" constant @c : memref<2xi32> = dense<[1, 4]> {alignment = 64 : i64}
// CHECK-NEXT: memref.global @buf : memref<64xf32, 3 : i64> = uninitialized
// CHECK-NEXT: memref.global "private" @s : memref<2x2xf32> = dense<1.500000e+00>
