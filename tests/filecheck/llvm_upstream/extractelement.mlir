// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

llvm.func @extractelement(%v: vector<4xf32>, %w: vector<16xi8>, %i: i32, %j: i64) {
  %0 = llvm.extractelement %v[%i : i32] : vector<4xf32>
  %1 = llvm.extractelement %w[%j : i64] : vector<16xi8>
  llvm.return
}

// The result type is the element type (inferred).
// CHECK-LABEL: llvm.func @extractelement
// CHECK-NEXT:    %0 = llvm.extractelement %v[%i : i32] : vector<4xf32>
// CHECK-NEXT:    %1 = llvm.extractelement %w[%j : i64] : vector<16xi8>

// GENERIC:      "llvm.extractelement"(%v, %i) : (vector<4xf32>, i32) -> f32
// GENERIC-NEXT: "llvm.extractelement"(%w, %j) : (vector<16xi8>, i64) -> i8
