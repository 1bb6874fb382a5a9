// RUN: xmux-opt %s -p 'work-item-loops{dump-plan=dot}' 2>&1 >/dev/null | filecheck %s

// The plan as a Graphviz graph: a barrier in a uniform scf.for. The loop is a cluster run
// once per group holding its three segments (nodes); barriers are red edges between them;
// the control edges carry the loop's copies (the initial value copied, the next value
// coalesced); %v, loaded before the first barrier and used after it, crosses it in
// per-work-item array #1 (a dashed edge); the ids are re-computed where used.

func.func @k(%a: memref<?xf32>, %t: memref<8xf32, 3>, %n: index)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) {
    %v = memref.load %a[%i] : memref<?xf32>
    memref.store %v, %t[%l] : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %w = memref.load %t[%k] : memref<8xf32, 3>
    %s = arith.addf %v, %w : f32
    %acc2 = arith.addf %acc, %s : f32
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.yield %acc2 : f32
  }
  memref.store %r, %a[%i] : memref<?xf32>
  func.return
}

// CHECK:      digraph "work-item-loops plan" {
// CHECK:      subgraph "cluster_k" {
// CHECK-NEXT:   label="@k: structured fission";
// CHECK-NEXT:   "k.L0S0" [label="seg 0\n(no ops)", shape=box, style=rounded]
// CHECK-NEXT:   "k.L0S1" [label="seg 1\nmemref.store", shape=box, style=rounded]
// CHECK-NEXT:   subgraph "cluster_k_1" {
// CHECK-NEXT:   label="scf.for (once per group)"; style=dashed;
// CHECK-NEXT:   "k.L1S0" [label="body seg 0\nmemref.load\nmemref.store", shape=box, style=rounded]
// CHECK-NEXT:   "k.L1S1" [label="body seg 1\nmemref.load\narith.addf x2", shape=box, style=rounded]
// CHECK-NEXT:   "k.L1S2" [label="body seg 2\n(no ops)", shape=box, style=rounded]
// CHECK-NEXT:   "k.L1S0" -> "k.L1S1" [label="barrier (id 0)", color=red, penwidth=2]
// CHECK-NEXT:   "k.L1S1" -> "k.L1S2" [label="barrier (id 0)", color=red, penwidth=2]
// CHECK-NEXT:   }
// CHECK-NEXT:   "k.L0S0" -> "k.L1S0" [label="enter\n%z → %acc (#0, copied)"]
// CHECK-NEXT:   "k.L1S2" -> "k.L1S0" [label="next iteration\n%acc2 → %acc (#0, coalesced)", constraint=false]
// CHECK-NEXT:   "k.L1S2" -> "k.L0S1" [label="exit"]
// CHECK-NEXT:   "k.L0S0" -> "k.L0S1" [label="0 trips", style=dotted]
// CHECK-NEXT:   "k.L1S0" -> "k.L1S1" [label="%v: array #1 f32", style=dashed, color=blue, fontcolor=blue]
// CHECK:        "k.L0S0" -> "k.L1S0" [label="%i, %l: re-computed", style=dashed, color=gray40, fontcolor=gray40]
// CHECK-NEXT:   "k.storage" [label="per-work-item storage\narray #0 f32: %acc, %r\narray #1 f32: %v", shape=note]
// CHECK-NEXT: }
// CHECK-NEXT: }
