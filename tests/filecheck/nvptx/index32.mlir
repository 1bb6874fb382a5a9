// RUN: env XMUX_NVPTX_ARCH=sm_90 xmux-run --target nvptx --emit ptx %s | filecheck %s

// The naive matmul (bench/kernels/matmul_naive.mlir) gets 32-bit address twins of its two
// entries (narrow-indices-nvptx): their unrolled k loop counts in 32 bits (setp.ne.b32) and
// steps B's address by a sign-extended 32-bit stride (mul.wide.s32, one IMAD.WIDE per step in
// SASS), where the generic entries keep 64-bit counters and strides.

func.func @matmul_naive(%n: i32, %A: memref<?x?xf32>, %B: memref<?x?xf32>,
                        %C: memref<?x?xf32>) attributes {mux.kernel = "entry_point"} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nk = arith.index_cast %n : i32 to index
  %zero = arith.constant 0.000000e+00 : f32
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%s = %zero) -> (f32) {
    %a = memref.load %A[%row, %k] : memref<?x?xf32>
    %b = memref.load %B[%k, %col] : memref<?x?xf32>
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %C[%row, %col] : memref<?x?xf32>
  func.return
}

// CHECK:       .visible .entry matmul_naive(
// CHECK-NOT:   mul.wide.s32
// CHECK:       setp.ne.b64
// CHECK-NOT:   mul.wide.s32
// CHECK:       ret;
// CHECK:       .visible .entry matmul_naive__xmux_i32(
// CHECK:       mul.wide.s32
// CHECK:       setp.ne.b32
// CHECK:       ret;
// CHECK:       .visible .entry matmul_naive__xmux_ro_1_2(
// CHECK-NOT:   mul.wide.s32
// CHECK:       ld.global.nc
// CHECK-NOT:   mul.wide.s32
// CHECK:       ret;
// CHECK:       .visible .entry matmul_naive__xmux_ro_1_2__xmux_i32(
// CHECK:       mul.wide.s32
// CHECK:       ld.global.nc
// CHECK:       setp.ne.b32
// CHECK:       ret;
