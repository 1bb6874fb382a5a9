// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// acc.atomic.* in a compute region: an update LLVM has as one operation is an atomicrmw on
// the element's address (the memref's aligned pointer + its offset); any other update is a
// cmpxchg loop around the region's ops; capture read + update keeps the old value, read +
// write is an exchange; a read is an atomicrmw or 0; if(cond) puts it all under scf.if.

func.func @h(%x: memref<i32>, %f: memref<f32>, %v: memref<i32>, %e: i32, %c: i1) {
  acc.serial {
    acc.atomic.update %x : memref<i32> {
    ^bb0(%cur: i32):
      %new = arith.addi %e, %cur : i32
      acc.yield %new : i32
    }
    acc.atomic.update %f : memref<f32> {
    ^bb0(%cur: f32):
      %two = arith.constant 2.0 : f32
      %new = arith.mulf %cur, %two : f32
      acc.yield %new : f32
    }
    acc.atomic.capture {
      acc.atomic.read %v = %x : memref<i32>, memref<i32>, i32
      acc.atomic.write %x = %e : memref<i32>, i32
      acc.terminator
    }
    acc.atomic.read %v = %x : memref<i32>, memref<i32>, i32
    acc.atomic.write if(%c) %x = %e : memref<i32>, i32
    acc.yield
  }
  return
}

// CHECK:      func.func @h_acc_serial_0(%x: memref<i32>, %f: memref<f32>, %v: memref<i32>, %e: i32, %c: i1)
// CHECK:        %{{.*}}, %[[OFF:.*]] = memref.extract_strided_metadata %x : memref<i32> -> memref<i32>, index
// CHECK-NEXT:   %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %x :
// CHECK-NEXT:   %[[B64:.*]] = arith.index_cast %[[BASE]] : index to i64
// CHECK-NEXT:   %[[P:.*]] = llvm.inttoptr %[[B64]] : i64 to !llvm.ptr
// CHECK-NEXT:   %[[O64:.*]] = arith.index_cast %[[OFF]] : index to i64
// CHECK-NEXT:   %[[EP:.*]] = llvm.getelementptr %[[P]][%[[O64]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:   %{{.*}} = llvm.atomicrmw add %[[EP]], %e acq_rel : !llvm.ptr, i32
// the float multiply: a cmpxchg loop on the bits
// CHECK:        %[[FP:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:   %[[L:.*]] = llvm.load %[[FP]] : !llvm.ptr -> i32
// CHECK-NEXT:   %[[START:.*]] = arith.bitcast %[[L]] : i32 to f32
// CHECK-NEXT:   %{{.*}}, %{{.*}} = scf.while (%[[CUR:.*]] = %[[START]]) : (f32) -> (f32, f32) {
// CHECK:          %[[NEW:.*]] = arith.mulf %[[CUR]], %{{.*}} : f32
// CHECK:          %{{.*}} = llvm.cmpxchg %[[FP]], %{{.*}}, %{{.*}} acq_rel monotonic : !llvm.ptr, i32
// CHECK:          scf.condition(%{{.*}}) %{{.*}}, %[[NEW]] : f32, f32
// capture read + write: the exchanged value goes to v
// CHECK:        %[[OLD:.*]] = llvm.atomicrmw xchg %{{.*}}, %e acq_rel : !llvm.ptr, i32
// CHECK-NEXT:   memref.store %[[OLD]], %v[] : memref<i32>
// read
// CHECK:        %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %[[R:.*]] = llvm.atomicrmw or %{{.*}}, %[[Z]] acq_rel : !llvm.ptr, i32
// CHECK-NEXT:   memref.store %[[R]], %v[] : memref<i32>
// if(cond): under scf.if
// CHECK-NEXT:   scf.if %c {
// CHECK:          llvm.atomicrmw xchg %{{.*}}, %e acq_rel : !llvm.ptr, i32
// CHECK-NEXT:   }
// CHECK-NOT:    acc.atomic
