// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// A loop partitioned over all three levels: pos = (gang * nw + worker) * vl + vector,
// size = ng * nw * vl; forks outermost first, joins innermost first.

func.func @h(%x: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : i32
  %c4 = arith.constant 4 : i32
  %c32 = arith.constant 32 : i32
  acc.parallel num_gangs({%c8 : i32}) num_workers(%c4 : i32) vector_length(%c32 : i32) {
    acc.loop gang worker vector control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      %f = arith.constant 1.000000e+00 : f32
      memref.store %f, %x[%i] : memref<?xf32>
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}

// CHECK-LABEL: func.func @h_acc_parallel_0(%x: memref<?xf32>, %n: index)
// CHECK-SAME:      oacc.dims = array<i64: 8, 4, 32>, mux.reqd_work_group_size = array<i64: 32, 4, 1>
// CHECK:         oacc.fork gang
// CHECK-NEXT:    oacc.fork worker
// CHECK-NEXT:    oacc.fork vector
// CHECK:         %[[N:.*]] = arith.select
// CHECK-NEXT:    %[[GP:.*]] = oacc.dim_pos gang : index
// CHECK-NEXT:    %[[GS:.*]] = oacc.dim_size gang : index
// CHECK-NEXT:    %[[WP:.*]] = oacc.dim_pos worker : index
// CHECK-NEXT:    %[[WS:.*]] = oacc.dim_size worker : index
// CHECK-NEXT:    %[[T1:.*]] = arith.muli %[[GP]], %[[WS]] : index
// CHECK-NEXT:    %[[P1:.*]] = arith.addi %[[T1]], %[[WP]] : index
// CHECK-NEXT:    %[[S1:.*]] = arith.muli %[[GS]], %[[WS]] : index
// CHECK-NEXT:    %[[VP:.*]] = oacc.dim_pos vector : index
// CHECK-NEXT:    %[[VS:.*]] = oacc.dim_size vector : index
// CHECK-NEXT:    %[[T2:.*]] = arith.muli %[[P1]], %[[VS]] : index
// CHECK-NEXT:    %[[POS:.*]] = arith.addi %[[T2]], %[[VP]] : index
// CHECK-NEXT:    %[[SIZE:.*]] = arith.muli %[[S1]], %[[VS]] : index
// CHECK-NEXT:    %[[FULL:.*]] = arith.divui %[[N]], %[[SIZE]] : index
// CHECK-NEXT:    scf.for %[[R:.*]] = %{{.*}} to %[[FULL]] step %{{.*}} {
// CHECK-NEXT:      %[[A:.*]] = arith.muli %[[R]], %[[SIZE]] : index
// CHECK-NEXT:      %i = arith.addi %[[A]], %[[POS]] : index
// CHECK:         scf.if
// CHECK:         }
// CHECK-NEXT:    oacc.join vector
// CHECK-NEXT:    oacc.join worker
// CHECK-NEXT:    oacc.join gang
// CHECK-NEXT:    func.return

// The launch: 2-D, global = (ng * vl, nw), local = (vl, nw).
// CHECK-LABEL: func.func @h(
// CHECK:         %[[NG:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[NW:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[VL:.*]] = arith.constant 32 : index
// CHECK-NEXT:    %[[G:.*]] = arith.constant 256 : index
// CHECK-NEXT:    mux.launch @h_acc_parallel_0(%x, %n) global_size(%[[G]], %[[NW]]) local_size(%[[VL]], %[[NW]]) : (memref<?xf32>, index)
