// RUN: xmux-opt %s -p lower-sub-group-collectives | filecheck %s

// Size 8 from the kernel's attribute. broadcast reads lane %id of the sub-group (the own
// value when that lane does not exist); any / all fold the i1 slots of all lanes with or /
// and, starting from lane 0.

func.func @k(%x: f64, %b: i1, %id: i32) -> (f64, i1, i1) attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 8 : i64} {
  %r = mux.sub_group_broadcast %x, %id : f64
  %a = mux.sub_group_any %b : i1
  %l = mux.sub_group_all %b : i1
  func.return %r, %a, %l : f64, i1, i1
}

// CHECK:        mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   %[[ME:.*]] = mux.get_local_linear_id : index
// CHECK:        %[[N:.*]] = arith.constant 8 : index
// CHECK-NEXT:   %[[SG:.*]] = arith.divui %[[ME]], %[[N]] : index
// CHECK-NEXT:   %[[BASE:.*]] = arith.muli %[[SG]], %[[N]] : index
// CHECK-NEXT:   %{{.*}} = arith.subi %[[ME]], %[[BASE]] : index
// CHECK-NEXT:   %[[LEFT:.*]] = arith.subi %{{.*}}, %[[BASE]] : index
// CHECK-NEXT:   %[[SIZE:.*]] = arith.minui %[[LEFT]], %[[N]] : index
// CHECK-NEXT:   %[[F:.*]] = memref.get_global @__mux_sg_scratch_f64 : memref<1x1024xf64, 3 : i64>
// CHECK-NEXT:   %[[B:.*]] = memref.get_global @__mux_sg_scratch_i1 : memref<2x1024xi1, 3 : i64>
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[ID64:.*]] = arith.extui %id : i32 to i64
// CHECK-NEXT:   %[[K:.*]] = arith.index_cast %[[ID64]] : i64 to index
// CHECK-NEXT:   %[[IN:.*]] = arith.cmpi ult, %[[K]], %[[SIZE]] : index
// CHECK-NEXT:   %[[AT:.*]] = arith.addi %[[BASE]], %[[K]] : index
// CHECK-NEXT:   %[[SLOT:.*]] = arith.select %[[IN]], %[[AT]], %[[ME]] : index
// CHECK-NEXT:   %r = memref.load %[[F]][%[[ZERO]], %[[SLOT]]] : memref<1x1024xf64, 3 : i64>
// CHECK-NEXT:   %[[END:.*]] = arith.addi %[[BASE]], %[[SIZE]] : index
// CHECK-NEXT:   %[[B0:.*]] = memref.load %[[B]][%[[ZERO]], %[[BASE]]] : memref<2x1024xi1, 3 : i64>
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[LO:.*]] = arith.addi %[[BASE]], %[[ONE]] : index
// CHECK-NEXT:   %a = scf.for %[[I:.*]] = %[[LO]] to %[[END]] step %[[ONE]] iter_args(%[[ACC:.*]] = %[[B0]]) -> (i1) {
// CHECK-NEXT:     %[[BI:.*]] = memref.load %[[B]][%[[ZERO]], %[[I]]] : memref<2x1024xi1, 3 : i64>
// CHECK-NEXT:     %[[OR:.*]] = arith.ori %[[ACC]], %[[BI]] : i1
// CHECK-NEXT:     scf.yield %[[OR]] : i1
// CHECK-NEXT:   }
// CHECK-NEXT:   %[[END2:.*]] = arith.addi %[[BASE]], %[[SIZE]] : index
// CHECK-NEXT:   %[[C0:.*]] = memref.load %[[B]][%[[ONE]], %[[BASE]]] : memref<2x1024xi1, 3 : i64>
// CHECK-NEXT:   %[[LO2:.*]] = arith.addi %[[BASE]], %[[ONE]] : index
// CHECK-NEXT:   %l = scf.for %[[J:.*]] = %[[LO2]] to %[[END2]] step %[[ONE]] iter_args(%[[ACC2:.*]] = %[[C0]]) -> (i1) {
// CHECK-NEXT:     %[[CJ:.*]] = memref.load %[[B]][%[[ONE]], %[[J]]] : memref<2x1024xi1, 3 : i64>
// CHECK-NEXT:     %[[AND:.*]] = arith.andi %[[ACC2]], %[[CJ]] : i1
// CHECK-NEXT:     scf.yield %[[AND]] : i1
// CHECK-NEXT:   }
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   func.return %r, %a, %l : f64, i1, i1
