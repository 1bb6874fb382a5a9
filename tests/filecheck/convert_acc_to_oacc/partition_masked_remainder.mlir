// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// A worker loop whose body holds a vector loop: the vector loop synchronizes the work-group
// (fork/join, its reduction), so the worker loop's remainder round is run by every work-item
// instead of under scf.if. Masked positions get no iteration of the vector loop (its trip
// count is selected to 0) and skip the other effects: the load and the store run under
// scf.if valid (the load yields 0 where masked); pure ops run unguarded.

func.func @h(%x: memref<?xf32>, %out: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  acc.parallel {
    acc.loop worker control(%k : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      %v = memref.load %x[%k] : memref<?xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %out[%k] : memref<?xf32>
      acc.loop vector control(%i : index) = (%c0 : index) to (%c40 : index) step (%c1 : index) {
        memref.store %w, %out[%i] : memref<?xf32>
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}

// The full rounds: no masking.
// CHECK:         scf.for
// CHECK-NEXT:      %{{.*}} = arith.muli
// CHECK-NEXT:      %k = arith.addi
// CHECK-NEXT:      %v = memref.load %x[%k] : memref<?xf32>
// The remainder round, masked.
// CHECK:         oacc.join vector
// CHECK-NEXT:    }
// CHECK-NEXT:    %{{.*}} = arith.muli %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[K:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi ult, %[[K]], %{{.*}} : index
// CHECK-NEXT:    %[[V:.*]] = scf.if %[[OK]] -> (f32) {
// CHECK-NEXT:      %[[L:.*]] = memref.load %x[%[[K]]] : memref<?xf32>
// CHECK-NEXT:      scf.yield %[[L]] : f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      scf.yield %[[Z]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[W:.*]] = arith.addf %[[V]], %[[V]] : f32
// CHECK-NEXT:    scf.if %[[OK]] {
// CHECK-NEXT:      memref.store %[[W]], %out[%[[K]]] : memref<?xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    oacc.fork vector
// CHECK-NEXT:    %{{.*}} = arith.constant 0 : index
// CHECK-NEXT:    %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:    %[[N40:.*]] = arith.constant 40 : index
// CHECK-NEXT:    %[[N:.*]] = arith.select %[[OK]], %[[N40]], %{{.*}} : index
// CHECK:         oacc.join vector
// CHECK-NEXT:    oacc.join worker
// CHECK-NEXT:    func.return
