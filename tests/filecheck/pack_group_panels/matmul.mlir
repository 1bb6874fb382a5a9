// RUN: xmux-opt %s -p 'work-item-loops,work-item-loop-interchange,work-item-unroll-and-jam,pack-group-panels' | filecheck %s
// RUN: xmux-opt %s -p 'work-item-loops,work-item-loop-interchange,work-item-unroll-and-jam,pack-group-panels{pack_bytes=0}' | filecheck %s --check-prefix=OFF
// RUN: xmux-opt %s -p 'work-item-loops,work-item-loop-interchange,work-item-unroll-and-jam,pack-group-panels{pack_bytes=8192}' | filecheck %s --check-prefix=SMALL
// The copy loop's vectorization width is a vector register of the module's target:
// RUN: xmux-opt %s -p 'attach-target{chip=znver3 vector-bits=256 vector-registers=16},work-item-loops,work-item-loop-interchange,work-item-unroll-and-jam,pack-group-panels' | filecheck %s --check-prefix=AVX2

// The naive matmul with a known 16x16 local size: every block of rows reads the same panel
// B[k, col] of 16 columns. It is copied once, in front of the loop over rows, into a stack
// buffer of 256 KiB (4096 rows of 16 floats); k's trip count is not a constant, so the nest
// is versioned on the panel fitting. A (its row depends on y) is not packed.

// CHECK-LABEL: func.func @matmul
// CHECK:         %[[P:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4096x16xf32>
// CHECK:         %[[NK:.*]] = arith.index_cast %n : i32 to index
// CHECK:         %[[TRIPS:.*]] = arith.subi %[[NK]], %{{.*}} : index
// CHECK:         %[[CAP:.*]] = arith.constant 4096 : index
// CHECK:         %[[FITS:.*]] = arith.cmpi sle, %[[TRIPS]], %[[CAP]] : index
// CHECK:         scf.if %[[FITS]] {
// CHECK:           scf.for %[[K:.*]] = %{{.*}} to %[[NK]] step %{{.*}} {
// CHECK:             %[[KREL:.*]] = arith.subi %[[K]], %{{.*}} : index
// CHECK:             scf.for %[[X:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          mux.set_local_id 0, %[[X]] : index
// CHECK-NEXT:          %[[COL:.*]] = mux.get_global_id 0 : index
// CHECK-NEXT:          %[[V:.*]] = memref.load %B[%[[K]], %[[COL]]] : memref<?x?xf32>
// CHECK-NEXT:          memref.store %[[V]], %[[P]][%[[KREL]], %[[X]]] : memref<4096x16xf32>
// CHECK-NEXT:        } {mux.work_item_loop, xmux.loop_vectorize_width = 16 : i64}
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             scf.for %[[K2:k[_0-9]*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          %[[KREL2:.*]] = arith.subi %[[K2]], %{{.*}} : index
// CHECK-NEXT:          scf.for %[[X2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:                 memref.load %A[
// CHECK-NOT:             memref.load %B
// CHECK:                 %{{.*}} = memref.load %[[P]][%[[KREL2]], %[[X2]]] : memref<4096x16xf32>
// CHECK:           } {xmux.loop_vectorize_width = 1 : i64}
// CHECK-NEXT:    } else {
// CHECK:           memref.load %B[
// CHECK:           } {xmux.loop_vectorize_width = 1 : i64}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// OFF-LABEL: func.func @matmul
// OFF-NOT:     scf.if
// OFF:         memref.load %B[
// OFF-NOT:     memref.alloca() {alignment = 64 : i64} : memref<

// AVX2-LABEL: func.func @matmul
// AVX2:         memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<4096x16xf32>
// AVX2-NEXT:  } {mux.work_item_loop, xmux.loop_vectorize_width = 8 : i64}

// With 8 KiB, 128 rows fit: the buffer and the guard follow the option.
// SMALL:       memref.alloca() {alignment = 64 : i64} : memref<128x16xf32>
// SMALL:       arith.constant 128 : index
func.func @matmul(%n: i32, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 16, 1>} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nk = arith.index_cast %n : i32 to index
  %zero = arith.constant 0.0 : f32
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%s = %zero) -> (f32) {
    %a = memref.load %A[%row, %k] : memref<?x?xf32>
    %b = memref.load %B[%k, %col] : memref<?x?xf32>
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %C[%row, %col] : memref<?x?xf32>
  func.return
}
