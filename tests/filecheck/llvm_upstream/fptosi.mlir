// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

llvm.func @fptosi(%f: f32, %d: f64, %v: vector<8xf32>) {
  %0 = llvm.fptosi %f : f32 to i32
  %1 = llvm.fptosi %d : f64 to i8
  %2 = llvm.fptosi %v : vector<8xf32> to vector<8xi32>
  llvm.return
}

// CHECK-LABEL: llvm.func @fptosi
// CHECK-NEXT:    %0 = llvm.fptosi %f : f32 to i32
// CHECK-NEXT:    %1 = llvm.fptosi %d : f64 to i8
// CHECK-NEXT:    %2 = llvm.fptosi %v : vector<8xf32> to vector<8xi32>

// GENERIC: "llvm.fptosi"(%f) : (f32) -> i32
