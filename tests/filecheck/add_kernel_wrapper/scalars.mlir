// RUN: xmux-opt %s -p add-kernel-wrapper | filecheck %s

// Scalars of every width: i1 travels as i8 (trunci back), index as i64 (index_cast back),
// everything else is loaded as it is. The packed struct is the lowered types in order.

func.func @k(%f: i1, %b: i8, %s: i16, %w: i32, %q: i64, %n: index, %h: f16, %x: f32, %d: f64, %v: vector<4xf32>, %wi: !llvm.ptr, %wg: !llvm.ptr, %sc: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.scheduling_params} {
  func.return
}

// CHECK:      func.func @k(%f: i1, %b: i8, {{.*}}, %sc: !llvm.ptr) attributes {mux.kernel = "sub_kernel", mux.scheduling_params} {
// CHECK:      func.func @"k.mux-kernel-wrapper"(%packed: !llvm.ptr, %wi_info: !llvm.ptr, %wg_info: !llvm.ptr, %sched_info: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.base_name = "k", mux.orig_fn = @k, mux.scheduling_params} {
// CHECK-NEXT:   %0 = llvm.getelementptr inbounds %packed[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i8, i8, i16, i32, i64, i64, f16, f32, f64, vector<4xf32>)>
// CHECK-NEXT:   %1 = llvm.load %0 : !llvm.ptr -> i8
// CHECK-NEXT:   %2 = arith.trunci %1 : i8 to i1
// CHECK-NEXT:   %3 = llvm.getelementptr inbounds %packed[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i8, i8, i16, i32, i64, i64, f16, f32, f64, vector<4xf32>)>
// CHECK-NEXT:   %4 = llvm.load %3 : !llvm.ptr -> i8
// CHECK-NEXT:   %5 = llvm.getelementptr inbounds %packed[0, 2] : {{.*}}
// CHECK-NEXT:   %6 = llvm.load %5 : !llvm.ptr -> i16
// CHECK-NEXT:   %7 = llvm.getelementptr inbounds %packed[0, 3] : {{.*}}
// CHECK-NEXT:   %8 = llvm.load %7 : !llvm.ptr -> i32
// CHECK-NEXT:   %9 = llvm.getelementptr inbounds %packed[0, 4] : {{.*}}
// CHECK-NEXT:   %10 = llvm.load %9 : !llvm.ptr -> i64
// CHECK-NEXT:   %11 = llvm.getelementptr inbounds %packed[0, 5] : {{.*}}
// CHECK-NEXT:   %12 = llvm.load %11 : !llvm.ptr -> i64
// CHECK-NEXT:   %13 = arith.index_cast %12 : i64 to index
// CHECK-NEXT:   %14 = llvm.getelementptr inbounds %packed[0, 6] : {{.*}}
// CHECK-NEXT:   %15 = llvm.load %14 : !llvm.ptr -> f16
// CHECK-NEXT:   %16 = llvm.getelementptr inbounds %packed[0, 7] : {{.*}}
// CHECK-NEXT:   %17 = llvm.load %16 : !llvm.ptr -> f32
// CHECK-NEXT:   %18 = llvm.getelementptr inbounds %packed[0, 8] : {{.*}}
// CHECK-NEXT:   %19 = llvm.load %18 : !llvm.ptr -> f64
// CHECK-NEXT:   %20 = llvm.getelementptr inbounds %packed[0, 9] : {{.*}}
// CHECK-NEXT:   %21 = llvm.load %20 : !llvm.ptr -> vector<4xf32>
// CHECK-NEXT:   func.call @k(%2, %4, %6, %8, %10, %13, %15, %17, %19, %21, %wi_info, %wg_info, %sched_info) : (i1, i8, i16, i32, i64, index, f16, f32, f64, vector<4xf32>, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
