// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=ptx}' --split-input-file | filecheck %s
// Vector groups that are not within one warp. vector_length(64): each warp of the group
// shuffles over its 32 lanes, its lane 0 writes the warp's partial to
// @__oacc_vector_red_f32[row][worker * 2 + lane / 32]; the join is a work-group barrier; the
// teardown folds the group's 2 partials. vector_length(24): every lane writes its value to
// [row][worker * 24 + lane], the teardown folds the 24 values in lane order.

func.func @long(%a: f32) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 2, 64>} {
  oacc.fork worker
  oacc.fork vector
  %a3 = oacc.reduction_fini vector add %a lid 0 rid 0 : f32
  oacc.join vector
  %a4 = oacc.reduction_teardown vector add %a3 lid 0 rid 0 : f32
  "test.op"(%a4) : (f32) -> ()
  oacc.join worker
  func.return
}

// -----

func.func @odd(%a: f32) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 2, 24>} {
  oacc.fork worker
  oacc.fork vector
  %a3 = oacc.reduction_fini vector add %a lid 0 rid 0 : f32
  oacc.join vector
  %a4 = oacc.reduction_teardown vector add %a3 lid 0 rid 0 : f32
  "test.op"(%a4) : (f32) -> ()
  oacc.join worker
  func.return
}

// CHECK:      memref.global "private" @__oacc_vector_red_f32 : memref<1x4xf32, 3 : i64>
// CHECK:      func.func @long
// CHECK:        %[[LANE:.*]] = mux.get_local_id 0 : index
// CHECK-NEXT:   %[[W:.*]] = mux.get_local_id 1 : index
// CHECK-NEXT:   %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:   %[[BASE:.*]] = arith.muli %[[W]], %[[TWO]] : index
// CHECK-NEXT:   %[[ALL:.*]] = arith.constant -1 : i32
// CHECK-NEXT:   %[[X:.*]] = arith.bitcast %a : f32 to i32
// CHECK-NEXT:   %[[O16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:   %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT:   llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"(%[[ALL]], %[[X]], %[[O16]], %[[C31]])
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"(%[[ALL]],
// CHECK:        %[[P:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:   %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT:   %[[IN:.*]] = arith.remui %[[LANE]], %[[C32]] : index
// CHECK-NEXT:   %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[FIRST:.*]] = arith.cmpi eq, %[[IN]], %[[Z]] : index
// CHECK-NEXT:   scf.if %[[FIRST]] {
// CHECK-NEXT:     %[[BUF:.*]] = memref.get_global @__oacc_vector_red_f32 : memref<1x4xf32, 3 : i64>
// CHECK-NEXT:     %[[ROW:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[C32B:.*]] = arith.constant 32 : index
// CHECK-NEXT:     %[[WARP:.*]] = arith.divui %[[LANE]], %[[C32B]] : index
// CHECK-NEXT:     %[[SLOT:.*]] = arith.addi %[[BASE]], %[[WARP]] : index
// CHECK-NEXT:     memref.store %[[P]], %[[BUF]][%[[ROW]], %[[SLOT]]] : memref<1x4xf32, 3 : i64>
// CHECK-NEXT:   }
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK:        %a4 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK:        "test.op"(%a4) : (f32) -> ()

// CHECK:      memref.global "private" @__oacc_vector_red_f32 : memref<1x48xf32, 3 : i64>
// CHECK:      func.func @odd
// CHECK-NOT:    llvm.call_intrinsic
// CHECK:        %[[VL:.*]] = arith.constant 24 : index
// CHECK-NEXT:   %[[W2:.*]] = mux.get_local_id 1 : index
// CHECK-NEXT:   %[[B2:.*]] = arith.muli %[[W2]], %[[VL]] : index
// CHECK-NEXT:   %[[BUF2:.*]] = memref.get_global @__oacc_vector_red_f32 : memref<1x48xf32, 3 : i64>
// CHECK-NEXT:   %[[R2:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[L2:.*]] = mux.get_local_id 0 : index
// CHECK-NEXT:   %[[S2:.*]] = arith.addi %[[B2]], %[[L2]] : index
// CHECK-NEXT:   memref.store %a, %[[BUF2]][%[[R2]], %[[S2]]] : memref<1x48xf32, 3 : i64>
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK:        %a4 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK:        "test.op"(%a4) : (f32) -> ()
