// RUN: xmux-run --emit llvm --debug %s | filecheck %s

// A debug build of a kernel with a barrier inside a loop: each op's line and column reach
// the LLVM IR through work-item-loops and the lowering as DILocations in the kernel's
// DISubprogram; arguments and named values are DILocalVariables in stack slots. The ops
// work-item-loops rebuilds keep their lines too: the scf.for (17), the barriers (19, 22),
// the scf.yield (23, the loop's latch); %acc, kept per work-item across the barriers, is
// a variable read from its storage for each work-item (barrier_storage.mlir has more).

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
    %w = memref.load %t[%k] : memref<8xf32, 3>
    %acc2 = arith.addf %acc, %w : f32
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.yield %acc2 : f32
  }
  memref.store %r, %a[%i] : memref<?xf32>
  func.return
}

// CHECK:      define internal void @"k"({{.*}}) !dbg ![[K:[0-9]+]]
// CHECK:        call void @"llvm.dbg.declare"(metadata ptr %"a.dbg", metadata ![[A:[0-9]+]], metadata !DIExpression())
// CHECK:        call void @"llvm.dbg.declare"(metadata ptr %"w.dbg", metadata ![[W:[0-9]+]], metadata !DIExpression())
// CHECK:        store ptr %".4", ptr %"wi_info.dbg", !dbg
// CHECK:        store float %{{.*}}, ptr %"w.dbg", !dbg ![[L20:[0-9]+]]
// CHECK:      define internal void @"k.mux-kernel-wrapper"({{.*}}) !dbg ![[WRAP:[0-9]+]]
// CHECK:      define void @"k.mux-entry-hook"({{.*}}) !dbg ![[HOOK:[0-9]+]]

// CHECK-DAG:  !llvm.dbg.cu = !{ ![[CU:[0-9]+]] }
// CHECK-DAG:  ![[FILE:[0-9]+]] = !DIFile(directory: "{{.*}}", filename: "barrier_in_loop.mlir")
// CHECK-DAG:  ![[CU]] = distinct !DICompileUnit({{.*}}file: ![[FILE]], {{.*}}language: DW_LANG_C99, producer: "xmux"
// CHECK-DAG:  ![[K]] = distinct !DISubprogram(file: ![[FILE]], line: 10, linkageName: "k", name: "k", {{.*}}spFlags: DISPFlagDefinition | DISPFlagLocalToUnit
// CHECK-DAG:  ![[WRAP]] = distinct !DISubprogram({{.*}}name: "k.mux-kernel-wrapper"
// CHECK-DAG:  ![[HOOK]] = distinct !DISubprogram({{.*}}name: "k.mux-entry-hook", {{.*}}spFlags: DISPFlagDefinition,
// CHECK-DAG:  ![[A]] = !DILocalVariable(arg: 1, file: ![[FILE]], line: 10, name: "a", scope: ![[K]], type: ![[MEMREF:[0-9]+]])
// CHECK-DAG:  ![[MEMREF]] = !DICompositeType(elements: !{{[0-9]+}}, name: "memref", size: 320, tag: DW_TAG_structure_type)
// CHECK-DAG:  !DILocalVariable(arg: 2, file: ![[FILE]], line: 10, name: "t", scope: ![[K]]
// CHECK-DAG:  !DILocalVariable(arg: 3, file: ![[FILE]], line: 10, name: "n", scope: ![[K]], type: ![[I64:[0-9]+]])
// CHECK-DAG:  ![[I64]] = !DIBasicType(encoding: DW_ATE_signed, name: "i64", size: 64)
// CHECK-DAG:  ![[W]] = !DILocalVariable(file: ![[FILE]], line: 10, name: "w", scope: ![[K]], type: ![[F32:[0-9]+]])
// CHECK-DAG:  ![[F32]] = !DIBasicType(encoding: DW_ATE_float, name: "f32", size: 32)
// CHECK-DAG:  ![[L20]] = !DILocation(column: 5, line: 20, scope: ![[K]])
// CHECK-DAG:  !DILocation(column: 3, line: 12, scope: ![[K]])
// CHECK-DAG:  !DILocation(column: 3, line: 13, scope: ![[K]])
// CHECK-DAG:  !DILocation(column: 3, line: 14, scope: ![[K]])
// CHECK-DAG:  !DILocation(column: 3, line: 15, scope: ![[K]])
// CHECK-DAG:  !DILocation(column: 3, line: 16, scope: ![[K]])
// CHECK-DAG:  !DILocation(column: 5, line: 18, scope: ![[K]])
// CHECK-DAG:  !DILocation(column: 5, line: 21, scope: ![[K]])
// CHECK-DAG:  !DILocation(column: 3, line: 17, scope: ![[K]])
// CHECK-DAG:  !DILocation(column: 5, line: 19, scope: ![[K]])
// CHECK-DAG:  !DILocation(column: 5, line: 22, scope: ![[K]])
// CHECK-DAG:  !DILocation(column: 5, line: 23, scope: ![[K]])
// CHECK-DAG:  !DILocalVariable(file: ![[FILE]], line: 10, name: "acc", scope: ![[K]], type: ![[F32]])
// CHECK-DAG:  !DILocation(column: 3, line: 25, scope: ![[K]])
// CHECK-DAG:  !DILocation(column: 3, line: 26, scope: ![[K]])
