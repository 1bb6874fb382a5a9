// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// acc.loop seq: plain scf.for over the trip count, no fork/join, no oacc.dim_*; a reduction
// clause on a seq loop needs no builtins (one gang of one work-item: nothing to neuter).

func.func @h(%x: memref<10xf32>, %s: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  acc.parallel {
    %red = acc.reduction varPtr(%s : memref<f32>) recipe(@add_f32) -> memref<f32>
    acc.loop reduction(%red : memref<f32>) control(%i : index) = (%c0 : index) to (%c10 : index) step (%c1 : index) {
      %v = memref.load %x[%i] : memref<10xf32>
      %a = memref.load %red[] : memref<f32>
      %b = arith.addf %a, %v : f32
      memref.store %b, %red[] : memref<f32>
      acc.yield
    } attributes {seq = [#acc.device_type<none>]}
    acc.loop control(%j : index) = (%c0 : index) to (%c10 : index) step (%c1 : index) {
      %f = arith.constant 1.000000e+00 : f32
      memref.store %f, %x[%j] : memref<10xf32>
      acc.yield
    } attributes {auto_ = [#acc.device_type<none>]}
    acc.yield
  }
  return
}
acc.reduction.recipe @add_f32 : f32 reduction_operator <add> init {
^bb0(%arg0: f32):
  %zero = arith.constant 0.000000e+00 : f32
  acc.yield %zero : f32
} combiner {
^bb0(%x: f32, %y: f32):
  %0 = arith.addf %x, %y : f32
  acc.yield %0 : f32
}

// CHECK-LABEL: func.func @h_acc_parallel_0(%x: memref<10xf32>, %s: memref<f32>)
// CHECK-NOT:     {{oacc\.(fork|join|dim_|reduction)}}
// CHECK:         scf.for %i = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %v = memref.load %x[%i] : memref<10xf32>
// CHECK-NEXT:      %a = memref.load %s[] : memref<f32>
// CHECK-NEXT:      %b = arith.addf %a, %v : f32
// CHECK-NEXT:      memref.store %b, %s[] : memref<f32>
// CHECK-NEXT:    }
// An auto loop with no level inside acc.parallel (implicitly independent) gets GCC's
// levels for a lone loop: gang (outermost free) and vector (innermost free).
// CHECK-NEXT:    oacc.fork gang
// CHECK-NEXT:    oacc.fork vector
// CHECK:         oacc.dim_pos gang
// CHECK:         oacc.dim_pos vector
// CHECK:         memref.store %{{.*}}, %x[%j] : memref<10xf32>
// CHECK:         oacc.join vector
// CHECK-NEXT:    oacc.join gang
// CHECK-NEXT:    func.return
// CHECK-NOT:     acc.
