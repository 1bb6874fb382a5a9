// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// The reference's third example: a worker loop reducing a copy object.
//   #parallel worker copy(a) { #loop worker reduction(+:a) ... }
// A dummy gang reduction with the same lid/rid surrounds the worker reduction (setup and
// init before it, fini and teardown after it, no fork/join), so the worker level only sees a
// private RESULT. Departure from the reference's text: the dummy gang fini is inside
// oacc.lock/unlock gang like every other gang fini (several gangs update the copy object).

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
  %c4 = arith.constant 4 : i32
  %cp = acc.copyin varPtr(%a : memref<f32>) -> memref<f32> {dataClause = #acc<data_clause acc_copy>, name = "a"}
  acc.parallel dataOperands(%cp : memref<f32>) num_workers(%c4 : i32) {
    %red = acc.reduction varPtr(%cp : memref<f32>) recipe(@add_f32) -> memref<f32> {name = "a"}
    acc.loop worker reduction(%red : memref<f32>) control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
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
// CHECK-NEXT:    %a_local = memref.alloca() : memref<f32>
// CHECK:         %[[A0:.*]] = memref.load %a[] : memref<f32>
// CHECK-NEXT:    %[[G1:.*]] = oacc.reduction_setup gang add %[[A0]] res(%a : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT:    %[[G2:.*]] = oacc.reduction_init gang add %[[G1]] res(%a : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT:    %[[W1:.*]] = oacc.reduction_setup worker add %[[G2]] lid 0 rid 0 : f32
// CHECK-NEXT:    oacc.fork worker
// CHECK-NEXT:    %[[W2:.*]] = oacc.reduction_init worker add %[[W1]] lid 0 rid 0 : f32
// CHECK-NEXT:    memref.store %[[W2]], %a_local[] : memref<f32>
// CHECK:         scf.for
// CHECK:           memref.store %{{.*}}, %a_local[]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[W3:.*]] = memref.load %a_local[] : memref<f32>
// CHECK-NEXT:    oacc.lock worker lid 0
// CHECK-NEXT:    %[[W4:.*]] = oacc.reduction_fini worker add %[[W3]] lid 0 rid 0 : f32
// CHECK-NEXT:    oacc.unlock worker lid 0
// CHECK-NEXT:    oacc.join worker
// CHECK-NEXT:    %[[W5:.*]] = oacc.reduction_teardown worker add %[[W4]] lid 0 rid 0 : f32
// CHECK-NEXT:    oacc.lock gang lid 0
// CHECK-NEXT:    %[[G3:.*]] = oacc.reduction_fini gang add %[[W5]] res(%a : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT:    oacc.unlock gang lid 0
// CHECK-NEXT:    %{{.*}} = oacc.reduction_teardown gang add %[[G3]] res(%a : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT:    func.return
// CHECK-NOT:     oacc.fork gang
