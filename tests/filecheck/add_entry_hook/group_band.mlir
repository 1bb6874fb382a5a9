// RUN: xmux-opt %s -p 'add-entry-hook{group_band=8}' | filecheck %s
// RUN: xmux-opt %s -p 'add-entry-hook{group_band=0}' | filecheck %s --check-prefix=PLAIN
// RUN: not xmux-opt %s -p 'add-entry-hook{group_band=-1}' 2>&1 | filecheck %s --check-prefix=ERR

// group_band = W > 0: a kernel that sweeps memory (a loop, not a work-item loop, of unknown
// or more than 16 trips, loading at an address its induction variable moves) runs its (x, y)
// plane of groups in bands of W group columns, each band row after row (W groups along x,
// then the next y); the last band is min(W, ng0 - start) wide. The band constants are
// computed once, before the group loop. Kernels without a sweep (@short: 3 trips; @flat: no
// loop), 1-D kernels (@one_d: no mux.work_dims_used above 1; band order would be their
// order anyway) and group_band = 0 keep x-fastest order.

func.func @k(%B: memref<?x?xf32>, %n: index) attributes {mux.kernel = "sub_kernel", mux.work_dims_used = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %n step %c1 {
    %k2 = arith.addi %k, %c1 : index
    %b = memref.load %B[%k2, %c0] : memref<?x?xf32>
  }
  func.return
}
func.func @"k.mux-kernel-wrapper"(%packed: !llvm.ptr, %wi: !llvm.ptr, %wg: !llvm.ptr, %sc: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.base_name = "k", mux.orig_fn = @k, mux.scheduling_params} {
  func.return
}

func.func @short(%B: memref<?x?xf32>) attributes {mux.kernel = "sub_kernel", mux.work_dims_used = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %k = %c0 to %c3 step %c1 {
    %b = memref.load %B[%k, %c0] : memref<?x?xf32>
  }
  func.return
}
func.func @"short.mux-kernel-wrapper"(%packed: !llvm.ptr, %wi: !llvm.ptr, %wg: !llvm.ptr, %sc: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.base_name = "short", mux.orig_fn = @short, mux.scheduling_params} {
  func.return
}

func.func @one_d(%B: memref<?x?xf32>, %n: index) attributes {mux.kernel = "sub_kernel"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %n step %c1 {
    %b = memref.load %B[%k, %c0] : memref<?x?xf32>
  }
  func.return
}
func.func @"one_d.mux-kernel-wrapper"(%packed: !llvm.ptr, %wi: !llvm.ptr, %wg: !llvm.ptr, %sc: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.base_name = "one_d", mux.orig_fn = @one_d, mux.scheduling_params} {
  func.return
}

func.func @flat(%B: memref<?x?xf32>) attributes {mux.kernel = "sub_kernel"} {
  %c0 = arith.constant 0 : index
  %b = memref.load %B[%c0, %c0] : memref<?x?xf32>
  func.return
}
func.func @"flat.mux-kernel-wrapper"(%packed: !llvm.ptr, %wi: !llvm.ptr, %wg: !llvm.ptr, %sc: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.base_name = "flat", mux.orig_fn = @flat, mux.scheduling_params} {
  func.return
}

// CHECK-LABEL: func.func @"k.mux-entry-hook"
// CHECK:      %[[NG01:.*]] = arith.muli %num_groups0, %num_groups1 : i64
// CHECK:      %cancel_word = llvm.inttoptr
// CHECK-NEXT: %[[W:.*]] = arith.constant 8 : i64
// CHECK-NEXT: %band_groups = arith.muli %[[W]], %num_groups1 : i64
// CHECK:      scf.for %group =
// CHECK:        scf.if
// CHECK-NEXT:     %[[LIN:.*]] = arith.index_cast %group : index to i64
// CHECK-NEXT:     %group_id2 = arith.divui %[[LIN]], %[[NG01]] : i64
// CHECK-NEXT:     %[[R:.*]] = arith.remui %[[LIN]], %[[NG01]] : i64
// CHECK-NEXT:     %[[B:.*]] = arith.divui %[[R]], %band_groups : i64
// CHECK-NEXT:     %band_start = arith.muli %[[B]], %[[W]] : i64
// CHECK-NEXT:     %[[IN:.*]] = arith.remui %[[R]], %band_groups : i64
// CHECK-NEXT:     %[[LEFT:.*]] = arith.subi %num_groups0, %band_start : i64
// CHECK-NEXT:     %band_width = arith.minui %[[W]], %[[LEFT]] : i64
// CHECK-NEXT:     %[[X:.*]] = arith.remui %[[IN]], %band_width : i64
// CHECK-NEXT:     %group_id0 = arith.addi %band_start, %[[X]] : i64
// CHECK-NEXT:     %group_id1 = arith.divui %[[IN]], %band_width : i64
// CHECK-NEXT:     %{{.*}} = llvm.getelementptr inbounds %wg_info[0, 0]
// CHECK-NEXT:     llvm.store %group_id0
// CHECK-LABEL: func.func @"short.mux-entry-hook"
// CHECK-NOT:  band
// CHECK:      %group_id0 = arith.remui %{{.*}}, %num_groups0 : i64
// CHECK-LABEL: func.func @"one_d.mux-entry-hook"
// CHECK-NOT:  band
// CHECK:      %group_id0 = arith.remui %{{.*}}, %num_groups0 : i64
// CHECK-LABEL: func.func @"flat.mux-entry-hook"
// CHECK-NOT:  band
// CHECK:      %group_id0 = arith.remui %{{.*}}, %num_groups0 : i64
// CHECK-NOT:  band

// PLAIN-NOT:  band
// PLAIN:      %group_id0 = arith.remui %{{.*}}, %num_groups0 : i64
// PLAIN-NOT:  band

// ERR: error: add-entry-hook: group_band must be >= 0, got -1
