// RUN: xmux-opt %s -p 'attach-target{triple=nvptx64-nvidia-cuda chip=sm_90 features="+ptx80" vector-bits=0 vector-registers=0},expand-math' | filecheck %s
// RUN: xmux-opt %s -p 'expand-math' | filecheck %s --check-prefix=CPU

// llvm-dialect input (a client's partly lowered helper): on a GPU target the intrinsics PTX
// has no exact instruction for become their math op, expanded as math.* is (no llvm.intr.exp
// etc. left, which NVPTX cannot select: "no libcall available for fexp"); the exact ones
// (sqrt, fma, fabs, floor...) stay. A CPU target calls libm: nothing changes.

llvm.func @helper(%x: f32, %y: f64, %v: vector<2xf32>) -> f32 {
  %a = llvm.intr.exp(%x) : (f32) -> f32
  %b = llvm.intr.exp2(%a) : (f32) -> f32
  %c = llvm.intr.log(%b) : (f32) -> f32
  %d = llvm.intr.log2(%c) : (f32) -> f32
  %e = llvm.intr.sin(%d) : (f32) -> f32
  %f = llvm.intr.cos(%e) : (f32) -> f32
  %g = llvm.intr.pow(%f, %x) : (f32, f32) -> f32
  %h = llvm.intr.sqrt(%g) : (f32) -> f32
  %k = llvm.intr.fma(%h, %h, %x) {fastmathFlags = #llvm.fastmath<fast>} : (f32, f32, f32) -> f32
  %l = llvm.intr.sin(%y) : (f64) -> f64
  %w = llvm.intr.cos(%v) : (vector<2xf32>) -> vector<2xf32>
  llvm.return %k : f32
}

// CHECK-LABEL: llvm.func @helper
// CHECK-NOT:     llvm.intr.{{exp|exp2|log|log2|sin|cos|pow}}(
// CHECK-NOT:     math.{{exp|exp2|log|log2|sin|cos|powf}} 
// CHECK:         %{{.*}} = arith.extf %x : f32 to f64
// CHECK:         %h = llvm.intr.sqrt(%{{.*}}) : (f32) -> f32
// CHECK-NEXT:    %k = llvm.intr.fma(%h, %h, %x) {fastmathFlags = #llvm.fastmath<fast>} : (f32, f32, f32) -> f32
// CHECK-NOT:     llvm.intr.{{exp|exp2|log|log2|sin|cos|pow}}(
// CHECK-NOT:     math.{{exp|exp2|log|log2|sin|cos|powf}} 
// CHECK:         vector.extract %v[0] : f32 from vector<2xf32>
// CHECK-NOT:     llvm.intr.cos
// CHECK:         vector.insert %{{.*}} [1] : f32 into vector<2xf32>
// CHECK:         llvm.return %k : f32

// CPU-LABEL: llvm.func @helper
// CPU-NEXT:    %a = llvm.intr.exp(%x) : (f32) -> f32
// CPU-NEXT:    %b = llvm.intr.exp2(%a) : (f32) -> f32
// CPU-NEXT:    %c = llvm.intr.log(%b) : (f32) -> f32
// CPU-NEXT:    %d = llvm.intr.log2(%c) : (f32) -> f32
// CPU-NEXT:    %e = llvm.intr.sin(%d) : (f32) -> f32
// CPU-NEXT:    %f = llvm.intr.cos(%e) : (f32) -> f32
// CPU-NEXT:    %g = llvm.intr.pow(%f, %x) : (f32, f32) -> f32
