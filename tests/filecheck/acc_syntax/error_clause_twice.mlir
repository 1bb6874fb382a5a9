// RUN: not xmux-opt %s 2>&1 | filecheck %s
// A clause given twice is an error naming the op and the clause.

func.func @f(%nw: i32) {
  acc.parallel num_workers(%nw : i32) num_workers(%nw : i32) {
    acc.yield
  }
  return
}

// CHECK: 'acc.parallel': clause 'num_workers' given twice
