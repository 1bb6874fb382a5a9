// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// The reference's second example: a worker loop reducing a private object.
//   #parallel worker { int a = 0; #loop worker reduction(+:a) ... }
// No RES_PTR at worker level; the teardown value is the private RESULT's new value.

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
func.func @h(%x: memref<?xf32>, %out: memref<1xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : i32
  acc.parallel num_workers(%c4 : i32) {
    %zero = arith.constant 0.000000e+00 : f32
    %a = memref.alloca() : memref<f32>
    memref.store %zero, %a[] : memref<f32>
    %red = acc.reduction varPtr(%a : memref<f32>) recipe(@add_f32) -> memref<f32> {name = "a"}
    acc.loop worker reduction(%red : memref<f32>) control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      %v = memref.load %x[%i] : memref<?xf32>
      %s = memref.load %red[] : memref<f32>
      %t = arith.addf %s, %v : f32
      memref.store %t, %red[] : memref<f32>
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    %r = memref.load %a[] : memref<f32>
    memref.store %r, %out[%c0] : memref<1xf32>
    acc.yield
  }
  return
}

// CHECK-LABEL: func.func @h_acc_parallel_0(%x: memref<?xf32>, %out: memref<1xf32>, %n: index)
// CHECK-SAME:      oacc.dims = array<i64: 1, 4, 1>, mux.reqd_work_group_size = array<i64: 1, 4, 1>
// CHECK-NEXT:    %a_local = memref.alloca() : memref<f32>
// CHECK:         %a = memref.alloca() : memref<f32>
// CHECK-NEXT:    memref.store %zero, %a[] : memref<f32>
// CHECK-NEXT:    %[[A0:.*]] = memref.load %a[] : memref<f32>
// CHECK-NEXT:    %[[A1:.*]] = oacc.reduction_setup worker add %[[A0]] lid 0 rid 0 : f32
// CHECK-NEXT:    oacc.fork worker
// CHECK-NEXT:    %[[A2:.*]] = oacc.reduction_init worker add %[[A1]] lid 0 rid 0 : f32
// CHECK-NEXT:    memref.store %[[A2]], %a_local[] : memref<f32>
// Each worker runs its own contiguous chunk of ceil(n / nw) iterations (no remainder round).
// CHECK:         %[[WP:.*]] = oacc.dim_pos worker
// CHECK-NEXT:    %[[WSTART:.*]] = arith.muli %[[WP]], %{{.*}} : index
// CHECK:         scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:      %i = arith.addi %[[WSTART]], %[[R]] : index
// CHECK:           memref.load %a_local[]
// CHECK:           memref.store %{{.*}}, %a_local[]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[A3:.*]] = memref.load %a_local[] : memref<f32>
// CHECK-NEXT:    oacc.lock worker lid 0
// CHECK-NEXT:    %[[A4:.*]] = oacc.reduction_fini worker add %[[A3]] lid 0 rid 0 : f32
// CHECK-NEXT:    oacc.unlock worker lid 0
// CHECK-NEXT:    oacc.join worker
// CHECK-NEXT:    %[[A5:.*]] = oacc.reduction_teardown worker add %[[A4]] lid 0 rid 0 : f32
// CHECK-NEXT:    memref.store %[[A5]], %a[] : memref<f32>
// CHECK-NEXT:    %r = memref.load %a[] : memref<f32>
// Worker-single code after the loop: the store to shared memory is neutered to worker 0.
// CHECK-NEXT:    %[[WP2:.*]] = oacc.dim_pos worker : index
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[W0:.*]] = arith.cmpi eq, %[[WP2]], %[[Z]] : index
// CHECK-NEXT:    scf.if %[[W0]] {
// CHECK-NEXT:      memref.store %r, %out[%c0] : memref<1xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// CHECK-LABEL: func.func @h(
// CHECK:         mux.launch @h_acc_parallel_0(%x, %out, %n) global_size(%[[ONE:.*]], %[[NW:.*]]) local_size(%[[ONE]], %[[NW]])
