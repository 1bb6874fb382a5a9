// RUN: env XMUX_NVPTX_ARCH=sm_90 xmux-run --target nvptx --emit ptx %s | filecheck %s
// RUN: env XMUX_NVPTX_ARCH=sm_90 xmux-run --target nvptx --emit llvm %s | filecheck %s --check-prefix=IR

// Two entries for a kernel that reads %a and writes %y: the generic one loads with
// ld.global; the read-only variant (noalias %a, picked by the runtime when the buffers are
// disjoint) loads through the read-only data path, ld.global.nc, and inlines the same body
// (the work-group reduce and its shared slots included).

func.func @scale(%a: memref<?xf32>, %y: memref<?xf32>, %part: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %g = mux.get_group_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  %w = arith.mulf %v, %v : f32
  memref.store %w, %y[%i] : memref<?xf32>
  %s = mux.work_group_reduce fadd %v : f32
  %lid = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %lid, %c0 : index
  scf.if %first {
    memref.store %s, %part[%g] : memref<?xf32>
  }
  func.return
}

// CHECK:       .visible .entry scale(
// CHECK-NOT:   .func
// CHECK-NOT:   ld.global.nc
// CHECK:       ld.global.b32
// CHECK-NOT:   ld.global.nc
// CHECK:       bar.sync 0;
// CHECK:       ret;
// CHECK:       .visible .entry scale__xmux_ro_0(
// CHECK-NOT:   ld.global.b32
// CHECK:       ld.global.nc.b32
// CHECK:       bar.sync 0;
// CHECK-NOT:   .entry
// CHECK:       ret;

// In the LLVM IR the body, called by both entries, is alwaysinline; only the variant's %a
// pointer is noalias.
// IR:      define internal void @"scale.mux-kernel"({{.*}}) alwaysinline
// IR:      define ptx_kernel void @"scale"(ptr %".1", {{.*}}, ptr %".5", {{.*}}, ptr %".9",
// IR:      define ptx_kernel void @"scale__xmux_ro_0"(ptr noalias %".1", {{.*}}, ptr %".5", {{.*}}, ptr %".9",
