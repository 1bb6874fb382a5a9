// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=ptx}' --split-input-file | filecheck %s
// A fork with nothing to order: in the kernel's entry block after only ops without memory
// effects, work-item queries, private allocas and loads whose value is unused, no thread has
// written memory another may read, nor used memory another may write after the fork. The
// worker fork (a bar.sync) and the vector fork (a bar.warp.sync) vanish there; their joins stay.

func.func @first(%x: memref<?xf32>, %n: index) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 4, 32>} {
  %p = memref.alloca() : memref<f32>
  %dead = memref.load %x[%n] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %lid = mux.get_local_id 1 : index
  oacc.fork worker
  oacc.fork vector
  "test.op"(%lid) : (index) -> ()
  oacc.join vector
  oacc.join worker
  func.return
}

// CHECK-LABEL: func.func @first
// CHECK-NEXT:    %p = memref.alloca() : memref<f32>
// CHECK-NEXT:    %dead = memref.load %x[%n] : memref<?xf32>
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %lid = mux.get_local_id 1 : index
// CHECK-NEXT:    "test.op"(%lid) : (index) -> ()
// CHECK-NEXT:    %{{.*}} = arith.constant -1 : i32
// CHECK-NEXT:    llvm.call_intrinsic "llvm.nvvm.bar.warp.sync"
// CHECK-NEXT:    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:    func.return

// -----

// A store before the fork: another worker may read it after the fork, the barrier stays.

func.func @after_store(%x: memref<?xf32>, %v: f32) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 4, 1>} {
  %c0 = arith.constant 0 : index
  memref.store %v, %x[%c0] : memref<?xf32>
  oacc.fork worker
  "test.op"() : () -> ()
  oacc.join worker
  func.return
}

// CHECK-LABEL: func.func @after_store
// CHECK:         memref.store
// CHECK-NEXT:    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:    "test.op"() : () -> ()

// -----

// A load whose value is used: a worker's write after the fork could reach it, the barrier
// stays.

func.func @after_used_load(%x: memref<?xf32>) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 4, 1>} {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<?xf32>
  oacc.fork worker
  "test.op"(%v) : (f32) -> ()
  oacc.join worker
  func.return
}

// CHECK-LABEL: func.func @after_used_load
// CHECK:         %v = memref.load
// CHECK-NEXT:    mux.work_group_barrier work_group, <acq_rel, work_group_memory>

// -----

// A fork inside a loop: the previous iteration's code came before it, the barrier stays.

func.func @in_loop(%n: index) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 4, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    oacc.fork worker
    "test.op"() : () -> ()
    oacc.join worker
  }
  func.return
}

// CHECK-LABEL: func.func @in_loop
// CHECK:         scf.for
// CHECK-NEXT:      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:      "test.op"() : () -> ()
// CHECK-NEXT:      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
