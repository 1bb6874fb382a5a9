// OpenACC: reductions on the parallel construct itself (upstream MLIR's acc dialect as input).
//   #pragma acc parallel num_gangs(8) copy(s, p) reduction(+:s) reduction(*:p)
//   {
//     s += 5;  p *= 5;                      // gang-redundant: once per gang
//     #pragma acc loop gang reduction(+:s)
//     for (i = 0; i < 1000; i++) s += x[i];
//   }
// Each gang starts from the operator's identity and contributes its private copy once: s ends
// at s0 + 5 * 8 + sum(x), p at p0 * 5^8. The inner gang loop's reduction of s needs no
// builtins (the parallel's null outermost gang loop consumes it). x[i] = i mod 7, s0 = 1,
// p0 = 2; printed as [s, p] = [3038, 781250]
// (xmux-run --oacc-target=host runs one gang: [3003, 10]).
module {
  acc.reduction.recipe @add_f64 : memref<f64> reduction_operator <add> init {
  ^bb0(%arg0: memref<f64>):
    %zero = arith.constant 0.000000e+00 : f64
    %q = memref.alloc() : memref<f64>
    memref.store %zero, %q[] : memref<f64>
    acc.yield %q : memref<f64>
  } combiner {
  ^bb0(%a: memref<f64>, %b: memref<f64>):
    %0 = memref.load %a[] : memref<f64>
    %1 = memref.load %b[] : memref<f64>
    %2 = arith.addf %0, %1 : f64
    memref.store %2, %a[] : memref<f64>
    acc.yield %a : memref<f64>
  }
  acc.reduction.recipe @mul_f64 : memref<f64> reduction_operator <mul> init {
  ^bb0(%arg0: memref<f64>):
    %one = arith.constant 1.000000e+00 : f64
    %q = memref.alloc() : memref<f64>
    memref.store %one, %q[] : memref<f64>
    acc.yield %q : memref<f64>
  } combiner {
  ^bb0(%a: memref<f64>, %b: memref<f64>):
    %0 = memref.load %a[] : memref<f64>
    %1 = memref.load %b[] : memref<f64>
    %2 = arith.mulf %0, %1 : f64
    memref.store %2, %a[] : memref<f64>
    acc.yield %a : memref<f64>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %n = arith.constant 1000 : index
    %ng = arith.constant 8 : i32
    %one = arith.constant 1.000000e+00 : f64
    %two = arith.constant 2.000000e+00 : f64
    %five = arith.constant 5.000000e+00 : f64
    %x = memref.alloc(%n) : memref<?xf64>
    %s = memref.alloc() : memref<f64>
    %p = memref.alloc() : memref<f64>
    %out = memref.alloc() : memref<2xf64>
    memref.store %one, %s[] : memref<f64>
    memref.store %two, %p[] : memref<f64>
    scf.for %i = %c0 to %n step %c1 {
      %m = arith.remui %i, %c7 : index
      %mi = arith.index_cast %m : index to i64
      %f = arith.sitofp %mi : i64 to f64
      memref.store %f, %x[%i] : memref<?xf64>
    }
    %sc = acc.copyin varPtr(%s : memref<f64>) -> memref<f64> {dataClause = #acc<data_clause acc_copy>, name = "s"}
    %pc = acc.copyin varPtr(%p : memref<f64>) -> memref<f64> {dataClause = #acc<data_clause acc_copy>, name = "p"}
    %sr = acc.reduction varPtr(%sc : memref<f64>) recipe(@add_f64) -> memref<f64> {name = "s"}
    %pr = acc.reduction varPtr(%pc : memref<f64>) recipe(@mul_f64) -> memref<f64> {name = "p"}
    acc.parallel dataOperands(%sc, %pc : memref<f64>, memref<f64>) num_gangs({%ng : i32}) reduction(%sr, %pr : memref<f64>, memref<f64>) {
      %s0 = memref.load %sr[] : memref<f64>
      %s1 = arith.addf %s0, %five : f64
      memref.store %s1, %sr[] : memref<f64>
      %p0 = memref.load %pr[] : memref<f64>
      %p1 = arith.mulf %p0, %five : f64
      memref.store %p1, %pr[] : memref<f64>
      acc.loop gang reduction(%sr : memref<f64>) control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
        %v = memref.load %x[%i] : memref<?xf64>
        %a0 = memref.load %sr[] : memref<f64>
        %a1 = arith.addf %a0, %v : f64
        memref.store %a1, %sr[] : memref<f64>
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      acc.yield
    }
    acc.copyout accPtr(%sc : memref<f64>) to varPtr(%s : memref<f64>) {dataClause = #acc<data_clause acc_copy>, name = "s"}
    acc.copyout accPtr(%pc : memref<f64>) to varPtr(%p : memref<f64>) {dataClause = #acc<data_clause acc_copy>, name = "p"}
    %sv = memref.load %s[] : memref<f64>
    %pv = memref.load %p[] : memref<f64>
    memref.store %sv, %out[%c0] : memref<2xf64>
    memref.store %pv, %out[%c1] : memref<2xf64>
    %u = "memref.cast"(%out) : (memref<2xf64>) -> memref<*xf64>
    func.call @printMemrefF64(%u) : (memref<*xf64>) -> ()
    memref.dealloc %x : memref<?xf64>
    memref.dealloc %s : memref<f64>
    memref.dealloc %p : memref<f64>
    memref.dealloc %out : memref<2xf64>
    func.return
  }

  func.func private @printMemrefF64(memref<*xf64>)
}
