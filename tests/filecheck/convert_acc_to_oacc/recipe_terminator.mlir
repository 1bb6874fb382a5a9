// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// (The same program with acc.terminator ending the recipes' copy / destroy regions, as
// upstream MLIR's own tests write them: xDSL 0.74's acc.terminator verifier refused it,
// dialects/xdsl_compat.py (acc_terminator_in_recipes) accepts it; the lowering is the same.)
// private: a per-work-item memref.alloca at the kernel entry; firstprivate: the same plus a
// copy of the original (at the entry for the construct's clause, at the clause's place for a
// loop's); the original is passed to the kernel only when copied.

acc.private.recipe @priv_i32 : memref<i32> init {
^bb0(%arg0: memref<i32>):
  %0 = memref.alloca() : memref<i32>
  acc.yield %0 : memref<i32>
} destroy {
^bb0(%arg0: memref<i32>):
  acc.terminator
}
acc.firstprivate.recipe @fp_f32 : memref<4xf32> init {
^bb0(%arg0: memref<4xf32>):
  %0 = memref.alloca() : memref<4xf32>
  acc.yield %0 : memref<4xf32>
} copy {
^bb0(%arg0: memref<4xf32>, %arg1: memref<4xf32>):
  "memref.copy"(%arg0, %arg1) : (memref<4xf32>, memref<4xf32>) -> ()
  acc.terminator
}
func.func @h(%t: memref<i32>, %w: memref<4xf32>, %s: memref<f32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = acc.private varPtr(%t : memref<i32>) recipe(@priv_i32) -> memref<i32> {name = "t"}
  %fp = acc.firstprivate varPtr(%w : memref<4xf32>) recipe(@fp_f32) -> memref<4xf32> {name = "w"}
  acc.parallel firstprivate(%fp : memref<4xf32>) private(%p : memref<i32>) {
    %fs = acc.firstprivate varPtr(%s : memref<f32>) -> memref<f32> {name = "s"}
    acc.loop vector firstprivate(%fs : memref<f32>) control(%i : index) = (%c0 : index) to (%c4 : index) step (%c1 : index) {
      %v = memref.load %fp[%i] : memref<4xf32>
      %k = memref.load %fs[] : memref<f32>
      %r = arith.mulf %v, %k : f32
      memref.store %r, %out[%i] : memref<?xf32>
      %ii = arith.index_cast %i : index to i32
      memref.store %ii, %p[] : memref<i32>
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}

// CHECK-LABEL: func.func @h_acc_parallel_0(%w: memref<4xf32>, %s: memref<f32>, %out: memref<?xf32>)
// CHECK-NEXT:    %[[FS:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT:    %[[P:.*]] = memref.alloca() : memref<i32>
// CHECK-NEXT:    %[[FP:.*]] = memref.alloca() : memref<4xf32>
// CHECK-NEXT:    memref.copy %w, %[[FP]] : memref<4xf32> to memref<4xf32>
// CHECK:         %[[SV:.*]] = memref.load %s[] : memref<f32>
// CHECK-NEXT:    memref.store %[[SV]], %[[FS]][] : memref<f32>
// CHECK-NEXT:    oacc.fork vector
// CHECK:         scf.for
// CHECK:           memref.load %[[FP]][%{{.*}}] : memref<4xf32>
// CHECK-NEXT:      memref.load %[[FS]][] : memref<f32>
// CHECK:           memref.store %{{.*}}, %[[P]][] : memref<i32>
// CHECK-LABEL: func.func @h(
// CHECK-NOT:     acc.
// CHECK:         mux.launch @h_acc_parallel_0(%w, %s, %out)
