// RUN: xmux-opt %s -p 'convert-to-llvm{target=nvptx}' | filecheck %s

// An NVPTX entry (nvvm.kernel) keeps external linkage though it is no mux.kernel entry point
// (add-kernel-wrapper-nvptx's read-only variant), its llvm.noalias argument attribute stays,
// and a func.func's passthrough array becomes the llvm.func's (LLVM function attributes).

func.func @body(%x: i32) attributes {passthrough = ["alwaysinline"]} {
  func.return
}

func.func @k__xmux_ro_0(%p: !llvm.ptr {llvm.noalias}, %x: i32) attributes {nvvm.kernel} {
  func.call @body(%x) : (i32) -> ()
  func.return
}

// CHECK:       llvm.func internal @body(%{{.*}}: i32) attributes {passthrough = ["alwaysinline"]}
// CHECK:       llvm.func @k__xmux_ro_0(%{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: i32) attributes {nvvm.kernel}
