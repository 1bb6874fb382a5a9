// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=ptx}' | filecheck %s
// Vector level on ptx, vector_length(8) (a vector group lies within a warp): init keeps LOCAL
// in lane 0 and init_val elsewhere; fork/join inside worker-partitioned code synchronise the
// group's 8 lanes of the warp (bar.warp.sync on a mask from the group's first lane); fini is a
// butterfly of shfl.sync.bfly over those lanes (every lane gets the result); teardown is the
// fini's value. No buffer, no barrier. (The unknown op before the first fork keeps its
// barrier: see ptx_first_fork.mlir for forks with nothing before them.)

func.func @k(%a: f32) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 4, 8>} {
  "test.op"() {before} : () -> ()
  oacc.fork worker
  %a1 = oacc.reduction_setup vector add %a lid 0 rid 0 : f32
  oacc.fork vector
  %a2 = oacc.reduction_init vector add %a1 lid 0 rid 0 : f32
  "test.op"(%a2) : (f32) -> ()
  %a3 = oacc.reduction_fini vector add %a2 lid 0 rid 0 : f32
  oacc.join vector
  %a4 = oacc.reduction_teardown vector add %a3 lid 0 rid 0 : f32
  "test.op"(%a4) : (f32) -> ()
  oacc.join worker
  func.return
}

// CHECK-NOT:  memref.global
// CHECK:      func.func @k
// CHECK-NEXT:   "test.op"() {before} : () -> ()
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   %0 = mux.get_local_linear_id : index
// CHECK-NEXT:   %1 = mux.get_local_id 0 : index
// CHECK-NEXT:   %2 = arith.subi %0, %1 : index
// CHECK-NEXT:   %3 = arith.index_cast %2 : index to i32
// CHECK-NEXT:   %4 = arith.constant 31 : i32
// CHECK-NEXT:   %5 = arith.andi %3, %4 : i32
// CHECK-NEXT:   %6 = arith.constant 255 : i32
// CHECK-NEXT:   %7 = arith.shli %6, %5 : i32
// CHECK-NEXT:   llvm.call_intrinsic "llvm.nvvm.bar.warp.sync"(%7) : (i32) -> ()
// CHECK-NEXT:   %8 = mux.get_local_id 0 : index
// CHECK-NEXT:   %9 = arith.constant 0 : index
// CHECK-NEXT:   %10 = arith.cmpi eq, %8, %9 : index
// CHECK-NEXT:   %11 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:   %a2 = arith.select %10, %a, %11 : f32
// CHECK-NEXT:   "test.op"(%a2) : (f32) -> ()
// CHECK:        %[[MASK:.*]] = arith.shli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:   %[[W0:.*]] = arith.bitcast %a2 : f32 to i32
// CHECK-NEXT:   %[[O4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:   %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT:   %[[S0:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"(%[[MASK]], %[[W0]], %[[O4]], %[[C31]]) : (i32, i32, i32, i32) -> i32
// CHECK-NEXT:   %[[X0:.*]] = arith.bitcast %[[S0]] : i32 to f32
// CHECK-NEXT:   %[[R0:.*]] = arith.addf %a2, %[[X0]] : f32
// CHECK:        llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"(%[[MASK]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK:        %[[O1:.*]] = arith.constant 1 : i32
// CHECK:        llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"(%[[MASK]], %{{.*}}, %[[O1]], %{{.*}})
// CHECK-NEXT:   %[[X2:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT:   %a3 = arith.addf %{{.*}}, %[[X2]] : f32
// CHECK:        llvm.call_intrinsic "llvm.nvvm.bar.warp.sync"(%{{.*}}) : (i32) -> ()
// CHECK-NEXT:   "test.op"(%a3) : (f32) -> ()
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   func.return
