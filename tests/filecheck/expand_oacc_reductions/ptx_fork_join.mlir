// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=ptx}' --split-input-file | filecheck %s
// Fork/join on ptx with vector_length(1): the vector level has one lane, so its fork/join
// inside worker-partitioned code synchronise nothing; in worker-single code (4 workers) they
// stay work-group barriers (every worker reads what worker 0 wrote before the fork). Gang
// fork/join vanish, worker fork/join are work-group barriers.

func.func @one_lane(%a: f32) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 4, 1>} {
  oacc.fork gang
  "test.op"() {single} : () -> ()
  oacc.fork vector
  "test.op"() {vector_in_single} : () -> ()
  oacc.join vector
  oacc.fork worker
  oacc.fork vector
  "test.op"() {vector_in_worker} : () -> ()
  oacc.join vector
  oacc.join worker
  oacc.join gang
  func.return
}

// CHECK-LABEL: func.func @one_lane
// CHECK-NEXT:    "test.op"() {single} : () -> ()
// CHECK-NEXT:    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:    "test.op"() {vector_in_single} : () -> ()
// CHECK-NEXT:    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:    "test.op"() {vector_in_worker} : () -> ()
// CHECK-NEXT:    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:    func.return

// -----

// One worker and vector_length(32): a vector fork/join synchronise the warp only, also in
// worker-single code (there is no other worker to read what lane 0 wrote).

func.func @one_worker(%a: f32) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 1, 32>} {
  "test.op"() {single} : () -> ()
  oacc.fork vector
  "test.op"() {vector_in_single} : () -> ()
  oacc.join vector
  func.return
}

// CHECK-LABEL: func.func @one_worker
// CHECK-NEXT:    "test.op"() {single} : () -> ()
// CHECK-NEXT:    %[[ALL:.*]] = arith.constant -1 : i32
// CHECK-NEXT:    llvm.call_intrinsic "llvm.nvvm.bar.warp.sync"(%[[ALL]]) : (i32) -> ()
// CHECK-NEXT:    "test.op"() {vector_in_single} : () -> ()
// CHECK-NEXT:    %[[ALL2:.*]] = arith.constant -1 : i32
// CHECK-NEXT:    llvm.call_intrinsic "llvm.nvvm.bar.warp.sync"(%[[ALL2]]) : (i32) -> ()
// CHECK-NEXT:    func.return
