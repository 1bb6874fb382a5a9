// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// A loop partitioned over all three levels: each gang takes a contiguous chunk of
// ceil(n / ng) iterations from gang * chunk; inside it (its body synchronizes nothing) each
// worker a contiguous chunk of ceil(m / (nw * vl)) whole vector rounds, and inside that the
// lanes take adjacent iterations in uniform-trip-count form (full rounds, guarded
// remainder); forks outermost first, joins innermost first.

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
// CHECK:         %[[CHUNK:.*]] = arith.select
// CHECK-NEXT:    %[[GSTART:.*]] = arith.muli %[[GP]], %[[CHUNK]] : index
// CHECK-NEXT:    %[[CL:.*]] = arith.minui %[[GSTART]], %[[N]] : index
// CHECK-NEXT:    %[[REST:.*]] = arith.subi %[[N]], %[[CL]] : index
// CHECK-NEXT:    %[[MINE:.*]] = arith.minui %[[REST]], %[[CHUNK]] : index
// CHECK-NEXT:    %[[VS0:.*]] = oacc.dim_size vector : index
// CHECK-NEXT:    %[[WS:.*]] = oacc.dim_size worker : index
// CHECK-NEXT:    %[[ROUND:.*]] = arith.muli %[[WS]], %[[VS0]] : index
// CHECK:         %[[NR:.*]] = arith.select
// CHECK-NEXT:    %[[WCHUNK:.*]] = arith.muli %[[NR]], %[[VS0]] : index
// CHECK-NEXT:    %[[WP:.*]] = oacc.dim_pos worker : index
// CHECK-NEXT:    %[[WSTART:.*]] = arith.muli %[[WP]], %[[WCHUNK]] : index
// CHECK-NEXT:    %[[WCL:.*]] = arith.minui %[[WSTART]], %[[MINE]] : index
// CHECK-NEXT:    %[[WREST:.*]] = arith.subi %[[MINE]], %[[WCL]] : index
// CHECK-NEXT:    %[[WMINE:.*]] = arith.minui %[[WREST]], %[[WCHUNK]] : index
// CHECK-NEXT:    %[[START:.*]] = arith.addi %[[GSTART]], %[[WSTART]] : index
// CHECK-NEXT:    %[[VP:.*]] = oacc.dim_pos vector : index
// CHECK-NEXT:    %[[VS:.*]] = oacc.dim_size vector : index
// CHECK-NEXT:    %[[FULL:.*]] = arith.divui %[[WMINE]], %[[VS]] : index
// CHECK-NEXT:    scf.for %[[R:.*]] = %{{.*}} to %[[FULL]] step %{{.*}} {
// CHECK-NEXT:      %[[A:.*]] = arith.muli %[[R]], %[[VS]] : index
// CHECK-NEXT:      %[[K:.*]] = arith.addi %[[A]], %[[VP]] : index
// CHECK-NEXT:      %i = arith.addi %[[START]], %[[K]] : index
// CHECK:         %[[A2:.*]] = arith.muli %[[FULL]], %[[VS]] : index
// CHECK-NEXT:    %[[K2:.*]] = arith.addi %[[A2]], %[[VP]] : index
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi ult, %[[K2]], %[[WMINE]] : index
// CHECK-NEXT:    %{{.*}} = arith.addi %[[START]], %[[K2]] : index
// CHECK-NEXT:    scf.if %[[OK]] {
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
