// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=host}' | filecheck %s
// The host target runs every OpenACC kernel as a single thread: each mux.launch of one gets
// global = local = 1 in every dimension (offsets kept); launches of other kernels are kept.

func.func @acc(%r: memref<f32>) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 4, 32>, mux.reqd_work_group_size = array<i64: 32, 4, 1>} {
  %p = oacc.dim_pos gang : index
  func.return
}
func.func @plain(%r: memref<f32>) attributes {mux.kernel = "entry_point"} {
  func.return
}
func.func @main(%r: memref<f32>) {
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  mux.launch @acc(%r) global_size(%c256, %c4) local_size(%c32, %c4) : (memref<f32>)
  mux.launch @plain(%r) global_size(%c256) local_size(%c32) : (memref<f32>)
  func.return
}

// CHECK:      func.func @acc(%r: memref<f32>) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 4, 32>, mux.reqd_work_group_size = array<i64: 1, 1, 1>} {
// CHECK:      func.func @main(%r: memref<f32>) {
// CHECK-NEXT:   %c4 = arith.constant 4 : index
// CHECK-NEXT:   %c32 = arith.constant 32 : index
// CHECK-NEXT:   %c256 = arith.constant 256 : index
// CHECK-NEXT:   %0 = arith.constant 1 : index
// CHECK-NEXT:   mux.launch @acc(%r) global_size(%0, %0) local_size(%0, %0) : (memref<f32>)
// CHECK-NEXT:   mux.launch @plain(%r) global_size(%c256) local_size(%c32) : (memref<f32>)
// CHECK-NEXT:   func.return
