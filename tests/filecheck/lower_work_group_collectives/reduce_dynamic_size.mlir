// RUN: xmux-opt %s -p lower-work-group-collectives | filecheck %s

// Without a required size the fold runs to n = the product of the actual local sizes.
// fmax starts from element 0 (minnum(-inf, NaN) would lose a lone NaN), the loop from 1; an
// integer add starts from its identity 0 over [0, n).

func.func @k(%a: memref<?xf32>, %b: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %x = memref.load %a[%i] : memref<?xf32>
  %y = memref.load %b[%i] : memref<?xi32>
  %r = mux.work_group_reduce fmax %x : f32
  %s = mux.work_group_reduce add %y : i32
  memref.store %r, %a[%i] : memref<?xf32>
  memref.store %s, %b[%i] : memref<?xi32>
  func.return
}

// CHECK:      scf.if
// CHECK-NEXT:   %[[L0:.*]] = mux.get_local_size 0 : index
// CHECK-NEXT:   %[[L1:.*]] = mux.get_local_size 1 : index
// CHECK-NEXT:   %[[L2:.*]] = mux.get_local_size 2 : index
// CHECK-NEXT:   %[[L01:.*]] = arith.muli %[[L0]], %[[L1]] : index
// CHECK-NEXT:   %[[N:.*]] = arith.muli %[[L01]], %[[L2]] : index
// CHECK-NEXT:   %[[SF:.*]] = memref.get_global @__mux_wg_scratch_f32 : memref<1x1026xf32, 3 : i64>
// CHECK-NEXT:   %[[SI:.*]] = memref.get_global @__mux_wg_scratch_i32 : memref<1x1026xi32, 3 : i64>
// CHECK-NEXT:   %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[RES:.*]] = arith.constant 1024 : index
// CHECK-NEXT:   %[[X0:.*]] = memref.load %[[SF]][%[[Z]], %[[Z]]] : memref<1x1026xf32, 3 : i64>
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[MAX:.*]] = scf.for %{{.*}} = %[[ONE]] to %[[N]] step %[[ONE]] iter_args(%{{.*}} = %[[X0]]) -> (f32) {
// CHECK:          arith.maxnumf
// CHECK:        }
// CHECK-NEXT:   memref.store %[[MAX]], %[[SF]][%[[Z]], %[[RES]]] : memref<1x1026xf32, 3 : i64>
// CHECK-NEXT:   %[[I0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %[[SUM:.*]] = scf.for %{{.*}} = %[[Z]] to %[[N]] step %[[ONE]] iter_args(%{{.*}} = %[[I0]]) -> (i32) {
// CHECK:          arith.addi
// CHECK:        }
// CHECK-NEXT:   memref.store %[[SUM]], %[[SI]][%[[Z]], %[[RES]]] : memref<1x1026xi32, 3 : i64>
// CHECK-NEXT: }{mux.single_work_item}
