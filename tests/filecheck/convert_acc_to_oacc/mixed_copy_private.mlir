// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// One worker loop reducing a copy object (a) and a private one (t): only a gets the dummy
// gang reduction; both share the worker builtins (rid 0 and 1, one lock around both finis);
// t (private) receives its teardown value, a (copy) does not.

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
  acc.parallel {
    %t = memref.alloca() : memref<f32>
    %ra = acc.reduction varPtr(%a : memref<f32>) recipe(@add_f32) -> memref<f32> {name = "a"}
    %rt = acc.reduction varPtr(%t : memref<f32>) recipe(@add_f32) -> memref<f32> {name = "t"}
    acc.loop worker reduction(%ra, %rt : memref<f32>, memref<f32>) control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}

// CHECK-LABEL: func.func @h_acc_parallel_0(%a: memref<f32>, %n: index)
// CHECK:         %[[A0:.*]] = memref.load %a[] : memref<f32>
// CHECK-NEXT:    %[[T0:.*]] = memref.load %t[] : memref<f32>
// CHECK-NEXT:    %[[A1:.*]] = oacc.reduction_setup gang add %[[A0]] res(%a : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT:    %[[A2:.*]] = oacc.reduction_init gang add %[[A1]] res(%a : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT:    %[[A3:.*]] = oacc.reduction_setup worker add %[[A2]] lid 0 rid 0 : f32
// CHECK-NEXT:    %[[T1:.*]] = oacc.reduction_setup worker add %[[T0]] lid 0 rid 1 : f32
// CHECK-NEXT:    oacc.fork worker
// CHECK-NEXT:    %[[A4:.*]] = oacc.reduction_init worker add %[[A3]] lid 0 rid 0 : f32
// CHECK-NEXT:    %[[T2:.*]] = oacc.reduction_init worker add %[[T1]] lid 0 rid 1 : f32
// CHECK-NEXT:    memref.store %[[A4]], %a_local[] : memref<f32>
// CHECK-NEXT:    memref.store %[[T2]], %t_local[] : memref<f32>
// CHECK:         %[[A5:.*]] = memref.load %a_local[] : memref<f32>
// CHECK-NEXT:    %[[T5:.*]] = memref.load %t_local[] : memref<f32>
// CHECK-NEXT:    oacc.lock worker lid 0
// CHECK-NEXT:    %[[A6:.*]] = oacc.reduction_fini worker add %[[A5]] lid 0 rid 0 : f32
// CHECK-NEXT:    %[[T6:.*]] = oacc.reduction_fini worker add %[[T5]] lid 0 rid 1 : f32
// CHECK-NEXT:    oacc.unlock worker lid 0
// CHECK-NEXT:    oacc.join worker
// CHECK-NEXT:    %[[A7:.*]] = oacc.reduction_teardown worker add %[[A6]] lid 0 rid 0 : f32
// CHECK-NEXT:    %[[T7:.*]] = oacc.reduction_teardown worker add %[[T6]] lid 0 rid 1 : f32
// CHECK-NEXT:    oacc.lock gang lid 0
// CHECK-NEXT:    %[[A8:.*]] = oacc.reduction_fini gang add %[[A7]] res(%a : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT:    oacc.unlock gang lid 0
// CHECK-NEXT:    %{{.*}} = oacc.reduction_teardown gang add %[[A8]] res(%a : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT:    memref.store %[[T7]], %t[] : memref<f32>
// CHECK-NEXT:    func.return
