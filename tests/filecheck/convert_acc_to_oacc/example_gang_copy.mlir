// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// The reference's first example: a gang loop reducing a copy object.
//   #parallel copy(a) gang { #loop gang reduction(+:a) }
// setup before the fork, init after it, lock/fini/unlock before the join, teardown after;
// RES_PTR is the copy object (the host memref), LOCAL a private alloca inside the loop.

acc.reduction.recipe @add_f32 : memref<f32> reduction_operator <add> init {
^bb0(%arg0: memref<f32>):
  %zero = arith.constant 0.000000e+00 : f32
  %p = memref.alloca() : memref<f32>
  memref.store %zero, %p[] : memref<f32>
  acc.yield %p : memref<f32>
} combiner {
^bb0(%x: memref<f32>, %y: memref<f32>):
  %0 = memref.load %x[] : memref<f32>
  %1 = memref.load %y[] : memref<f32>
  %2 = arith.addf %0, %1 : f32
  memref.store %2, %x[] : memref<f32>
  acc.yield %x : memref<f32>
}
func.func @h(%a: memref<f32>, %x: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : i32
  %cp = acc.copyin varPtr(%a : memref<f32>) -> memref<f32> {dataClause = #acc<data_clause acc_copy>, name = "a"}
  %red = acc.reduction varPtr(%cp : memref<f32>) recipe(@add_f32) -> memref<f32> {name = "a"}
  acc.parallel dataOperands(%cp : memref<f32>) num_gangs({%c8 : i32}) {
    acc.loop gang reduction(%red : memref<f32>) control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      %v = memref.load %x[%i] : memref<?xf32>
      %s = memref.load %red[] : memref<f32>
      %t = arith.addf %s, %v : f32
      memref.store %t, %red[] : memref<f32>
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  acc.copyout accPtr(%cp : memref<f32>) to varPtr(%a : memref<f32>) {dataClause = #acc<data_clause acc_copy>, name = "a"}
  return
}

// CHECK-LABEL: func.func @h_acc_parallel_0(%a: memref<f32>, %x: memref<?xf32>, %n: index)
// CHECK-SAME:      mux.kernel = "entry_point", oacc.dims = array<i64: 8, 1, 1>, mux.reqd_work_group_size = array<i64: 1, 1, 1>
// CHECK-NEXT:    %a_local = memref.alloca() : memref<f32>
// CHECK:         %[[A0:.*]] = memref.load %a[] : memref<f32>
// CHECK-NEXT:    %[[A1:.*]] = oacc.reduction_setup gang add %[[A0]] res(%a : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT:    oacc.fork gang
// CHECK-NEXT:    %[[A2:.*]] = oacc.reduction_init gang add %[[A1]] res(%a : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT:    memref.store %[[A2]], %a_local[] : memref<f32>
// CHECK:         oacc.dim_pos gang
// CHECK:         scf.for
// CHECK:           memref.load %a_local[]
// CHECK:           memref.store %{{.*}}, %a_local[]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[A3:.*]] = memref.load %a_local[] : memref<f32>
// CHECK-NEXT:    oacc.lock gang lid 0
// CHECK-NEXT:    %[[A4:.*]] = oacc.reduction_fini gang add %[[A3]] res(%a : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT:    oacc.unlock gang lid 0
// CHECK-NEXT:    oacc.join gang
// CHECK-NEXT:    %{{.*}} = oacc.reduction_teardown gang add %[[A4]] res(%a : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT:    func.return

// The host launches the kernel over 8 gangs: data clauses vanish (shared memory).
// CHECK-LABEL: func.func @h(
// CHECK-NOT:     acc.
// CHECK:         mux.launch @h_acc_parallel_0(%a, %x, %n) global_size(%{{.*}}, %{{.*}}) local_size(%{{.*}}, %{{.*}}) : (memref<f32>, memref<?xf32>, index)
// CHECK-NOT:     acc.
// CHECK:         func.return
// CHECK-NOT:     acc.reduction.recipe
