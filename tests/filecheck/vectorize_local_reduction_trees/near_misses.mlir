// RUN: xmux-opt %s -p 'prepare-barriers,vectorize-local-reduction-trees' | filecheck %s

// One template: rewritten as it is (@control), then near misses of it, each left to
// work-item-loops: no required size (rounds unknown), a buffer in global memory (other
// work-groups may see it), an alloca in memory space 3 (not the group's shared memory), a
// round whose loads read a slot another work-item of the round writes (offset s - 1: a
// race), a round that also stores elsewhere, a guard that is not `lid < bound`, a trip count
// from a kernel argument, local id x in a 4x2 group (not a work-item's unique id), and an id
// that wraps in the guard's type.

module {
  "memref.global"() <{sym_name = "buf", sym_visibility = "private", type = memref<8xf32, 3>, initial_value}> : () -> ()
  memref.global "private" @big : memref<512xf32, 3> = uninitialized

  // CHECK-LABEL: func.func @control(
  // CHECK-NOT:     scf.for
  // CHECK:         vector.load %buf
  // CHECK-NOT:     scf.for
  // CHECK:         func.return
  func.func @control(%x: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 1, 1>} {
    %lid = mux.get_local_id 0 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %ls = mux.get_local_size 0 : index
    %buf = memref.get_global @buf : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.for %j = %c0 to %c2 step %c1 {
      %s = arith.shrui %c2, %j : index
      %active = arith.cmpi ult, %lid, %s : index
      scf.if %active {
        %o = arith.addi %lid, %s : index
        %a = memref.load %buf[%lid] : memref<8xf32, 3>
        %b = memref.load %buf[%o] : memref<8xf32, 3>
        %t = arith.addf %a, %b : f32
        
        memref.store %t, %buf[%lid] : memref<8xf32, 3>
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
    func.return
  }

  // CHECK-LABEL: func.func @no_reqd(
  // CHECK:         scf.for
  // CHECK-NOT:     vector.
  // CHECK:         func.return
  func.func @no_reqd(%x: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
    %lid = mux.get_local_id 0 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %ls = mux.get_local_size 0 : index
    %buf = memref.get_global @buf : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.for %j = %c0 to %c2 step %c1 {
      %s = arith.shrui %c2, %j : index
      %active = arith.cmpi ult, %lid, %s : index
      scf.if %active {
        %o = arith.addi %lid, %s : index
        %a = memref.load %buf[%lid] : memref<8xf32, 3>
        %b = memref.load %buf[%o] : memref<8xf32, 3>
        %t = arith.addf %a, %b : f32
        
        memref.store %t, %buf[%lid] : memref<8xf32, 3>
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
    func.return
  }

  // CHECK-LABEL: func.func @global_buf(
  // CHECK:         scf.for
  // CHECK-NOT:     vector.
  // CHECK:         func.return
  func.func @global_buf(%x: memref<?xf32>, %buf: memref<8xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 1, 1>} {
    %lid = mux.get_local_id 0 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %ls = mux.get_local_size 0 : index
    
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.for %j = %c0 to %c2 step %c1 {
      %s = arith.shrui %c2, %j : index
      %active = arith.cmpi ult, %lid, %s : index
      scf.if %active {
        %o = arith.addi %lid, %s : index
        %a = memref.load %buf[%lid] : memref<8xf32>
        %b = memref.load %buf[%o] : memref<8xf32>
        %t = arith.addf %a, %b : f32
        
        memref.store %t, %buf[%lid] : memref<8xf32>
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
    func.return
  }

  // CHECK-LABEL: func.func @alloca_in_space_3(
  // CHECK:         scf.for
  // CHECK-NOT:     vector.
  // CHECK:         func.return
  func.func @alloca_in_space_3(%x: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 1, 1>} {
    %lid = mux.get_local_id 0 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %ls = mux.get_local_size 0 : index
    %buf = memref.alloca() : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.for %j = %c0 to %c2 step %c1 {
      %s = arith.shrui %c2, %j : index
      %active = arith.cmpi ult, %lid, %s : index
      scf.if %active {
        %o = arith.addi %lid, %s : index
        %a = memref.load %buf[%lid] : memref<8xf32, 3>
        %b = memref.load %buf[%o] : memref<8xf32, 3>
        %t = arith.addf %a, %b : f32
        
        memref.store %t, %buf[%lid] : memref<8xf32, 3>
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
    func.return
  }

  // CHECK-LABEL: func.func @racy(
  // CHECK:         scf.for
  // CHECK-NOT:     vector.
  // CHECK:         func.return
  func.func @racy(%x: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 1, 1>} {
    %lid = mux.get_local_id 0 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %ls = mux.get_local_size 0 : index
    %buf = memref.get_global @buf : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.for %j = %c0 to %c2 step %c1 {
      %s = arith.shrui %c2, %j : index
      %active = arith.cmpi ult, %lid, %s : index
      scf.if %active {
        %o1 = arith.addi %lid, %s : index
        %o = arith.subi %o1, %c1 : index
        %a = memref.load %buf[%lid] : memref<8xf32, 3>
        %b = memref.load %buf[%o] : memref<8xf32, 3>
        %t = arith.addf %a, %b : f32
        
        memref.store %t, %buf[%lid] : memref<8xf32, 3>
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
    func.return
  }

  // CHECK-LABEL: func.func @extra_store(
  // CHECK:         scf.for
  // CHECK-NOT:     vector.
  // CHECK:         func.return
  func.func @extra_store(%x: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 1, 1>} {
    %lid = mux.get_local_id 0 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %ls = mux.get_local_size 0 : index
    %buf = memref.get_global @buf : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.for %j = %c0 to %c2 step %c1 {
      %s = arith.shrui %c2, %j : index
      %active = arith.cmpi ult, %lid, %s : index
      scf.if %active {
        %o = arith.addi %lid, %s : index
        %a = memref.load %buf[%lid] : memref<8xf32, 3>
        %b = memref.load %buf[%o] : memref<8xf32, 3>
        %t = arith.addf %a, %b : f32
        memref.store %t, %x[%lid] : memref<?xf32>
        memref.store %t, %buf[%lid] : memref<8xf32, 3>
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
    func.return
  }

  // CHECK-LABEL: func.func @guard_not_prefix(
  // CHECK:         scf.for
  // CHECK-NOT:     vector.
  // CHECK:         func.return
  func.func @guard_not_prefix(%x: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 1, 1>} {
    %lid = mux.get_local_id 0 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %ls = mux.get_local_size 0 : index
    %buf = memref.get_global @buf : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.for %j = %c0 to %c2 step %c1 {
      %s = arith.shrui %c2, %j : index
      %active = arith.cmpi uge, %lid, %s : index
      scf.if %active {
        %o = arith.addi %lid, %s : index
        %a = memref.load %buf[%lid] : memref<8xf32, 3>
        %b = memref.load %buf[%o] : memref<8xf32, 3>
        %t = arith.addf %a, %b : f32
        
        memref.store %t, %buf[%lid] : memref<8xf32, 3>
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
    func.return
  }

  // CHECK-LABEL: func.func @rounds_from_argument(
  // CHECK:         scf.for
  // CHECK-NOT:     vector.
  // CHECK:         func.return
  func.func @rounds_from_argument(%x: memref<?xf32>, %n: index) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 1, 1>} {
    %lid = mux.get_local_id 0 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %ls = mux.get_local_size 0 : index
    %buf = memref.get_global @buf : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.for %j = %c0 to %n step %c1 {
      %s = arith.shrui %c2, %j : index
      %active = arith.cmpi ult, %lid, %s : index
      scf.if %active {
        %o = arith.addi %lid, %s : index
        %a = memref.load %buf[%lid] : memref<8xf32, 3>
        %b = memref.load %buf[%o] : memref<8xf32, 3>
        %t = arith.addf %a, %b : f32
        
        memref.store %t, %buf[%lid] : memref<8xf32, 3>
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
    func.return
  }

  // CHECK-LABEL: func.func @local_id_x_of_2d(
  // CHECK:         scf.for
  // CHECK-NOT:     vector.
  // CHECK:         func.return
  func.func @local_id_x_of_2d(%x: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 2, 1>} {
    %lid = mux.get_local_id 0 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %ls = mux.get_local_size 0 : index
    %buf = memref.get_global @buf : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.for %j = %c0 to %c2 step %c1 {
      %s = arith.shrui %c2, %j : index
      %active = arith.cmpi ult, %lid, %s : index
      scf.if %active {
        %o = arith.addi %lid, %s : index
        %a = memref.load %buf[%lid] : memref<8xf32, 3>
        %b = memref.load %buf[%o] : memref<8xf32, 3>
        %t = arith.addf %a, %b : f32
        
        memref.store %t, %buf[%lid] : memref<8xf32, 3>
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
    func.return
  }

  // The guard compares the id truncated to i8 in a 256-item group: ids 128-255 wrap to
  // negative values, which `slt` lets in; not the prefix [0, s) the pass could prove.
  // CHECK-LABEL: func.func @id_wraps_in_i8(
  // CHECK:         scf.for
  // CHECK-NOT:     vector.
  // CHECK:         func.return
  func.func @id_wraps_in_i8(%x: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 256, 1, 1>} {
    %lid = mux.get_local_id 0 : index
    %l8 = arith.index_cast %lid : index to i8
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %buf = memref.get_global @big : memref<512xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.for %j = %c0 to %c2 step %c1 {
      %s = arith.shrui %c2, %j : index
      %s8 = arith.index_cast %s : index to i8
      %active = arith.cmpi slt, %l8, %s8 : i8
      scf.if %active {
        %o = arith.addi %lid, %s : index
        %a = memref.load %buf[%lid] : memref<512xf32, 3>
        %b = memref.load %buf[%o] : memref<512xf32, 3>
        %t = arith.addf %a, %b : f32
        memref.store %t, %buf[%lid] : memref<512xf32, 3>
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
    func.return
  }

  // Written out: one round alone is not a run (work-item-loops vectorizes it).
  // CHECK-LABEL: func.func @one_written_round(
  // CHECK-NOT:     vector.
  // CHECK:         func.return
  func.func @one_written_round(%x: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 1, 1>} {
    %lid = mux.get_local_id 0 : index
    %buf = memref.get_global @buf : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %c4 = arith.constant 4 : index
    %a4 = arith.cmpi ult, %lid, %c4 : index
    scf.if %a4 {
      %o = arith.addi %lid, %c4 : index
      %a = memref.load %buf[%lid] : memref<8xf32, 3>
      %b = memref.load %buf[%o] : memref<8xf32, 3>
      %t = arith.addf %a, %b : f32
      memref.store %t, %buf[%lid] : memref<8xf32, 3>
    }
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    func.return
  }

  // Written out: two steps with no barrier between them (a race) are not rounds.
  // CHECK-LABEL: func.func @rounds_without_barrier_between(
  // CHECK-NOT:     vector.
  // CHECK:         func.return
  func.func @rounds_without_barrier_between(%x: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 1, 1>} {
    %lid = mux.get_local_id 0 : index
    %buf = memref.get_global @buf : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %c4 = arith.constant 4 : index
    %a4 = arith.cmpi ult, %lid, %c4 : index
    scf.if %a4 {
      %o = arith.addi %lid, %c4 : index
      %a = memref.load %buf[%lid] : memref<8xf32, 3>
      %b = memref.load %buf[%o] : memref<8xf32, 3>
      %t = arith.addf %a, %b : f32
      memref.store %t, %buf[%lid] : memref<8xf32, 3>
    }
    %c2 = arith.constant 2 : index
    %a2 = arith.cmpi ult, %lid, %c2 : index
    scf.if %a2 {
      %o = arith.addi %lid, %c2 : index
      %a = memref.load %buf[%lid] : memref<8xf32, 3>
      %b = memref.load %buf[%o] : memref<8xf32, 3>
      %t = arith.addf %a, %b : f32
      memref.store %t, %buf[%lid] : memref<8xf32, 3>
    }
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    func.return
  }

  // Written out: a global store between two rounds ends the run (each alone).
  // CHECK-LABEL: func.func @run_broken_by_a_store(
  // CHECK-NOT:     vector.
  // CHECK:         func.return
  func.func @run_broken_by_a_store(%x: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 1, 1>} {
    %lid = mux.get_local_id 0 : index
    %buf = memref.get_global @buf : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %c4 = arith.constant 4 : index
    %a4 = arith.cmpi ult, %lid, %c4 : index
    scf.if %a4 {
      %o = arith.addi %lid, %c4 : index
      %a = memref.load %buf[%lid] : memref<8xf32, 3>
      %b = memref.load %buf[%o] : memref<8xf32, 3>
      %t = arith.addf %a, %b : f32
      memref.store %t, %buf[%lid] : memref<8xf32, 3>
    }
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %cf = arith.constant 1.0 : f32
    memref.store %cf, %x[%lid] : memref<?xf32>
    %c2 = arith.constant 2 : index
    %a2 = arith.cmpi ult, %lid, %c2 : index
    scf.if %a2 {
      %o = arith.addi %lid, %c2 : index
      %a = memref.load %buf[%lid] : memref<8xf32, 3>
      %b = memref.load %buf[%o] : memref<8xf32, 3>
      %t = arith.addf %a, %b : f32
      memref.store %t, %buf[%lid] : memref<8xf32, 3>
    }
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    func.return
  }

  // A loop whose rounds never let a work-item in and never end (the kernel would hang): the
  // pass gives up after a bounded number of iterations instead of hanging the compiler.
  // CHECK-LABEL: func.func @endless_inactive_rounds(
  // CHECK:         scf.while
  // CHECK-NOT:     vector.
  // CHECK:         func.return
  func.func @endless_inactive_rounds(%x: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 1, 1>} {
    %lid = mux.get_local_id 0 : index
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c100 = arith.constant 100 : index
    %buf = memref.get_global @buf : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %end = scf.while (%s0 = %c4) : (index) -> index {
      %go = arith.cmpi sgt, %s0, %c0 : index
      scf.condition(%go) %s0 : index
    } do {
    ^bb0(%s: index):
      %b = arith.subi %s, %c100 : index
      %active = arith.cmpi slt, %lid, %b : index
      scf.if %active {
        %o = arith.addi %lid, %s : index
        %a = memref.load %buf[%lid] : memref<8xf32, 3>
        memref.store %a, %buf[%o] : memref<8xf32, 3>
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
      scf.yield %s : index
    }
    func.return
  }
}
