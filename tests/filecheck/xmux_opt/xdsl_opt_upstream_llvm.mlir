// RUN: xdsl-opt %s | filecheck %s

// Plain xdsl-opt reads and prints xmux's upstream llvm ops (fence, atomicrmw, cmpxchg) and
// the gpu dialect's upstream syntax: the xdsl.universe entry point puts xmux's wider dialects
// in place of xDSL's of the same name, as xmux-opt does.

llvm.func @f(%p: !llvm.ptr, %v: i32) {
  llvm.fence syncscope("agent") acquire
  %0 = llvm.atomicrmw add %p, %v monotonic : !llvm.ptr, i32
  llvm.return
}

// CHECK:       llvm.func @f(
// CHECK-NEXT:    llvm.fence syncscope("agent") acquire
// CHECK-NEXT:    %{{.*}} = llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
