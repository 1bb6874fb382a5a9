// REQUIRES: host-runs-target
// RUN: xmux-run %s | filecheck %s
// examples/acc_sum.mlir in the LLVM 19 form, as mlir-opt-19 reads and prints it: the recipe named
// in the construct's clause, reduction(@add_f64 -> %red : memref<f64>), none on acc.reduction.
// CHECK: [18000.5]
module {
  acc.reduction.recipe @add_f64 : memref<f64> reduction_operator <add> init {
  ^bb0(%arg0: memref<f64>):
    %zero = arith.constant 0.000000e+00 : f64
    %p = memref.alloc() : memref<f64>
    memref.store %zero, %p[] : memref<f64>
    acc.yield %p : memref<f64>
  } combiner {
  ^bb0(%a: memref<f64>, %b: memref<f64>):
    %0 = memref.load %a[] : memref<f64>
    %1 = memref.load %b[] : memref<f64>
    %2 = arith.addf %0, %1 : f64
    memref.store %2, %a[] : memref<f64>
    acc.yield %a : memref<f64>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 4000 : index
    %c10 = arith.constant 10 : index
    %ng = arith.constant 8 : i32
    %nw = arith.constant 4 : i32
    %vl = arith.constant 32 : i32
    %half = arith.constant 5.000000e-01 : f64
    %x = memref.alloc(%n) : memref<?xf64>
    %sum = memref.alloc() : memref<f64>
    memref.store %half, %sum[] : memref<f64>
    scf.for %i = %c0 to %n step %c1 {
      %i1 = arith.remui %i, %c10 : index
      %ii = arith.index_cast %i1 : index to i64
      %f = arith.sitofp %ii : i64 to f64
      memref.store %f, %x[%i] : memref<?xf64>
    }
    %xin = acc.copyin varPtr(%x : memref<?xf64>) -> memref<?xf64> {name = "x"}
    %s = acc.copyin varPtr(%sum : memref<f64>) -> memref<f64> {dataClause = #acc<data_clause acc_copy>, name = "sum"}
    %red = acc.reduction varPtr(%s : memref<f64>) -> memref<f64> {name = "sum"}
    acc.parallel dataOperands(%xin, %s : memref<?xf64>, memref<f64>) num_gangs({%ng : i32}) num_workers(%nw : i32) vector_length(%vl : i32) {
      acc.loop gang worker vector reduction(@add_f64 -> %red : memref<f64>) control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
        %v = memref.load %xin[%i] : memref<?xf64>
        %acc = memref.load %red[] : memref<f64>
        %t = arith.addf %acc, %v : f64
        memref.store %t, %red[] : memref<f64>
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      acc.yield
    }
    acc.copyout accPtr(%s : memref<f64>) to varPtr(%sum : memref<f64>) {dataClause = #acc<data_clause acc_copy>, name = "sum"}
    %u = "memref.cast"(%sum) : (memref<f64>) -> memref<*xf64>
    func.call @printMemrefF64(%u) : (memref<*xf64>) -> ()
    memref.dealloc %x : memref<?xf64>
    memref.dealloc %sum : memref<f64>
    func.return
  }

  func.func private @printMemrefF64(memref<*xf64>)
}
