// RUN: xmux-opt %s -p replace-local-module-scope-variables | filecheck %s

// Globals outside memory space 3 (constant tables, global memory) are left alone, and so is a
// kernel that uses only them.

"memref.global"() <{sym_name = "table", sym_visibility = "private", type = memref<4xf32>, initial_value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>, constant}> : () -> ()
"memref.global"() <{sym_name = "g1", sym_visibility = "private", type = memref<4xf32, 1>, initial_value}> : () -> ()

func.func @k(%out: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %t = memref.get_global @table : memref<4xf32>
  %g = memref.get_global @g1 : memref<4xf32, 1>
  %v = memref.load %t[%c0] : memref<4xf32>
  memref.store %v, %out[%c0] : memref<?xf32>
  func.return
}

// CHECK:      memref.global {{.*}}@table :
// CHECK-NEXT: memref.global {{.*}}@g1 :
// CHECK-NEXT: func.func @k(%out: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   %t = memref.get_global @table : memref<4xf32>
// CHECK-NEXT:   %g = memref.get_global @g1 : memref<4xf32, 1 : i64>
// CHECK-NOT:    llvm.alloca
