// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Upstream's llvm.addrspacecast (the NVPTX target's shared-memory globals become generic
// pointers).
llvm.func @cast(%shared: !llvm.ptr<3>, %p: !llvm.ptr) {
  %0 = llvm.addrspacecast %shared : !llvm.ptr<3> to !llvm.ptr
  %1 = llvm.addrspacecast %p : !llvm.ptr to !llvm.ptr<1>
  llvm.return
}

// CHECK-LABEL: llvm.func @cast
// CHECK-NEXT:    llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr
// CHECK-NEXT:    llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<1>
// CHECK-NEXT:    llvm.return

// GENERIC:      "llvm.addrspacecast"(%{{.*}}) : (!llvm.ptr<3>) -> !llvm.ptr
// GENERIC-NEXT: "llvm.addrspacecast"(%{{.*}}) : (!llvm.ptr) -> !llvm.ptr<1>
