// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// Fortran's .eqv. / .neqv. reductions (logicals: non-zero is true) become the oacc kinds
// eqv / neqv (identity true / false).

acc.reduction.recipe @eqv_i1 : i1 reduction_operator <eqv> init {
^bb0(%arg0: i1):
  %0 = arith.constant true
  acc.yield %0 : i1
} combiner {
^bb0(%x: i1, %y: i1):
  %0 = arith.cmpi eq, %x, %y : i1
  acc.yield %0 : i1
}
acc.reduction.recipe @neqv_i32 : i32 reduction_operator <neqv> init {
^bb0(%arg0: i32):
  %0 = arith.constant 0 : i32
  acc.yield %0 : i32
} combiner {
^bb0(%x: i32, %y: i32):
  %0 = arith.xori %x, %y : i32
  acc.yield %0 : i32
}
func.func @h(%s: memref<i1>, %t: memref<i32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : i32
  %r = acc.reduction varPtr(%s : memref<i1>) recipe(@eqv_i1) -> memref<i1> {name = "flag"}
  %q = acc.reduction varPtr(%t : memref<i32>) recipe(@neqv_i32) -> memref<i32> {name = "odd"}
  acc.parallel num_gangs({%c4 : i32}) {
    acc.loop gang reduction(%r, %q : memref<i1>, memref<i32>)
        control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}
// CHECK: oacc.reduction_setup gang eqv %{{.*}} res(%s : memref<i1>)
// CHECK: oacc.reduction_setup gang neqv %{{.*}} res(%t : memref<i32>)
// CHECK: oacc.reduction_fini gang eqv
// CHECK: oacc.reduction_fini gang neqv
