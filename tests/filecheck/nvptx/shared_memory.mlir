// RUN: env XMUX_NVPTX_ARCH=sm_90 xmux-run --target nvptx --emit ptx %s | filecheck %s

// Work-group local memory is shared memory: a module-level tile is a .shared array, a local
// memory argument a slice of the extern dynamic shared array; barriers are bar.sync 0; a
// required work-group size is the entry's .reqntid; a*b+c is contracted to fma.

"memref.global"() <{sym_name = "tile", sym_visibility = "private", type = memref<64xf32, 3>, initial_value}> : () -> ()

func.func @stage(%x: memref<?xf32>, %scratch: memref<?xf32, 3>, %b: f32)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 64, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %t = memref.get_global @tile : memref<64xf32, 3>
  %v = memref.load %x[%i] : memref<?xf32>
  memref.store %v, %t[%l] : memref<64xf32, 3>
  memref.store %v, %scratch[%l] : memref<?xf32, 3>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %c63 = arith.constant 63 : index
  %r = arith.subi %c63, %l : index
  %u = memref.load %t[%r] : memref<64xf32, 3>
  %s = memref.load %scratch[%r] : memref<?xf32, 3>
  %p = arith.mulf %u, %s : f32
  %q = arith.addf %p, %b : f32
  memref.store %q, %x[%i] : memref<?xf32>
  func.return
}

// CHECK:       .extern .shared .align 16 .b8 __xmux_dynamic_shared[];
// CHECK:       .visible .entry stage(
// CHECK:       .reqntid 64, 1, 1
// CHECK:       .shared .align 4 .b8 tile[256];
// CHECK:         st.shared.b32
// CHECK:         st.shared.b32
// CHECK:         bar.sync 0;
// CHECK:         ld.shared.b32
// CHECK:         ld.shared.b32
// CHECK:         fma.rn.f32
// CHECK:         st.global.b32
