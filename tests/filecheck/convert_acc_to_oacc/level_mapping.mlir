// RUN: xmux-opt %s -p 'convert-acc-to-oacc{gang-dim=1 worker-dim=2 vector-dim=0 num-workers=2 vector-length=16}' | filecheck %s
// RUN: xmux-opt %s -p 'convert-acc-to-oacc{worker-dim=0 vector-dim=1}' | filecheck %s --check-prefix=SWAP

// The level mapping is an option: gang -> work-group dimension gang-dim, worker/vector ->
// local dimensions worker-dim/vector-dim; absent clauses take the default sizes.

func.func @h(%x: memref<?xf32>) {
  %c3 = arith.constant 3 : i32
  acc.parallel num_gangs({%c3 : i32}) {
    %f = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    memref.store %f, %x[%c0] : memref<?xf32>
    acc.yield
  }
  return
}

// CHECK:       func.func @h_acc_parallel_0(%x: memref<?xf32>)
// CHECK-SAME:    oacc.dims = array<i64: 3, 2, 16>, oacc.level_dims = array<i64: 1, 2, 0>, mux.reqd_work_group_size = array<i64: 16, 1, 2>
// CHECK:       %[[NG:.*]] = arith.constant 3 : index
// CHECK-NEXT:  %[[NW:.*]] = arith.constant 2 : index
// CHECK-NEXT:  %[[VL:.*]] = arith.constant 16 : index
// CHECK:       mux.launch @h_acc_parallel_0(%x) global_size(%[[VL]], %[[NG]], %[[NW]]) local_size(%[[VL]], %[[ONE:.*]], %[[NW]])

// SWAP:        func.func @h_acc_parallel_0(%x: memref<?xf32>)
// SWAP-SAME:     oacc.dims = array<i64: 3, 1, 1>, oacc.level_dims = array<i64: 0, 0, 1>, mux.reqd_work_group_size = array<i64: 1, 1, 1>
// SWAP:        mux.launch @h_acc_parallel_0(%x) global_size(%{{.*}}, %{{.*}}) local_size(%{{.*}}, %{{.*}})
