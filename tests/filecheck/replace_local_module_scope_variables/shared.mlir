// RUN: xmux-opt %s -p replace-local-module-scope-variables | filecheck %s

// Two kernels share one local global: each allocates its own struct (its own work-groups);
// a kernel that uses no local memory allocates nothing.

"memref.global"() <{sym_name = "acc", sym_visibility = "private", type = memref<32xi32, 3>, initial_value}> : () -> ()

func.func @a(%out: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %s = memref.get_global @acc : memref<32xi32, 3>
  %v = memref.load %s[%c0] : memref<32xi32, 3>
  memref.store %v, %out[%c0] : memref<?xi32>
  func.return
}
func.func @b(%in: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %c1 = arith.constant 1 : index
  %v = memref.load %in[%c1] : memref<?xi32>
  %s = memref.get_global @acc : memref<32xi32, 3>
  memref.store %v, %s[%c1] : memref<32xi32, 3>
  func.return
}
func.func @none(%in: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  func.return
}

// CHECK-NOT:  memref.global
// CHECK:      func.func @a(%out: memref<?xi32>) attributes {mux.kernel = "entry_point", mux.local_mem_usage = 128 : i64} {
// CHECK-NEXT:   %0 = arith.constant 1 : i64
// CHECK-NEXT:   %local_guarded = llvm.alloca %0 x !llvm.array<640 x i8> {alignment = 16 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT: %local_mem = llvm.getelementptr inbounds %local_guarded[256] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:        %acc = builtin.unrealized_conversion_cast %{{.*}} to memref<32xi32, 3 : i64>
// CHECK:        %v = memref.load %acc[%c0] : memref<32xi32, 3 : i64>
// CHECK:      func.func @b(%in: memref<?xi32>) attributes {mux.kernel = "entry_point", mux.local_mem_usage = 128 : i64} {
// CHECK-NEXT:   %0 = arith.constant 1 : i64
// CHECK-NEXT:   %local_guarded = llvm.alloca %0 x !llvm.array<640 x i8> {alignment = 16 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT: %local_mem = llvm.getelementptr inbounds %local_guarded[256] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:        %acc = builtin.unrealized_conversion_cast %{{.*}} to memref<32xi32, 3 : i64>
// CHECK:        memref.store %v, %acc[%c1] : memref<32xi32, 3 : i64>
// CHECK:      func.func @none(%in: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
// CHECK-NEXT:   func.return
// CHECK-NOT:  memref.get_global
