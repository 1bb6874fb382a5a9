// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// memref.global in the custom form mlir-opt prints parses (and prints generically).

memref.global "private" constant @c : memref<2xi32> = dense<[1, 4]> {alignment = 64 : i64}
memref.global @buf : memref<64xf32, 3> = uninitialized
memref.global "private" @s : memref<2x2xf32> = dense<1.5>

// CHECK:      "memref.global"() <{sym_name = "c", type = memref<2xi32>, initial_value = dense<[1, 4]> : tensor<2xi32>, sym_visibility = "private", constant, alignment = 64 : i64}> : () -> ()
// CHECK-NEXT: "memref.global"() <{sym_name = "buf", type = memref<64xf32, 3 : i64>, initial_value, sym_visibility = "public"}> : () -> ()
// CHECK-NEXT: "memref.global"() <{sym_name = "s", type = memref<2x2xf32>, initial_value = dense<1.500000e+00> : tensor<2x2xf32>, sym_visibility = "private"}> : () -> ()
