// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// Gang- and worker-private variables that finer partitioned code writes live in work-group
// local memory (private_storage.py): %c (private of the construct, written by a worker
// loop) is a memref.global in memory space 3; %f (firstprivate, written by a worker loop)
// too, initialised by work-item (0, 0) and followed by a barrier (an empty fork/join pair);
// %w (private of a worker loop, written by a vector loop) is a row per worker of a byte
// buffer; %r (private of the construct, written only in gang-redundant code) and %x (a
// scalar, written by the worker loop: a register in GCC) stay per-work-item allocations.

acc.private.recipe @priv_f64 : memref<f64> init {
^bb0(%arg0: memref<f64>):
  %0 = memref.alloca() : memref<f64>
  acc.yield %0 : memref<f64>
}
acc.private.recipe @priv_4xf64 : memref<4xf64> init {
^bb0(%arg0: memref<4xf64>):
  %0 = memref.alloca() : memref<4xf64>
  acc.yield %0 : memref<4xf64>
}
acc.firstprivate.recipe @fpriv_4xf64 : memref<4xf64> init {
^bb0(%arg0: memref<4xf64>):
  %0 = memref.alloca() : memref<4xf64>
  acc.yield %0 : memref<4xf64>
} copy {
^bb0(%a: memref<4xf64>, %b: memref<4xf64>):
  memref.copy %a, %b : memref<4xf64> to memref<4xf64>
  acc.terminator
}
func.func @h(%t: memref<4xf64>, %u: memref<4xf64>, %tw: memref<4xf64>, %tr: memref<4xf64>,
             %d: memref<8xf64>, %tx: memref<f64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ng = arith.constant 2 : i32
  %nw = arith.constant 2 : i32
  %vl = arith.constant 4 : i32
  %one = arith.constant 1.0 : f64
  %c = acc.private varPtr(%t : memref<4xf64>) recipe(@priv_4xf64) -> memref<4xf64> {name = "c"}
  %f = acc.firstprivate varPtr(%u : memref<4xf64>) recipe(@fpriv_4xf64) -> memref<4xf64> {name = "f"}
  %w = acc.private varPtr(%tw : memref<4xf64>) recipe(@priv_4xf64) -> memref<4xf64> {name = "w"}
  %r = acc.private varPtr(%tr : memref<4xf64>) recipe(@priv_4xf64) -> memref<4xf64> {name = "r"}
  %x = acc.private varPtr(%tx : memref<f64>) recipe(@priv_f64) -> memref<f64> {name = "x"}
  %dc = acc.copyin varPtr(%d : memref<8xf64>) -> memref<8xf64> {dataClause = #acc<data_clause acc_copy>, name = "d"}
  acc.parallel num_gangs({%ng : i32}) num_workers(%nw : i32) vector_length(%vl : i32) dataOperands(%dc : memref<8xf64>) firstprivate(%f : memref<4xf64>) private(%c, %r, %x : memref<4xf64>, memref<4xf64>, memref<f64>) {
    memref.store %one, %r[%c0] : memref<4xf64>
    acc.loop worker control(%y : index) = (%c0 : index) to (%c4 : index) step (%c1 : index) {
      memref.store %one, %c[%y] : memref<4xf64>
      memref.store %one, %f[%y] : memref<4xf64>
      memref.store %one, %x[] : memref<f64>
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    %s = memref.load %c[%c1] : memref<4xf64>
    memref.store %s, %dc[%c0] : memref<8xf64>
    acc.loop worker private(%w : memref<4xf64>) control(%j : index) = (%c0 : index) to (%c4 : index) step (%c1 : index) {
      acc.loop vector control(%k : index) = (%c0 : index) to (%c4 : index) step (%c1 : index) {
        memref.store %one, %w[%k] : memref<4xf64>
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      %xw = memref.load %w[%c1] : memref<4xf64>
      memref.store %xw, %dc[%j] : memref<8xf64>
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}

// CHECK:      memref.global "private" @__oacc_private_h_acc_parallel_0_w : memref<64xi8, 3 : i64> = uninitialized {alignment = 64 : i64}
// CHECK-NEXT: memref.global "private" @__oacc_private_h_acc_parallel_0_c : memref<4xf64, 3 : i64> = uninitialized {alignment = 64 : i64}
// CHECK-NEXT: memref.global "private" @__oacc_private_h_acc_parallel_0_f : memref<4xf64, 3 : i64> = uninitialized {alignment = 64 : i64}
// CHECK-LABEL: func.func @h_acc_parallel_0(%u: memref<4xf64>, %d: memref<8xf64>)
// CHECK-NEXT:   %x = memref.alloca() : memref<f64>
// CHECK-NEXT:   %r = memref.alloca() : memref<4xf64>
// CHECK-NEXT:   %[[WG:.*]] = memref.get_global @__oacc_private_h_acc_parallel_0_w : memref<64xi8, 3 : i64>
// CHECK-NEXT:   %[[WP:.*]] = oacc.dim_pos worker : index
// CHECK-NEXT:   %[[ROW:.*]] = arith.constant 32 : index
// CHECK-NEXT:   %[[OFF:.*]] = arith.muli %[[WP]], %[[ROW]] : index
// CHECK-NEXT:   %w = memref.view %[[WG]][%[[OFF]]][] : memref<64xi8, 3 : i64> to memref<4xf64, 3 : i64>
// CHECK-NEXT:   %c = memref.get_global @__oacc_private_h_acc_parallel_0_c : memref<4xf64, 3 : i64>
// CHECK-NEXT:   %f = memref.get_global @__oacc_private_h_acc_parallel_0_f : memref<4xf64, 3 : i64>
// CHECK:        scf.if %{{.*}} {
// CHECK-NEXT:     memref.copy %u, %f : memref<4xf64> to memref<4xf64, 3 : i64>
// CHECK-NEXT:   }{oacc.single_init}
// CHECK-NEXT:   oacc.fork worker
// CHECK-NEXT:   oacc.join worker
// the gang-redundant store to %r: every work-item (into its own copy)
// CHECK:        memref.store %one, %r[%c0] : memref<4xf64>
// CHECK-NEXT:   oacc.fork worker
// CHECK:        scf.for
// the worker loop's stores (vector-single: lane 0 of each worker)
// CHECK:            memref.store %one, %c[%y] : memref<4xf64, 3 : i64>
// CHECK:            memref.store %one, %f[%y] : memref<4xf64, 3 : i64>
// CHECK:          memref.store %one, %x[] : memref<f64>
// CHECK:        oacc.join worker
// CHECK-NEXT:   %s = memref.load %c[%c1] : memref<4xf64, 3 : i64>
// CHECK:        oacc.fork vector
// CHECK:          memref.store %one, %w[%k] : memref<4xf64, 3 : i64>
// CHECK:        oacc.join vector
// CHECK-NEXT:   %xw = memref.load %w[%c1] : memref<4xf64, 3 : i64>
