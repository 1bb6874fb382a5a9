// RUN: xmux-run --emit llvm --debug %s | filecheck %s

// Debug metadata through work-item-loops' structured fission: every op keeps its line (the
// scf.for around the barriers, the barriers, the scf.yield); %acc, kept in a per-work-item
// array across the barriers, is read for the running work-item at the top of each barrier
// region (the line of the barrier or loop that opens it) into its variable's slot, also in
// the region after the first barrier where line 17 does not use it; %i, re-computed, too.

func.func @k(%a: memref<?xf32>, %t: memref<8xf32, 3>, %n: index)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %a[%i] : memref<?xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %v) -> (f32) {
    memref.store %acc, %t[%l] : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %nb = arith.xori %l, %c1 : index
    %w = memref.load %t[%nb] : memref<8xf32, 3>
    %acc2 = arith.addf %acc, %w : f32
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.yield %acc2 : f32
  }
  memref.store %r, %a[%i] : memref<?xf32>
  func.return
}

// CHECK-LABEL: define internal void @"k"(
// the group-level loop (line 16) and its induction variable
// CHECK:        store i64 %{{.*}}, ptr %"k.dbg", !dbg ![[FOR:[0-9]+]]
// its first region: %acc, in its array, read for the work-item at the scf.for's line
// CHECK:        store i64 %{{.*}}, ptr %"x.dbg", !dbg ![[FOR]]
// CHECK:        [[ACC0:%"\.[0-9]+"]] = load float, ptr %{{.*}}, !dbg ![[FOR]]
// CHECK-NEXT:   store float [[ACC0]], ptr %"acc.dbg", !dbg ![[FOR]]
// CHECK:        store float [[ACC0]], ptr %{{.*}}, !dbg ![[L17:[0-9]+]]
// CHECK:        fence syncscope("singlethread") acq_rel, !dbg ![[B1:[0-9]+]]
// the region after the first barrier: its nest at the barrier's line, %i re-computed, %acc
// read before line 19 (which does not use it), the value line 21 adds
// CHECK:        store i64 %{{.*}}, ptr %"x.dbg", !dbg ![[B1]]
// CHECK:        store i64 %{{.*}}, ptr %"i.dbg", !dbg ![[L11:[0-9]+]]
// CHECK:        [[ACC1:%"\.[0-9]+"]] = load float, ptr %{{.*}}, !dbg ![[B1]]
// CHECK-NEXT:   store float [[ACC1]], ptr %"acc.dbg", !dbg ![[B1]]
// CHECK:        store i64 %{{.*}}, ptr %"nb.dbg", !dbg ![[L19:[0-9]+]]
// CHECK:        store float %{{.*}}, ptr %"w.dbg", !dbg ![[L20:[0-9]+]]
// CHECK:        [[ACC2:%"\.[0-9]+"]] = fadd float [[ACC1]], %{{.*}}, !dbg ![[L21:[0-9]+]]
// CHECK-NEXT:   store float [[ACC2]], ptr %"acc2.dbg", !dbg ![[L21]]
// the second barrier, then the latch at the scf.yield's line
// CHECK:        fence syncscope("singlethread") acq_rel, !dbg ![[B2:[0-9]+]]
// CHECK-NEXT:   add i64 %{{.*}}, 1, !dbg ![[YIELD:[0-9]+]]
// CHECK-NEXT:   br label %{{.*}}, !dbg ![[YIELD]]
// after the loop: %r, the loop's result in the same array
// CHECK:        [[R:%"\.[0-9]+"]] = load float, ptr %{{.*}}, !dbg ![[FOR]]
// CHECK-NEXT:   store float [[R]], ptr %"r.dbg", !dbg ![[FOR]]
// CHECK:        store float [[R]], ptr %{{.*}}, !dbg ![[L25:[0-9]+]]
// CHECK:        ret void, !dbg ![[L26:[0-9]+]]
// CHECK-LABEL: define internal void @"k.mux-kernel-wrapper"

// CHECK-DAG:  ![[K:[0-9]+]] = distinct !DISubprogram({{.*}}line: 9, linkageName: "k", name: "k",
// CHECK-DAG:  !DILocalVariable({{.*}}name: "acc", scope: ![[K]], type: ![[F32:[0-9]+]])
// CHECK-DAG:  !DILocalVariable({{.*}}name: "r", scope: ![[K]], type: ![[F32]])
// CHECK-DAG:  !DILocalVariable({{.*}}name: "k", scope: ![[K]], type: ![[I64:[0-9]+]])
// CHECK-DAG:  !DILocalVariable({{.*}}name: "x", scope: ![[K]], type: ![[I64]])
// CHECK-DAG:  ![[F32]] = !DIBasicType(encoding: DW_ATE_float, name: "f32", size: 32)
// CHECK-DAG:  ![[L11]] = !DILocation(column: 3, line: 11, scope: ![[K]])
// CHECK-DAG:  ![[FOR]] = !DILocation(column: 3, line: 16, scope: ![[K]])
// CHECK-DAG:  ![[L17]] = !DILocation(column: 5, line: 17, scope: ![[K]])
// CHECK-DAG:  ![[B1]] = !DILocation(column: 5, line: 18, scope: ![[K]])
// CHECK-DAG:  ![[L19]] = !DILocation(column: 5, line: 19, scope: ![[K]])
// CHECK-DAG:  ![[L20]] = !DILocation(column: 5, line: 20, scope: ![[K]])
// CHECK-DAG:  ![[L21]] = !DILocation(column: 5, line: 21, scope: ![[K]])
// CHECK-DAG:  ![[B2]] = !DILocation(column: 5, line: 22, scope: ![[K]])
// CHECK-DAG:  ![[YIELD]] = !DILocation(column: 5, line: 23, scope: ![[K]])
// CHECK-DAG:  ![[L25]] = !DILocation(column: 3, line: 25, scope: ![[K]])
// CHECK-DAG:  ![[L26]] = !DILocation(column: 3, line: 26, scope: ![[K]])
