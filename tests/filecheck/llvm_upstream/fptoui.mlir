// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

llvm.func @fptoui(%f: f32, %d: f64, %v: vector<2xf64>) {
  %0 = llvm.fptoui %f : f32 to i32
  %1 = llvm.fptoui %d : f64 to i64
  %2 = llvm.fptoui %v : vector<2xf64> to vector<2xi16>
  llvm.return
}

// CHECK-LABEL: llvm.func @fptoui
// CHECK-NEXT:    %0 = llvm.fptoui %f : f32 to i32
// CHECK-NEXT:    %1 = llvm.fptoui %d : f64 to i64
// CHECK-NEXT:    %2 = llvm.fptoui %v : vector<2xf64> to vector<2xi16>

// GENERIC: "llvm.fptoui"(%f) : (f32) -> i32
