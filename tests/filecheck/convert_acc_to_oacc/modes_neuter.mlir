// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// Neutering (issue 21, wrong answer 1). num_workers(8) vector_length(32):
// - in a gang loop's body (worker-single, vector-single) a store to shared memory runs only
//   at worker 0 / lane 0;
// - in a worker loop's body (vector-single) only at lane 0;
// - a store to a private variable (an alloca of the region) is not neutered: every
//   work-item keeps its own copy equal;
// - a vector loop's body in worker-partitioned code is not neutered.

func.func @h(%arr: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %nw = arith.constant 8 : i32
  %vl = arith.constant 32 : i32
  acc.parallel num_workers(%nw : i32) vector_length(%vl : i32) {
    %p = memref.alloca() : memref<i32>
    acc.loop gang control(%g : index) = (%c0 : index) to (%c8 : index) step (%c1 : index) {
      %one = arith.constant 1 : i32
      memref.store %one, %p[] : memref<i32>
      memref.store %one, %arr[%g] : memref<64xi32>
      acc.loop worker control(%w : index) = (%c0 : index) to (%c8 : index) step (%c1 : index) {
        %two = arith.constant 2 : i32
        memref.store %two, %arr[%w] : memref<64xi32>
        acc.loop vector control(%v : index) = (%c0 : index) to (%c8 : index) step (%c1 : index) {
          %three = arith.constant 3 : i32
          memref.store %three, %arr[%v] : memref<64xi32>
          acc.yield
        } attributes {independent = [#acc.device_type<none>]}
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}

// CHECK-LABEL: func.func @h_acc_parallel_0(%arr: memref<64xi32>)
// CHECK:         oacc.fork gang
// CHECK:         scf.for
// CHECK:           memref.store %one, %p[] : memref<i32>
// CHECK-NEXT:      %[[V:.*]] = oacc.dim_pos vector : index
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[V0:.*]] = arith.cmpi eq, %[[V]], %[[Z]] : index
// CHECK-NEXT:      %[[W:.*]] = oacc.dim_pos worker : index
// CHECK-NEXT:      %[[W0:.*]] = arith.cmpi eq, %[[W]], %[[Z]] : index
// CHECK-NEXT:      %[[VW:.*]] = arith.andi %[[V0]], %[[W0]] : i1
// CHECK-NEXT:      scf.if %[[VW]] {
// CHECK-NEXT:        memref.store %one, %arr[%g] : memref<64xi32>
// CHECK-NEXT:      }
// CHECK-NEXT:      oacc.fork worker
// CHECK:             %[[V1:.*]] = oacc.dim_pos vector : index
// CHECK-NEXT:        %[[Z1:.*]] = arith.constant 0 : index
// CHECK-NEXT:        %[[V10:.*]] = arith.cmpi eq, %[[V1]], %[[Z1]] : index
// CHECK-NEXT:        scf.if %[[V10]] {
// CHECK-NEXT:          memref.store %two, %arr[%w] : memref<64xi32>
// CHECK-NEXT:        }
// CHECK-NEXT:        oacc.fork vector
// CHECK:             scf.for
// CHECK:               %three = arith.constant 3 : i32
// CHECK-NEXT:          memref.store %three, %arr[%v] : memref<64xi32>
// CHECK-NEXT:        }
// CHECK:             oacc.join vector
// CHECK:         oacc.join worker
// CHECK:         oacc.join gang
