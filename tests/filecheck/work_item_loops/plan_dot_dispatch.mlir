// RUN: xmux-opt %s -p 'work-item-loops{dump-plan=dot}' 2>&1 >/dev/null | filecheck %s
// RUN: xmux-opt %s -p 'work-item-loops{dump-plan=text}' 2>&1 >/dev/null | filecheck %s --check-prefix=TEXT
// RUN: not xmux-opt %s -p 'work-item-loops{dump-plan=svg}' 2>&1 | filecheck %s --check-prefix=BAD

// The graph of a region-dispatch kernel (a guarded barrier in a loop whose trip count varies
// per work-item): the entries of the region function are the nodes (the kernel entry, after
// the barrier), the barrier and the return are edges, and the loop's induction variable,
// live across the barrier, is a per-work-item slot stored in both entries and read after the
// barrier. dump-plan=text is the text dump (as dump-plan=true); other values are refused.

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

// CHECK:      subgraph "cluster_k" {
// CHECK-NEXT:   label="@k: region dispatch ('scf.for': control that is not provably uniform)";
// CHECK-NEXT:   "k.R0" [label="entry 0: kernel entry\n{{[0-9]+}} block(s), {{[0-9]+}} ops", shape=box, style=rounded]
// CHECK-NEXT:   "k.R1" [label="entry 1: after barrier 1 (id 0)\n{{.*}}", shape=box, style=rounded]
// CHECK-NEXT:   "k.R2" [label="exit", shape=doublecircle]
// CHECK-NEXT:   "k.R0" -> "k.R1" [label="barrier 1", color=red, penwidth=2]
// CHECK-NEXT:   "k.R0" -> "k.R2" [label="return"]
// CHECK-NEXT:   "k.R1" -> "k.R1" [label="barrier 1", color=red, penwidth=2]
// CHECK-NEXT:   "k.R1" -> "k.R2" [label="return"]
// CHECK-NEXT:   "k.R0" -> "k.R1" [label="%k: slot #0 index", style=dashed, color=blue, fontcolor=blue]
// CHECK-NEXT:   "k.R1" -> "k.R1" [label="%k: slot #0 index", style=dashed, color=blue, fontcolor=blue]
// CHECK-NEXT:   "k.storage" [label="per-work-item storage\nslot #0 index: %k", shape=note]

// TEXT: work-item-loops plan @k: region dispatch ('scf.for': control that is not provably uniform)

// BAD: dump-plan must be true, text or dot, got 'svg'
