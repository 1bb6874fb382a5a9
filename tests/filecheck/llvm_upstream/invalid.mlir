// RUN: xmux-opt %s --split-input-file --verify-diagnostics | filecheck %s

llvm.func @f(%p: !llvm.ptr, %v: i32) {
  %0 = llvm.atomicrmw fadd %p, %v monotonic : !llvm.ptr, i32
  llvm.return
}
// CHECK: llvm.atomicrmw fadd: expected a floating point type, got i32

// -----
llvm.func @f(%p: !llvm.ptr, %v: f32) {
  %0 = llvm.atomicrmw add %p, %v monotonic : !llvm.ptr, f32
  llvm.return
}
// CHECK: llvm.atomicrmw add: expected an integer type, got f32

// -----
llvm.func @f(%p: !llvm.ptr, %v: i32) {
  %0 = llvm.atomicrmw add %p, %v unordered : !llvm.ptr, i32
  llvm.return
}
// CHECK: llvm.atomicrmw: ordering must be at least 'monotonic'

// -----
llvm.func @f(%p: !llvm.ptr, %v: i32) {
  %0 = llvm.cmpxchg %p, %v, %v seq_cst release : !llvm.ptr, i32
  llvm.return
}
// CHECK: llvm.cmpxchg: failure ordering cannot be 'release'

// -----
llvm.func @f(%p: !llvm.ptr, %v: f32) {
  %0 = llvm.cmpxchg %p, %v, %v seq_cst seq_cst : !llvm.ptr, f32
  llvm.return
}
// CHECK: llvm.cmpxchg: expected an integer or pointer type, got f32

// -----
llvm.func @f() {
  llvm.fence monotonic
  llvm.return
}
// CHECK: llvm.fence: ordering must be acquire, release, acq_rel or seq_cst, got 'monotonic'

// -----
llvm.func @f(%x: i32, %a: i64) {
  llvm.switch %x : i32, ^bb1(%x : i32) [
  ]
^bb1(%b: i64):
  llvm.return
}
// CHECK: llvm.switch: branch operands (i32) do not match the destination block arguments (i64)

// -----
llvm.func @f(%x: i32) {
  "llvm.switch"(%x) [^bb1, ^bb1] <{case_operand_segments = array<i32: 0>, case_values = dense<[1, 2]> : vector<2xi32>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
^bb1:
  llvm.return
}
// CHECK: llvm.switch: 2 case values, 1 case destinations and 1 operand segments must agree

// -----
llvm.func @f(%x: i32) {
  llvm.switch %x : i32, ^bb1 [
    1: ^bb1,
    1: ^bb1
  ]
^bb1:
  llvm.return
}
// CHECK: llvm.switch: duplicate case values

// -----
llvm.func @f(%v: vector<4xi32>) {
  %0 = llvm.uitofp %v : vector<4xi32> to vector<2xf32>
  llvm.return
}
// CHECK: llvm.uitofp: vector<4xi32> and vector<2xf32> must have the same shape

// -----
llvm.func @f(%v: i32) {
  %0 = llvm.fptosi %v : i32 to i32
  llvm.return
}
// CHECK: Unexpected attribute i32

// -----
func.func @f(%v: vector<2x2xf32>, %i: i32) {
  %0 = "llvm.extractelement"(%v, %i) : (vector<2x2xf32>, i32) -> f32
  func.return
}
// CHECK: Operation does not verify: operand 'vector' at position 0 does not verify
