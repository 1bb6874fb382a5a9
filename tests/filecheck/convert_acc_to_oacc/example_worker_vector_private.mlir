// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// The reference's fourth example: a combined worker+vector loop reducing a private object.
//   #parallel worker vector { int a = 0; #loop worker vector reduction(+:a) ... }
// Worker setup/fork/init, vector setup/fork/init, the loop, vector fini/join/teardown (no
// lock at vector level), worker lock/fini/unlock/join/teardown; one lid for both levels.
// The loop is partitioned over pos = worker * vl + vector, size = nw * vl.

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
  %c32 = arith.constant 32 : i32
  acc.parallel num_workers(%c4 : i32) vector_length(%c32 : i32) {
    %zero = arith.constant 0.000000e+00 : f32
    %a = memref.alloca() : memref<f32>
    memref.store %zero, %a[] : memref<f32>
    %red = acc.reduction varPtr(%a : memref<f32>) recipe(@add_f32) -> memref<f32> {name = "a"}
    acc.loop worker vector reduction(%red : memref<f32>) control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
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
// CHECK-SAME:      oacc.dims = array<i64: 1, 4, 32>, mux.reqd_work_group_size = array<i64: 32, 4, 1>
// CHECK:         %[[A0:.*]] = memref.load %a[] : memref<f32>
// CHECK-NEXT:    %[[W1:.*]] = oacc.reduction_setup worker add %[[A0]] lid 0 rid 0 : f32
// CHECK-NEXT:    oacc.fork worker
// CHECK-NEXT:    %[[W2:.*]] = oacc.reduction_init worker add %[[W1]] lid 0 rid 0 : f32
// CHECK-NEXT:    %[[V1:.*]] = oacc.reduction_setup vector add %[[W2]] lid 0 rid 0 : f32
// CHECK-NEXT:    oacc.fork vector
// CHECK-NEXT:    %[[V2:.*]] = oacc.reduction_init vector add %[[V1]] lid 0 rid 0 : f32
// CHECK-NEXT:    memref.store %[[V2]], %a_local[] : memref<f32>
// A worker's contiguous chunk of whole vector rounds, lanes on adjacent iterations in it.
// CHECK:         %[[WP:.*]] = oacc.dim_pos worker : index
// CHECK-NEXT:    %[[WSTART:.*]] = arith.muli %[[WP]], %{{.*}} : index
// CHECK:         %[[VP:.*]] = oacc.dim_pos vector : index
// CHECK-NEXT:    %[[VS:.*]] = oacc.dim_size vector : index
// CHECK:         scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[A:.*]] = arith.muli %[[R]], %[[VS]] : index
// CHECK-NEXT:      %[[K:.*]] = arith.addi %[[A]], %[[VP]] : index
// CHECK-NEXT:      %i = arith.addi %[[WSTART]], %[[K]] : index
// CHECK:         scf.if
// CHECK:           memref.store %{{.*}}, %a_local[]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[A3:.*]] = memref.load %a_local[] : memref<f32>
// CHECK-NEXT:    %[[V3:.*]] = oacc.reduction_fini vector add %[[A3]] lid 0 rid 0 : f32
// CHECK-NEXT:    oacc.join vector
// CHECK-NEXT:    %[[V4:.*]] = oacc.reduction_teardown vector add %[[V3]] lid 0 rid 0 : f32
// CHECK-NEXT:    oacc.lock worker lid 0
// CHECK-NEXT:    %[[W3:.*]] = oacc.reduction_fini worker add %[[V4]] lid 0 rid 0 : f32
// CHECK-NEXT:    oacc.unlock worker lid 0
// CHECK-NEXT:    oacc.join worker
// CHECK-NEXT:    %[[W4:.*]] = oacc.reduction_teardown worker add %[[W3]] lid 0 rid 0 : f32
// CHECK-NEXT:    memref.store %[[W4]], %a[] : memref<f32>

// CHECK-LABEL: func.func @h(
// CHECK:         %[[NW:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[VL:.*]] = arith.constant 32 : index
// CHECK:         mux.launch @h_acc_parallel_0(%x, %out, %n) global_size(%[[VL]], %[[NW]]) local_size(%[[VL]], %[[NW]])
