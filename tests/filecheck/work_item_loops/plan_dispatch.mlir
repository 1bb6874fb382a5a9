// RUN: xmux-opt %s -p 'work-item-loops{dump-plan=true}' 2>&1 >/dev/null | filecheck %s

// The plan dump of a kernel that region formation cannot prove (a loop bound that varies
// per work-item around a conditional barrier: not uniform, and no barrier directly in the
// loop makes it uniform by the rule): it names the op and the reason region dispatch runs it.

func.func @k(%a: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %ls = mux.get_local_size 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %ub = arith.addi %l, %c2 : index
  scf.for %k = %c0 to %ub step %c1 {
    %ki = arith.index_cast %k : index to i32
    memref.store %ki, %a[%i] : memref<?xi32>
    %over = arith.cmpi uge, %l, %ls : index
    scf.if %over {
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
  }
  func.return
}

// CHECK: work-item-loops plan @k: region dispatch ('scf.for': control that is not provably uniform)
