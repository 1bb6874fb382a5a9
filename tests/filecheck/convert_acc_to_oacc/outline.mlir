// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// Outlining: values the region captures become kernel arguments in host definition order
// (scalars included), constants are re-created in the kernel, data clauses are identity (the
// copyin's host memref is passed); run-time sizes give oacc.dims -1 and no
// reqd_work_group_size; two constructs in one function give two kernels.

func.func @h(%a: memref<?xf32>, %scale: f32, %ng: index, %nw: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  %cp = acc.copyin varPtr(%a : memref<?xf32>) -> memref<?xf32> {dataClause = #acc<data_clause acc_copy>, name = "a"}
  acc.parallel dataOperands(%cp : memref<?xf32>) num_gangs({%ng : index}) num_workers(%nw : i32) {
    acc.loop gang worker control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      %v = memref.load %cp[%i] : memref<?xf32>
      %w = arith.mulf %v, %scale : f32
      memref.store %w, %cp[%i] : memref<?xf32>
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  acc.copyout accPtr(%cp : memref<?xf32>) to varPtr(%a : memref<?xf32>) {dataClause = #acc<data_clause acc_copy>, name = "a"}
  acc.parallel {
    %f = arith.constant 0.000000e+00 : f32
    memref.store %f, %a[%c0] : memref<?xf32>
    acc.yield
  }
  return
}

// CHECK:       func.func @h_acc_parallel_0(%a: memref<?xf32>, %scale: f32, %n: index) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: -1, -1, 1>} {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    oacc.fork gang
// CHECK-NEXT:    oacc.fork worker
// CHECK:           %v = memref.load %a[%i] : memref<?xf32>
// CHECK-NEXT:      %w = arith.mulf %v, %scale : f32
// CHECK-NEXT:      memref.store %w, %a[%i] : memref<?xf32>
// CHECK:       func.func @h_acc_parallel_1(%a: memref<?xf32>) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 1, 1, 1>, mux.reqd_work_group_size = array<i64: 1, 1, 1>} {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %f = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    memref.store %f, %a[%c0] : memref<?xf32>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @h(%a: memref<?xf32>, %scale: f32, %ng: index, %nw: i32) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %n = memref.dim %a, %c0 : memref<?xf32>
// CHECK-NEXT:    %[[NW:.*]] = arith.index_cast %nw : i32 to index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    mux.launch @h_acc_parallel_0(%a, %scale, %n) global_size(%ng, %[[NW]]) local_size(%[[ONE]], %[[NW]]) : (memref<?xf32>, f32, index)
// CHECK-NEXT:    %[[ONE2:.*]] = arith.constant 1 : index
// CHECK-NEXT:    mux.launch @h_acc_parallel_1(%a) global_size(%[[ONE2]], %[[ONE2]]) local_size(%[[ONE2]], %[[ONE2]]) : (memref<?xf32>)
// CHECK-NEXT:    func.return
