// RUN: env XMUX_NVPTX_ARCH=sm_90 xmux-run --target nvptx --emit ptx %s | filecheck %s

// A streaming kernel is one PTX entry named after it: each memref argument a pointer
// parameter (made global by cvta) plus offset, size and stride, then the launch record;
// the global id is ctaid (+ the launch's group base) * enqueued size + tid + global offset.

func.func @scale(%x: memref<?xf32>, %y: memref<?xf32>, %a: f32)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xf32>
  %w = arith.mulf %v, %a : f32
  memref.store %w, %y[%i] : memref<?xf32>
  func.return
}

// CHECK:       .version 8.0
// CHECK-NEXT:  .target sm_90
// CHECK-NEXT:  .address_size 64
// CHECK:       .visible .entry scale(
// CHECK-NEXT:    .param .u64 .ptr .align 1 scale_param_0,
// CHECK-NEXT:    .param .u64 scale_param_1,
// CHECK-NEXT:    .param .u64 scale_param_2,
// CHECK-NEXT:    .param .u64 scale_param_3,
// CHECK-NEXT:    .param .u64 .ptr .align 1 scale_param_4,
// CHECK:         .param .f32 scale_param_8,
// CHECK:         .param .u64 scale_param_24
// CHECK-NEXT:  )
// CHECK-NOT:   .reqntid
// CHECK:         cvta.to.global.u64
// CHECK-DAG:     mov.u32 {{.*}}%ctaid.x;
// CHECK-DAG:     mov.u32 {{.*}}%tid.x;
// CHECK-DAG:     ld.param.b64 {{.*}}[scale_param_18];
// CHECK-DAG:     ld.param.b64 {{.*}}[scale_param_12];
// CHECK:         ld.global.b32
// CHECK:         mul.{{(rn.)?}}f32
// CHECK:         st.global.b32
// CHECK-NOT:     bar.sync
// CHECK:         ret;
