// RUN: xmux-opt %s -p insert-bounds-checks | filecheck %s

// A load runs under its bounds check (0 when out of bounds), a store is skipped, a division
// by zero or INT_MIN / -1 is reported; failures call xmux_check_failed with a message
// naming the kernel and op, the indices and sizes, the local and group ids.

func.func @k(%a: memref<?x4xf32>, %n: i32) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c3 = arith.constant 3 : index
  %v = memref.load %a[%i, %c3] : memref<?x4xf32>
  memref.store %v, %a[%i, %c3] : memref<?x4xf32>
  %c7 = arith.constant 7 : i32
  %q = arith.divsi %c7, %n : i32
  func.return
}

// CHECK:      %[[D0:.*]] = memref.dim %a, %{{.*}} : memref<?x4xf32>
// CHECK-NEXT: %[[OK0:.*]] = arith.cmpi ult, %i, %[[D0]] : index
// CHECK-NEXT: %[[S1:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[OK1:.*]] = arith.cmpi ult, %c3, %[[S1]] : index
// CHECK-NEXT: %[[OK:.*]] = arith.andi %[[OK0]], %[[OK1]] : i1
// CHECK-NEXT: %[[V:.*]] = scf.if %[[OK]] -> (f32) {
// CHECK-NEXT:   %v = memref.load %a[%i, %c3] : memref<?x4xf32>
// CHECK-NEXT:   scf.yield %v : f32
// CHECK-NEXT: } else {
// CHECK-NEXT:   %{{.*}} = llvm.mlir.addressof @xmux.check.0 : !llvm.ptr
// CHECK:        %{{.*}} = mux.get_local_id 0 : index
// CHECK:        %{{.*}} = mux.get_group_id 2 : index
// CHECK:        func.call @xmux_check_failed(
// CHECK:        scf.yield %{{.*}} : f32
// CHECK-NEXT: }
// CHECK:      scf.if %{{.*}} {
// CHECK-NEXT:   memref.store %[[V]], %a[%i, %c3] : memref<?x4xf32>
// CHECK-NEXT: } else {
// CHECK:        func.call @xmux_check_failed(
// CHECK:      %[[Z:.*]] = arith.cmpi eq, %n, %{{.*}} : i32
// CHECK:      %[[BAD:.*]] = arith.ori %[[Z]], %{{.*}} : i1
// CHECK-NEXT: scf.if %[[BAD]] {
// CHECK:        func.call @xmux_check_failed(
// CHECK:      %q = arith.divsi %c7, %n : i32
// CHECK:      llvm.mlir.global internal constant @xmux.check.0("kernel @k: 'memref.load' out of bounds of memref<?x4xf32> (argument 0 ('a'))\00")
// CHECK:      llvm.mlir.global internal constant @xmux.check.2("kernel @k: 'arith.divsi' by zero or INT_MIN / -1 (dividend, divisor)\00")
// CHECK:      func.func private @xmux_check_failed(!llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
