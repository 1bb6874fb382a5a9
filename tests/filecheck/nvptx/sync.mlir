// RUN: env XMUX_NVPTX_ARCH=sm_90 xmux-run --target nvptx --emit ptx %s | filecheck %s

// Fences and atomics with their scopes: a work-group fence is fence.acq_rel.cta, a device
// one .gpu, a device-scope barrier fences before bar.sync (LLVM merges the two adjacent
// device fences into one); a sub-group barrier is bar.warp.sync over the warp's live lanes
// (a mask computed from the work-group size); memref.atomic_rmw is a relaxed
// atom.global (device scope, PTX's default).

func.func @sync(%bins: memref<256xi32>, %flag: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %one = arith.constant 1 : i32
  %c255 = arith.constant 255 : index
  %b = arith.andi %i, %c255 : index
  %old = memref.atomic_rmw addi %one, %bins[%b] : (i32, memref<256xi32>) -> i32
  mux.mem_barrier work_group, <acq_rel, work_group_memory>
  mux.mem_barrier device, <acq_rel, cross_work_group_memory>
  mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>
  mux.work_group_barrier device, <acq_rel, cross_work_group_memory>
  memref.store %old, %flag[%i] : memref<?xi32>
  func.return
}

// CHECK:       .visible .entry sync(
// CHECK:         atom.global.add.u32
// CHECK:         fence.acq_rel.cta;
// CHECK-NEXT:    fence.acq_rel.gpu;
// CHECK:         fence.acq_rel.cta;
// CHECK-NEXT:    bar.warp.sync %r{{[0-9]+}};
// CHECK-NEXT:    fence.acq_rel.gpu;
// CHECK-NEXT:    bar.sync 0;
// CHECK:         st.global.b32
