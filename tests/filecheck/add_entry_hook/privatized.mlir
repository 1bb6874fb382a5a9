// RUN: xmux-opt %s -p privatize-global-atomics,add-kernel-wrapper,add-entry-hook | filecheck %s

// A kernel with a privatized argument (privatize-global-atomics' variant @"k.mux-privatized"):
// the hook gets a wrapper calling the variant and, when the run-time conditions hold (the
// copy's span offset + (size-1)*stride + 1 within 64 KiB and the slice's work-items, no
// overlap with another global memref argument), runs the slice on a copy of the packed
// arguments whose descriptor of %bins points to a slice-local buffer filled with the
// identity; then adds each changed element into the array with one relaxed atomic.
// Otherwise it runs the groups through the original wrapper.

func.func @k(%d: memref<?xi8>, %bins: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %b = memref.load %d[%i] : memref<?xi8>
  %b32 = arith.extui %b : i8 to i32
  %bin = arith.index_cast %b32 : i32 to index
  %v = arith.constant -5 : i32
  %0 = memref.atomic_rmw maxs %v, %bins[%bin] : (i32, memref<?xi32>) -> i32
  func.return
}

// CHECK:      func.func @"k.mux-kernel-wrapper"(
// CHECK:        func.call @k(
// CHECK:      func.func @"k.mux-entry-hook"(%packed: !llvm.ptr, %sched_info: !llvm.ptr)
// CHECK:        %[[GROUPS:.*]] = arith.subi %end_group, %first_group : i64
// CHECK:        %[[LIMIT:.*]] = arith.constant 65536 : i64
// CHECK:        %[[OFF:.*]] = llvm.load {{.*}} : !llvm.ptr -> i64
// CHECK:        %[[SIZE:.*]] = llvm.load {{.*}} : !llvm.ptr -> i64
// CHECK:        %[[STRIDE:.*]] = llvm.load {{.*}} : !llvm.ptr -> i64
// CHECK:        %private_span1 = arith.addi
// CHECK:        arith.cmpi ule, %private_span1, %{{.*}} : i64
// the extents of %d and %bins do not overlap
// CHECK:        llvm.ptrtoint
// CHECK:        llvm.ptrtoint
// CHECK:        arith.cmpi ule
// CHECK:        %privatize = arith.andi
// CHECK-NEXT:   scf.if %privatize {
// CHECK:          %packed_private = llvm.alloca
// CHECK:          %private1 = llvm.alloca %{{.*}} x i8 {alignment = 64 : i64}
// CHECK:          llvm.getelementptr inbounds %packed_private[0, 1, 0]
// CHECK:          llvm.getelementptr inbounds %packed_private[0, 1, 1]
// CHECK:          %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK:          scf.for
// CHECK:            llvm.store %[[MIN]], %{{.*}} : i32, !llvm.ptr
// CHECK:          scf.for
// CHECK:            func.call @"k.mux-kernel-wrapper.mux-privatized"(%packed_private, %wi_info, %wg_info, %sched_info)
// CHECK:          scf.for
// CHECK:            %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK:            %[[NE:.*]] = arith.cmpi ne, %[[V]], %[[MIN]] : i32
// CHECK:            scf.if %[[NE]] {
// CHECK-NEXT:         %[[P:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:         llvm.atomicrmw max %[[P]], %[[V]] monotonic : !llvm.ptr, i32
// CHECK:        } else {
// CHECK:          scf.for
// CHECK:            func.call @"k.mux-kernel-wrapper"(%packed, %wi_info, %wg_info, %sched_info)
// CHECK:        func.return
// CHECK:      func.func @"k.mux-kernel-wrapper.mux-privatized"(
// CHECK-SAME:   mux.kernel = "sub_kernel"
// CHECK:        func.call @"k.mux-privatized"(
