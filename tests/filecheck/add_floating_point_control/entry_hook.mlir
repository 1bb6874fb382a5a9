// RUN: xmux-opt %s -p 'add-floating-point-control{arch=x86_64}' | filecheck %s
// RUN: xmux-opt %s -p 'add-floating-point-control{arch=x86_64 ftz-daz=false}' | filecheck %s --check-prefix=NOFTZ
// RUN: xmux-opt %s -p 'add-floating-point-control{arch=riscv64}' | filecheck %s --check-prefix=OTHER

// Entry hooks save MXCSR, run the kernel with round-to-nearest and FTZ|DAZ (bits 15, 6),
// and restore MXCSR before every return. Other functions are left alone: with an entry
// hook in the module, entry points are not targets.

func.func @"k.mux-entry-hook"(%packed: !llvm.ptr, %sched: !llvm.ptr) {
  func.call @k(%packed) : (!llvm.ptr) -> ()
  func.return
}

func.func @k(%packed: !llvm.ptr) attributes {mux.kernel = "entry_point"} {
  func.return
}

llvm.func @"l.mux-entry-hook"(%packed: !llvm.ptr, %sched: !llvm.ptr) {
  llvm.return
}

// CHECK-LABEL: func.func @"k.mux-entry-hook"(%packed: !llvm.ptr, %sched: !llvm.ptr) {
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[SAVED:.*]] = llvm.alloca %[[ONE]] x i32 {alignment = 4 : i64} : (i32) -> !llvm.ptr
// CHECK-NEXT:    %[[MODE:.*]] = llvm.alloca %[[ONE]] x i32 {alignment = 4 : i64} : (i32) -> !llvm.ptr
// CHECK-NEXT:    llvm.call_intrinsic "llvm.x86.sse.stmxcsr"(%[[SAVED]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:    %[[OLD:.*]] = llvm.load %[[SAVED]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[KEEP:.*]] = llvm.mlir.constant(-57409 : i32) : i32
// CHECK-NEXT:    %[[CLEARED:.*]] = llvm.and %[[OLD]], %[[KEEP]] : i32
// CHECK-NEXT:    %[[BITS:.*]] = llvm.mlir.constant(32832 : i32) : i32
// CHECK-NEXT:    %[[NEW:.*]] = llvm.or %[[CLEARED]], %[[BITS]] : i32
// CHECK-NEXT:    llvm.store %[[NEW]], %[[MODE]] {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NEXT:    llvm.call_intrinsic "llvm.x86.sse.ldmxcsr"(%[[MODE]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:    func.call @k(%packed) : (!llvm.ptr) -> ()
// CHECK-NEXT:    llvm.call_intrinsic "llvm.x86.sse.ldmxcsr"(%[[SAVED]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @k(%packed: !llvm.ptr) attributes {mux.kernel = "entry_point"} {
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-NEXT:  llvm.func @"l.mux-entry-hook"(%packed: !llvm.ptr, %sched: !llvm.ptr) {
// CHECK-NEXT:    llvm.mlir.constant
// CHECK:         llvm.call_intrinsic "llvm.x86.sse.ldmxcsr"
// CHECK-NEXT:    llvm.call_intrinsic "llvm.x86.sse.ldmxcsr"
// CHECK-NEXT:    llvm.return

// ftz-daz=false: FTZ and DAZ cleared (with the rounding bits), nothing set.
// NOFTZ:         %[[CLEARED:.*]] = llvm.and %{{.*}}, %{{.*}} : i32
// NOFTZ-NEXT:    llvm.store %[[CLEARED]], %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// NOFTZ-NOT:     llvm.or

// OTHER-NOT: llvm.call_intrinsic
