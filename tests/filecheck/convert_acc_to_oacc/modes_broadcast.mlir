// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// Gang-redundant, worker-single, vector-single code before a vector loop (mode-transitions.c
// t28): the call is neutered to worker 0 / lane 0, its result broadcast at the vector fork
// through a work-group local buffer (position 0 stores before the fork, every work-item
// loads after it); the vector loop's store is neutered to worker 0 (worker-single mode).

func.func private @routine() -> f32

func.func @h(%out: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %nw = arith.constant 4 : i32
  %vl = arith.constant 32 : i32
  acc.parallel num_workers(%nw : i32) vector_length(%vl : i32) {
    %val = func.call @routine() : () -> f32
    acc.loop vector control(%i : index) = (%c0 : index) to (%c32 : index) step (%c1 : index) {
      memref.store %val, %out[%i] : memref<32xf32>
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}

// CHECK:       memref.global "private" @__oacc_bcast_h_acc_parallel_0_f32 : memref<1xf32, 3 : i64> = uninitialized {alignment = 64 : i64}
// CHECK-LABEL: func.func @h_acc_parallel_0(%out: memref<32xf32>)
// CHECK:         %[[V:.*]] = oacc.dim_pos vector : index
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[V0:.*]] = arith.cmpi eq, %[[V]], %[[Z]] : index
// CHECK-NEXT:    %[[W:.*]] = oacc.dim_pos worker : index
// CHECK-NEXT:    %[[W0:.*]] = arith.cmpi eq, %[[W]], %[[Z]] : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.andi %[[V0]], %[[W0]] : i1
// CHECK-NEXT:    %[[VAL:.*]] = scf.if %[[ONE]] -> (f32) {
// CHECK-NEXT:      %[[C:.*]] = func.call @routine() : () -> f32
// CHECK-NEXT:      scf.yield %[[C]] : f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %{{.*}} = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      scf.yield %{{.*}} : f32
// CHECK-NEXT:    }
// CHECK:         scf.if %{{.*}} {
// CHECK-NEXT:      %[[B:.*]] = memref.get_global @__oacc_bcast_h_acc_parallel_0_f32 : memref<1xf32, 3 : i64>
// CHECK-NEXT:      %[[I:.*]] = arith.constant 0 : index
// CHECK-NEXT:      memref.store %[[VAL]], %[[B]][%[[I]]] : memref<1xf32, 3 : i64>
// CHECK-NEXT:    }
// CHECK-NEXT:    oacc.fork vector
// CHECK-NEXT:    %[[B2:.*]] = memref.get_global @__oacc_bcast_h_acc_parallel_0_f32 : memref<1xf32, 3 : i64>
// CHECK-NEXT:    %[[I2:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[BVAL:.*]] = memref.load %[[B2]][%[[I2]]] : memref<1xf32, 3 : i64>
// CHECK:         scf.for
// CHECK:           %[[WP:.*]] = oacc.dim_pos worker : index
// CHECK-NEXT:      %{{.*}} = arith.constant 0 : index
// CHECK-NEXT:      %[[WZ:.*]] = arith.cmpi eq, %[[WP]], %{{.*}} : index
// CHECK-NEXT:      scf.if %[[WZ]] {
// CHECK-NEXT:        memref.store %[[BVAL]], %out[%{{.*}}] : memref<32xf32>
// CHECK-NEXT:      }
// CHECK:         oacc.join vector
