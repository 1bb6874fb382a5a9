// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// acc.serial: outlined like acc.parallel with one gang of one worker and vector length 1,
// its reduction clause as the null outermost gang loop.

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
func.func @h(%s: memref<f32>, %x: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %red = acc.reduction varPtr(%s : memref<f32>) recipe(@add_f32) -> memref<f32> {name = "s"}
  acc.serial reduction(%red : memref<f32>) {
    acc.loop control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      %v = memref.load %x[%i] : memref<?xf32>
      %a = memref.load %red[] : memref<f32>
      %b = arith.addf %a, %v : f32
      memref.store %b, %red[] : memref<f32>
      acc.yield
    } attributes {seq = [#acc.device_type<none>]}
    acc.yield
  }
  return
}

// CHECK-LABEL: func.func @h_acc_serial_0(%s: memref<f32>, %x: memref<?xf32>, %n: index)
// CHECK-SAME:      oacc.dims = array<i64: 1, 1, 1>, mux.reqd_work_group_size = array<i64: 1, 1, 1>
// CHECK-NEXT:    %s_local = memref.alloca() : memref<f32>
// CHECK:         %[[A1:.*]] = oacc.reduction_setup gang add %{{.*}} res(%s : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT:    %[[A2:.*]] = oacc.reduction_init gang add %[[A1]] res(%s : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT:    memref.store %[[A2]], %s_local[] : memref<f32>
// CHECK:         scf.for %i =
// CHECK:           memref.store %b, %s_local[] : memref<f32>
// CHECK:         oacc.lock gang lid 0
// CHECK-NEXT:    %{{.*}} = oacc.reduction_fini gang add
// CHECK-NEXT:    oacc.unlock gang lid 0
// CHECK-NEXT:    oacc.reduction_teardown gang add
// CHECK-LABEL: func.func @h(
// CHECK:         mux.launch @h_acc_serial_0(%s, %x, %n)
