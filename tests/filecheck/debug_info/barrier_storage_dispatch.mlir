// RUN: xmux-run --emit llvm --debug %s | filecheck %s

// Debug metadata through work-item-loops' region dispatch (a CFG body): the region after
// the barrier (@k.mux-region-1) reads %v, kept per work-item across the barrier, for the
// running work-item at its top (at the barrier's line), before line 18, which does not use
// it; %i and %l, re-computed, too. The store of %v to its array has %v's line.

func.func @k(%a: memref<?xf32>, %t: memref<8xf32, 3>, %n: index)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %a[%i] : memref<?xf32>
  cf.br ^bb1
^bb1:
  memref.store %v, %t[%l] : memref<8xf32, 3>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %nb = arith.xori %l, %c1 : index
  %w = memref.load %t[%nb] : memref<8xf32, 3>
  %s = arith.addf %v, %w : f32
  memref.store %s, %a[%i] : memref<?xf32>
  func.return
}

// up to the barrier: %v stored to its array at its line; the region ends at the barrier's
// CHECK-LABEL: define internal i32 @"k.mux-region-0"(
// CHECK:        [[V0:%"\.[0-9]+"]] = load float, ptr %{{.*}}, !dbg ![[V0L:[0-9]+]]
// CHECK-NEXT:   store float [[V0]], ptr %"v.dbg", !dbg ![[V0L]]
// CHECK:        store float [[V0]], ptr %{{.*}}, !dbg ![[V0L]]
// CHECK:        ret i32 1, !dbg ![[B0:[0-9]+]]
// after the barrier: %v read for the work-item at the barrier's line, before line 18
// CHECK-LABEL: define internal i32 @"k.mux-region-1"(
// CHECK:        [[V1:%"\.[0-9]+"]] = load float, ptr %{{.*}}, !dbg ![[B1:[0-9]+]]
// CHECK-NEXT:   store float [[V1]], ptr %"v.dbg", !dbg ![[B1]]
// CHECK:        store i64 %{{.*}}, ptr %"i.dbg", !dbg ![[I1:[0-9]+]]
// CHECK:        store i64 %{{.*}}, ptr %"nb.dbg", !dbg ![[NB:[0-9]+]]
// CHECK:        store float %{{.*}}, ptr %"v.dbg", !dbg ![[S:[0-9]+]]
// CHECK-NEXT:   fadd float
// CHECK:        ret i32 2, !dbg ![[RET:[0-9]+]]

// CHECK-DAG:  ![[R0:[0-9]+]] = distinct !DISubprogram({{.*}}name: "k.mux-region-0",
// CHECK-DAG:  ![[R1:[0-9]+]] = distinct !DISubprogram({{.*}}name: "k.mux-region-1",
// CHECK-DAG:  ![[V0L]] = !DILocation(column: 3, line: 13, scope: ![[R0]])
// CHECK-DAG:  ![[B0]] = !DILocation(column: 3, line: 17, scope: ![[R0]])
// CHECK-DAG:  ![[B1]] = !DILocation(column: 3, line: 17, scope: ![[R1]])
// CHECK-DAG:  ![[I1]] = !DILocation(column: 3, line: 10, scope: ![[R1]])
// CHECK-DAG:  ![[NB]] = !DILocation(column: 3, line: 18, scope: ![[R1]])
// CHECK-DAG:  ![[S]] = !DILocation(column: 3, line: 20, scope: ![[R1]])
// CHECK-DAG:  ![[RET]] = !DILocation(column: 3, line: 22, scope: ![[R1]])
// CHECK-DAG:  !DILocalVariable({{.*}}name: "v", scope: ![[R1]], type: ![[F32:[0-9]+]])
// CHECK-DAG:  ![[F32]] = !DIBasicType(encoding: DW_ATE_float, name: "f32", size: 32)
