// RUN: xmux-opt %s -p convert-to-llvm | filecheck %s

// Branches map 1:1 onto the converted blocks; cf.switch becomes llvm.switch.
func.func @branches(%x: i32, %c: i1) -> i32 {
  cf.cond_br %c, ^bb1(%x : i32), ^bb2
^bb1(%a: i32):
  cf.switch %a : i32, [
    default: ^bb2,
    4: ^bb3(%a : i32),
    -1: ^bb3(%x : i32)
  ]
^bb2:
  %z = arith.constant 0 : i32
  cf.br ^bb3(%z : i32)
^bb3(%r: i32):
  return %r : i32
}
// CHECK:      llvm.func internal @branches(%[[X:.*]]: i32, %[[C:.*]]: i1) -> i32 {
// CHECK-NEXT:   llvm.cond_br %[[C]], ^bb1(%[[X]] : i32), ^bb2
// CHECK-NEXT: ^bb1(%[[A:.*]]: i32):
// CHECK-NEXT:   llvm.switch %[[A]] : i32, ^bb2 [
// CHECK-NEXT:     4: ^bb3(%[[A]] : i32),
// CHECK-NEXT:     -1: ^bb3(%[[X]] : i32)
// CHECK-NEXT:   ]
// CHECK-NEXT: ^bb2:
// CHECK-NEXT:   %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:   llvm.br ^bb3(%[[Z]] : i32)
// CHECK-NEXT: ^bb3(%[[R:.*]]: i32):
// CHECK-NEXT:   llvm.return %[[R]] : i32

// cf.assert: a failure block prints the message with puts and aborts.
func.func @check(%ok: i1) {
  cf.assert %ok, "n must be positive"
  return
}
// CHECK:      llvm.func internal @check(%[[OK:.*]]: i1) {
// CHECK-NEXT:   llvm.cond_br %[[OK]], ^bb2, ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT:   %[[MSG:.*]] = llvm.mlir.addressof @xmux.str.0 : !llvm.ptr
// CHECK-NEXT:   %{{.*}} = llvm.call @puts(%[[MSG]]) : (!llvm.ptr) -> i32
// CHECK-NEXT:   llvm.call @abort() : () -> ()
// CHECK-NEXT:   llvm.unreachable
// CHECK-NEXT: ^bb2:
// CHECK-NEXT:   llvm.return
// CHECK:      llvm.mlir.global internal constant @xmux.str.0("assertion failed in @check: n must be positive\00")
// CHECK:      llvm.func @puts(!llvm.ptr) -> i32
// CHECK-NEXT: llvm.func @abort()
