// RUN: xmux-opt %s -p convert-to-llvm | filecheck %s

// scf.for: header with the induction variable and carried values as block arguments.
func.func @loop(%n: index, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (f32) {
    %s = arith.addf %acc, %acc : f32
    scf.yield %s : f32
  }
  return %r : f32
}
// CHECK:      llvm.func internal @loop(%[[N:.*]]: i64, %[[X:.*]]: f32) -> f32 {
// CHECK-NEXT:   %[[C0:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT:   %[[C1:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:   llvm.br ^bb1(%[[C0]], %[[X]] : i64, f32)
// CHECK-NEXT: ^bb1(%[[I:.*]]: i64, %[[ACC:.*]]: f32):
// CHECK-NEXT:   %[[LT:.*]] = llvm.icmp "slt" %[[I]], %[[N]] : i64
// CHECK-NEXT:   llvm.cond_br %[[LT]], ^bb2, ^bb3
// CHECK-NEXT: ^bb2:
// CHECK-NEXT:   %[[S:.*]] = llvm.fadd %[[ACC]], %[[ACC]] : f32
// CHECK-NEXT:   %[[NEXT:.*]] = llvm.add %[[I]], %[[C1]] : i64
// CHECK-NEXT:   llvm.br ^bb1(%[[NEXT]], %[[S]] : i64, f32)
// CHECK-NOT:    loop_parallel
// CHECK-NEXT: ^bb3:
// CHECK-NEXT:   llvm.return %[[ACC]] : f32

// scf.if: results are arguments of the merge block; no else region → branch to the merge.
func.func @cond(%c: i1, %a: i32, %b: i32) -> i32 {
  %r = scf.if %c -> (i32) {
    scf.yield %a : i32
  } else {
    %s = arith.addi %a, %b : i32
    scf.yield %s : i32
  }
  scf.if %c {
    %u = arith.addi %a, %a : i32
  }
  return %r : i32
}
// CHECK:      llvm.func internal @cond(%[[C:.*]]: i1, %[[A:.*]]: i32, %[[B:.*]]: i32) -> i32 {
// CHECK-NEXT:   llvm.cond_br %[[C]], ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT:   llvm.br ^bb3(%[[A]] : i32)
// CHECK-NEXT: ^bb2:
// CHECK-NEXT:   %[[S:.*]] = llvm.add %[[A]], %[[B]] : i32
// CHECK-NEXT:   llvm.br ^bb3(%[[S]] : i32)
// CHECK-NEXT: ^bb3(%[[R:.*]]: i32):
// CHECK-NEXT:   llvm.cond_br %[[C]], ^bb4, ^bb5
// CHECK-NEXT: ^bb4:
// CHECK-NEXT:   llvm.add %[[A]], %[[A]] : i32
// CHECK-NEXT:   llvm.br ^bb5
// CHECK-NEXT: ^bb5:
// CHECK-NEXT:   llvm.return %[[R]] : i32

// scf.while: before region → cond_br to the after region or the exit (results).
func.func @while(%x: i32) -> i32 {
  %r = scf.while (%v = %x) : (i32) -> i32 {
    %c10 = arith.constant 10 : i32
    %lt = arith.cmpi slt, %v, %c10 : i32
    scf.condition(%lt) %v : i32
  } do {
  ^bb0(%v: i32):
    %c1 = arith.constant 1 : i32
    %n = arith.addi %v, %c1 : i32
    scf.yield %n : i32
  }
  return %r : i32
}
// CHECK:      llvm.func internal @while(%[[X:.*]]: i32) -> i32 {
// CHECK-NEXT:   llvm.br ^bb1(%[[X]] : i32)
// CHECK-NEXT: ^bb1(%[[V:.*]]: i32):
// CHECK-NEXT:   %[[C10:.*]] = llvm.mlir.constant(10 : i32) : i32
// CHECK-NEXT:   %[[LT:.*]] = llvm.icmp "slt" %[[V]], %[[C10]] : i32
// CHECK-NEXT:   llvm.cond_br %[[LT]], ^bb2(%[[V]] : i32), ^bb3(%[[V]] : i32)
// CHECK-NEXT: ^bb2(%[[V2:.*]]: i32):
// CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:   %[[N:.*]] = llvm.add %[[V2]], %[[ONE]] : i32
// CHECK-NEXT:   llvm.br ^bb1(%[[N]] : i32)
// CHECK-NEXT: ^bb3(%[[R:.*]]: i32):
// CHECK-NEXT:   llvm.return %[[R]] : i32

// scf.index_switch → llvm.switch on the i64 index.
func.func @switch(%i: index) -> i32 {
  %r = scf.index_switch %i -> i32
  case 2 {
    %a = arith.constant 20 : i32
    scf.yield %a : i32
  }
  default {
    %b = arith.constant 0 : i32
    scf.yield %b : i32
  }
  return %r : i32
}
// CHECK:      llvm.func internal @switch(%[[I:.*]]: i64) -> i32 {
// CHECK-NEXT:   llvm.switch %[[I]] : i64, ^bb2 [
// CHECK-NEXT:     2: ^bb1
// CHECK-NEXT:   ]
// CHECK-NEXT: ^bb1:
// CHECK-NEXT:   %[[A:.*]] = llvm.mlir.constant(20 : i32) : i32
// CHECK-NEXT:   llvm.br ^bb3(%[[A]] : i32)
// CHECK-NEXT: ^bb2:
// CHECK-NEXT:   %[[B:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:   llvm.br ^bb3(%[[B]] : i32)
// CHECK-NEXT: ^bb3(%[[R:.*]]: i32):
// CHECK-NEXT:   llvm.return %[[R]] : i32

// scf.execute_region: its blocks are inlined, scf.yield branches to the continuation.
func.func @region(%a: i32) -> i32 {
  %r = scf.execute_region -> i32 {
    cf.br ^bb1(%a : i32)
  ^bb1(%v: i32):
    scf.yield %v : i32
  }
  return %r : i32
}
// CHECK:      llvm.func internal @region(%[[A:.*]]: i32) -> i32 {
// CHECK-NEXT:   llvm.br ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT:   llvm.br ^bb2(%[[A]] : i32)
// CHECK-NEXT: ^bb2(%[[V:.*]]: i32):
// CHECK-NEXT:   llvm.br ^bb3(%[[V]] : i32)
// CHECK-NEXT: ^bb3(%[[R:.*]]: i32):
// CHECK-NEXT:   llvm.return %[[R]] : i32
