// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

llvm.func @fptoui(%f: f32, %d: f64, %v: vector<2xf64>) {
  %0 = llvmx.fptoui %f : f32 to i32
  %1 = llvmx.fptoui %d : f64 to i64
  %2 = llvmx.fptoui %v : vector<2xf64> to vector<2xi16>
  llvm.return
}

// CHECK-LABEL: llvm.func @fptoui
// CHECK-NEXT:    %0 = llvmx.fptoui %f : f32 to i32
// CHECK-NEXT:    %1 = llvmx.fptoui %d : f64 to i64
// CHECK-NEXT:    %2 = llvmx.fptoui %v : vector<2xf64> to vector<2xi16>

// GENERIC: "llvmx.fptoui"(%f) : (f32) -> i32
