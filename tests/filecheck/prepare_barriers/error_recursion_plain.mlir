// RUN: not xmux-opt %s -p prepare-barriers 2>&1 | filecheck %s

// Recursion without barriers is rejected too: OpenCL C forbids it, and deep recursion
// would overflow a worker thread's stack.

func.func private @fact(%n: i64) -> i64 {
  %c1 = arith.constant 1 : i64
  %le = arith.cmpi sle, %n, %c1 : i64
  %r = scf.if %le -> (i64) {
    scf.yield %c1 : i64
  } else {
    %m = arith.subi %n, %c1 : i64
    %f = func.call @fact(%m) : (i64) -> i64
    %p = arith.muli %n, %f : i64
    scf.yield %p : i64
  }
  func.return %r : i64
}

func.func @k(%a: memref<?xi64>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %n = arith.index_cast %i : index to i64
  %f = func.call @fact(%n) : (i64) -> i64
  memref.store %f, %a[%i] : memref<?xi64>
  func.return
}

// CHECK: error: prepare-barriers: recursion in kernel @k: @fact -> @fact (OpenCL C forbids recursion in kernel code)
