// RUN: xmux-opt %s -p 'convert-to-llvm{target=nvptx}' | filecheck %s
// RUN: not xmux-opt %s -p convert-to-llvm 2>&1 | filecheck %s --check-prefix=CPU

// target=nvptx: work-group local memory (memory space 3) is the GPU's shared memory: an
// uninitialised address-space-3 global, reached through a generic pointer (LLVM's
// address-space inference turns the accesses back into ld.shared / st.shared).

memref.global "private" @tile : memref<16x16xf32, 3>

func.func @k(%i: index, %j: index, %v: f32) {
  %t = memref.get_global @tile : memref<16x16xf32, 3>
  memref.store %v, %t[%i, %j] : memref<16x16xf32, 3>
  func.return
}

// CHECK:       llvm.mlir.global internal @tile() {addr_space = 3 : i32} : !llvm.array<256 x f32>
// CHECK-LABEL: llvm.func internal @k(
// CHECK:         %[[G:.*]] = llvm.mlir.addressof @tile : !llvm.ptr<3>
// CHECK-NEXT:    %[[P:.*]] = llvm.addrspacecast %[[G]] : !llvm.ptr<3> to !llvm.ptr
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr

// CPU: memref.global @tile is in work-group local memory (memory space 3); replace-local-module-scope-variables must run before lowering
