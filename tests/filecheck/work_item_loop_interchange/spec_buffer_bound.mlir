// RUN: xmux-opt %s -p 'lower-spec-constants{mode=emulated},work-item-loops,work-item-loop-interchange' | filecheck %s

// Emulated specialization constants become loads from the runtime buffer (spec.buffer_load).
// Nothing writes that buffer during a launch, so such a load is uniform like the spec op it
// replaced: a loop whose trip count is a constant (a FIR filter's tap count) is interchanged
// with the work-item loop, which then vectorizes. A bound loaded from an ordinary buffer stays
// a per-work-item loop (@from_memory).

spec.specialization_id @ntaps_default = 4 : i32

// CHECK-LABEL: func.func @fir
// CHECK:         %[[N32:.*]] = llvm.load %{{.*}} {spec.buffer_load
// CHECK-NEXT:    %[[N:.*]] = arith.index_cast %[[N32]] : i32 to index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      mux.set_local_id 0
// CHECK-NEXT:      memref.store %zero, %[[ACC:.*]][%{{.*}}] : memref<?xf32>
// CHECK-NEXT:    } {mux.work_item_loop}
// CHECK-NEXT:    scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        mux.set_local_id 0
// CHECK:             memref.load %[[ACC]]
// CHECK:           } {mux.work_item_loop}
// CHECK-NEXT:    }
func.func @fir(%in: memref<?xf32>, %out: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 64, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n32 = spec.get_scalar "ntaps", @ntaps_default : i32
  %n = arith.index_cast %n32 : i32 to index
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%a = %zero) -> (f32) {
    %j = arith.addi %i, %k : index
    %x = memref.load %in[%j] : memref<?xf32>
    %s = arith.addf %a, %x : f32
    scf.yield %s : f32
  }
  memref.store %acc, %out[%i] : memref<?xf32>
  func.return
}

// CHECK-LABEL: func.func @from_memory
// CHECK:           mux.set_local_id 0
// CHECK-NOT:       mux.work_item_loop
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:         } {mux.work_item_loop}
func.func @from_memory(%in: memref<?xf32>, %out: memref<?xf32>, %cnt: memref<1xi32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 64, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n32 = memref.load %cnt[%c0] : memref<1xi32>
  %n = arith.index_cast %n32 : i32 to index
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%a = %zero) -> (f32) {
    %j = arith.addi %i, %k : index
    %x = memref.load %in[%j] : memref<?xf32>
    %s = arith.addf %a, %x : f32
    scf.yield %s : f32
  }
  memref.store %acc, %out[%i] : memref<?xf32>
  func.return
}
