// RUN: xmux-opt %s -p lower-kernel-asserts | filecheck %s

// A cf.assert in a kernel, or in a function a kernel calls, becomes a report through
// xmux_check_failed (message naming the kernel or function, no indices, the local and group
// ids) under scf.if on the negated condition; one outside kernel code (host @main) is left
// for the lowering's abort.

func.func @helper(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %pos = arith.cmpi sgt, %x, %c0 : i32
  cf.assert %pos, "x positive"
  func.return %x : i32
}

func.func @k(%a: memref<?xi32>, %n: i32) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %ii = arith.index_cast %i : index to i32
  %ok = arith.cmpi slt, %ii, %n : i32
  cf.assert %ok, "id below n"
  %y = func.call @helper(%n) : (i32) -> i32
  memref.store %y, %a[%i] : memref<?xi32>
  func.return
}

func.func @main() {
  %f = arith.constant false
  cf.assert %f, "host code"
  func.return
}

// CHECK-LABEL: func.func @helper
// CHECK:        %pos = arith.cmpi sgt, %x, %c0 : i32
// CHECK-NEXT:   %[[T:.*]] = arith.constant true
// CHECK-NEXT:   %[[F:.*]] = arith.xori %pos, %[[T]] : i1
// CHECK-NEXT:   scf.if %[[F]] {
// CHECK-NEXT:     %[[M:.*]] = llvm.mlir.addressof @xmux.check.1 : !llvm.ptr
// CHECK-NEXT:     %[[R:.*]] = arith.constant 0 : i64
// CHECK:          mux.get_local_id 0 : index
// CHECK:          mux.get_group_id 2 : index
// CHECK:          func.call @xmux_check_failed(%[[M]], %[[R]],
// CHECK-NEXT:   }
// CHECK-NEXT:   func.return %x : i32
// CHECK-NOT:  cf.assert

// CHECK-LABEL: func.func @k
// CHECK:        %ok = arith.cmpi slt, %ii, %n : i32
// CHECK-NEXT:   %[[T2:.*]] = arith.constant true
// CHECK-NEXT:   %[[F2:.*]] = arith.xori %ok, %[[T2]] : i1
// CHECK-NEXT:   scf.if %[[F2]] {
// CHECK-NEXT:     llvm.mlir.addressof @xmux.check.0 : !llvm.ptr
// CHECK:          func.call @xmux_check_failed(
// CHECK-NEXT:   }
// CHECK-NEXT:   %y = func.call @helper(%n) : (i32) -> i32

// CHECK-LABEL: func.func @main
// CHECK:        cf.assert %f, "host code"

// CHECK:      llvm.mlir.global internal constant @xmux.check.0("kernel @k: assertion failed: id below n\00")
// CHECK-NEXT: llvm.mlir.global internal constant @xmux.check.1("@helper: assertion failed: x positive\00")
// CHECK-NEXT: func.func private @xmux_check_failed(!llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
