// RUN: xmux-opt %s -p 'add-floating-point-control{arch=x86_64}' | filecheck %s

// Without entry hooks, entry points are the targets; every return restores MXCSR.

func.func @k(%c: i1) attributes {mux.kernel = "entry_point"} {
  cf.cond_br %c, ^a, ^b
^a:
  func.return
^b:
  func.return
}

func.func @helper() {
  func.return
}

// CHECK-LABEL: func.func @k(%c: i1) attributes {mux.kernel = "entry_point"} {
// CHECK-NEXT:    %{{.*}} = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[SAVED:.*]] = llvm.alloca
// CHECK:         llvm.call_intrinsic "llvm.x86.sse.ldmxcsr"
// CHECK-NEXT:    cf.cond_br %c, ^[[A:.*]], ^[[B:.*]]
// CHECK-NEXT:  ^[[A]]:
// CHECK-NEXT:    llvm.call_intrinsic "llvm.x86.sse.ldmxcsr"(%[[SAVED]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:    func.return
// CHECK-NEXT:  ^[[B]]:
// CHECK-NEXT:    llvm.call_intrinsic "llvm.x86.sse.ldmxcsr"(%[[SAVED]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @helper() {
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
