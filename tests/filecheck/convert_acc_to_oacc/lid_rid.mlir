// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// Loop and reduction identifiers: one lid per loop with builtins (counted per kernel), one
// rid per reduction of the loop. Two variables reduced in one gang loop (rid 0 and 1, one
// lock around both finis); a worker loop nested in it reducing the same variable gets its
// own lid and the gang loop's LOCAL as a private RESULT (no RES_PTR, no dummy gang level);
// a later vector loop over a copy object gets the next lid and a dummy gang reduction.

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
acc.reduction.recipe @max_i32 : i32 reduction_operator <max> init {
^bb0(%arg0: i32):
  %lo = arith.constant -2147483648 : i32
  acc.yield %lo : i32
} combiner {
^bb0(%x: i32, %y: i32):
  %0 = arith.maxsi %x, %y : i32
  acc.yield %0 : i32
}
func.func @h(%s: memref<f32>, %m: memref<i32>, %b: memref<f32>, %x: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : i32
  %rs = acc.reduction varPtr(%s : memref<f32>) recipe(@add_f32) -> memref<f32> {name = "s"}
  %rm = acc.reduction varPtr(%m : memref<i32>) recipe(@max_i32) -> memref<i32> {name = "m"}
  %rb = acc.reduction varPtr(%b : memref<f32>) recipe(@add_f32) -> memref<f32> {name = "b"}
  acc.parallel num_gangs({%c8 : i32}) num_workers(%c8 : i32) vector_length(%c8 : i32) {
    acc.loop gang reduction(%rs, %rm : memref<f32>, memref<i32>) control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      %ii = arith.index_cast %i : index to i32
      %m0 = memref.load %rm[] : memref<i32>
      %m1 = arith.maxsi %m0, %ii : i32
      memref.store %m1, %rm[] : memref<i32>
      %rs2 = acc.reduction varPtr(%rs : memref<f32>) recipe(@add_f32) -> memref<f32> {name = "s"}
      acc.loop worker reduction(%rs2 : memref<f32>) control(%j : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
        %v = memref.load %x[%j] : memref<?xf32>
        %s0 = memref.load %rs2[] : memref<f32>
        %s1 = arith.addf %s0, %v : f32
        memref.store %s1, %rs2[] : memref<f32>
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.loop vector reduction(%rb : memref<f32>) control(%k : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      %v = memref.load %x[%k] : memref<?xf32>
      %b0 = memref.load %rb[] : memref<f32>
      %b1 = arith.addf %b0, %v : f32
      memref.store %b1, %rb[] : memref<f32>
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}

// CHECK-LABEL: func.func @h_acc_parallel_0(%s: memref<f32>, %m: memref<i32>, %b: memref<f32>, %x: memref<?xf32>, %n: index)
// CHECK:         %[[S0:.*]] = memref.load %s[] : memref<f32>
// CHECK-NEXT:    %[[M0:.*]] = memref.load %m[] : memref<i32>
// CHECK-NEXT:    %[[S1:.*]] = oacc.reduction_setup gang add %[[S0]] res(%s : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT:    %[[M1:.*]] = oacc.reduction_setup gang max %[[M0]] res(%m : memref<i32>) lid 0 rid 1 : i32
// CHECK-NEXT:    oacc.fork gang
// CHECK-NEXT:    %[[S2:.*]] = oacc.reduction_init gang add %[[S1]] res(%s : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT:    %[[M2:.*]] = oacc.reduction_init gang max %[[M1]] res(%m : memref<i32>) lid 0 rid 1 : i32
// CHECK-NEXT:    memref.store %[[S2]], %[[SL:s_local[_0-9]*]][] : memref<f32>
// CHECK-NEXT:    memref.store %[[M2]], %[[ML:m_local[_0-9]*]][] : memref<i32>
// CHECK:         scf.for
// CHECK:           memref.store %{{.*}}, %[[ML]][] : memref<i32>
// CHECK-NEXT:      %[[W0:.*]] = memref.load %[[SL]][] : memref<f32>
// CHECK-NEXT:      %[[W1:.*]] = oacc.reduction_setup worker add %[[W0]] lid 1 rid 0 : f32
// CHECK-NEXT:      oacc.fork worker
// CHECK-NEXT:      %[[W2:.*]] = oacc.reduction_init worker add %[[W1]] lid 1 rid 0 : f32
// CHECK:             memref.store %{{.*}}, %[[WL:.*]][] : memref<f32>
// CHECK:           oacc.lock worker lid 1
// CHECK-NEXT:      %[[W3:.*]] = oacc.reduction_fini worker add %{{.*}} lid 1 rid 0 : f32
// CHECK-NEXT:      oacc.unlock worker lid 1
// CHECK-NEXT:      oacc.join worker
// CHECK-NEXT:      %[[W4:.*]] = oacc.reduction_teardown worker add %[[W3]] lid 1 rid 0 : f32
// CHECK-NEXT:      memref.store %[[W4]], %[[SL]][] : memref<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[S3:.*]] = memref.load %[[SL]][] : memref<f32>
// CHECK-NEXT:    %[[M3:.*]] = memref.load %[[ML]][] : memref<i32>
// CHECK-NEXT:    oacc.lock gang lid 0
// CHECK-NEXT:    %[[S4:.*]] = oacc.reduction_fini gang add %[[S3]] res(%s : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT:    %[[M4:.*]] = oacc.reduction_fini gang max %[[M3]] res(%m : memref<i32>) lid 0 rid 1 : i32
// CHECK-NEXT:    oacc.unlock gang lid 0
// CHECK-NEXT:    oacc.join gang
// CHECK-NEXT:    %{{.*}} = oacc.reduction_teardown gang add %[[S4]] res(%s : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT:    %{{.*}} = oacc.reduction_teardown gang max %[[M4]] res(%m : memref<i32>) lid 0 rid 1 : i32
// CHECK-NEXT:    %[[B0:.*]] = memref.load %b[] : memref<f32>
// CHECK-NEXT:    %[[B1:.*]] = oacc.reduction_setup gang add %[[B0]] res(%b : memref<f32>) lid 2 rid 0 : f32
// CHECK-NEXT:    %[[B2:.*]] = oacc.reduction_init gang add %[[B1]] res(%b : memref<f32>) lid 2 rid 0 : f32
// CHECK-NEXT:    %[[B3:.*]] = oacc.reduction_setup vector add %[[B2]] lid 2 rid 0 : f32
// CHECK-NEXT:    oacc.fork vector
// CHECK-NEXT:    %{{.*}} = oacc.reduction_init vector add %[[B3]] lid 2 rid 0 : f32
// CHECK:         oacc.reduction_fini vector add %{{.*}} lid 2 rid 0 : f32
// CHECK-NEXT:    oacc.join vector
// CHECK-NEXT:    %[[B5:.*]] = oacc.reduction_teardown vector add %{{.*}} lid 2 rid 0 : f32
// CHECK-NEXT:    oacc.lock gang lid 2
// CHECK-NEXT:    %[[B6:.*]] = oacc.reduction_fini gang add %[[B5]] res(%b : memref<f32>) lid 2 rid 0 : f32
// CHECK-NEXT:    oacc.unlock gang lid 2
// CHECK-NEXT:    %{{.*}} = oacc.reduction_teardown gang add %[[B6]] res(%b : memref<f32>) lid 2 rid 0 : f32
// CHECK-NEXT:    func.return
