// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// The reduction follows its recipe: a recipe that is not its operator's standard one (here
// <add> with a multiplying combiner) becomes an oacc.reduction_recipe of the element type,
// named by every builtin; a standard one (the array add) names none. An array reduction is
// reduced element by element: one rid per element, RES_PTR a rank-0 view of the element.

acc.reduction.recipe @prod : memref<i32> reduction_operator <add> init {
^bb0(%arg0: memref<i32>):
  %one = arith.constant 1 : i32
  %p = memref.alloca() : memref<i32>
  memref.store %one, %p[] : memref<i32>
  acc.yield %p : memref<i32>
} combiner {
^bb0(%a: memref<i32>, %b: memref<i32>):
  %x = memref.load %a[] : memref<i32>
  %y = memref.load %b[] : memref<i32>
  %r = arith.muli %x, %y : i32
  memref.store %r, %a[] : memref<i32>
  acc.terminator
}
acc.reduction.recipe @asum : memref<2xf32> reduction_operator <add> init {
^bb0(%arg0: memref<2xf32>):
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %arg0, %c0 : memref<2xf32>
  %p = memref.alloca() : memref<2xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %z, %p[%i] : memref<2xf32>
  }
  acc.yield %p : memref<2xf32>
} combiner {
^bb0(%a: memref<2xf32>, %b: memref<2xf32>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<2xf32>
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<2xf32>
    %y = memref.load %b[%i] : memref<2xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %a[%i] : memref<2xf32>
  }
  acc.yield %a : memref<2xf32>
}
func.func @h(%x: memref<64xi32>, %r: memref<i32>, %arr: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 64 : index
  %s = acc.copyin varPtr(%r : memref<i32>) -> memref<i32> {dataClause = #acc<data_clause acc_copy>, name = "r"}
  %t = acc.copyin varPtr(%arr : memref<2xf32>) -> memref<2xf32> {dataClause = #acc<data_clause acc_copy>, name = "arr"}
  %red = acc.reduction varPtr(%s : memref<i32>) recipe(@prod) -> memref<i32> {name = "r"}
  %ared = acc.reduction varPtr(%t : memref<2xf32>) recipe(@asum) -> memref<2xf32> {name = "arr"}
  acc.parallel dataOperands(%s, %t : memref<i32>, memref<2xf32>) {
    acc.loop gang reduction(%red, %ared : memref<i32>, memref<2xf32>) control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      %v = memref.load %x[%i] : memref<64xi32>
      %acc = memref.load %red[] : memref<i32>
      %p = arith.muli %acc, %v : i32
      memref.store %p, %red[] : memref<i32>
      %vf = arith.sitofp %v : i32 to f32
      %e = memref.load %ared[%c1] : memref<2xf32>
      %f = arith.addf %e, %vf : f32
      memref.store %f, %ared[%c1] : memref<2xf32>
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}

// CHECK:      oacc.reduction_recipe @prod : i32 init {
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   oacc.yield %[[ONE]] : i32
// CHECK-NEXT: } combiner {
// CHECK-NEXT: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32):
// CHECK-NEXT:   %[[M:.*]] = arith.muli %[[X]], %[[Y]] : i32
// CHECK-NEXT:   oacc.yield %[[M]] : i32
// CHECK-NEXT: }
// CHECK-NOT:  oacc.reduction_recipe
// CHECK:      func.func @h_acc_parallel_0(%x: memref<64xi32>, %[[R:.*]]: memref<i32>, %arr: memref<2xf32>)
// CHECK:        %[[ALOCAL:.*]] = memref.alloca() : memref<2xf32>
// CHECK:        %[[RLOCAL:.*]] = memref.alloca() : memref<i32>
// CHECK:        %[[R0:.*]] = memref.load %[[R]][] : memref<i32>
// CHECK:        %[[E0:.*]] = memref.load %arr[%{{.*}}] : memref<2xf32>
// CHECK-NEXT:   %[[V0:.*]] = memref.subview %arr[0] [1] [1] : memref<2xf32> to memref<f32, strided<[]>>
// CHECK:        %[[E1:.*]] = memref.load %arr[%{{.*}}] : memref<2xf32>
// CHECK-NEXT:   %[[V1:.*]] = memref.subview %arr[1] [1] [1] : memref<2xf32> to memref<f32, strided<[], offset: 1>>
// CHECK:        oacc.reduction_setup gang add %[[R0]] res(%[[R]] : memref<i32>) recipe @prod lid 0 rid 0 : i32
// CHECK-NEXT:   oacc.reduction_setup gang add %[[E0]] res(%[[V0]] : memref<f32, strided<[]>>) lid 0 rid 1 : f32
// CHECK-NEXT:   oacc.reduction_setup gang add %[[E1]] res(%[[V1]] : memref<f32, strided<[], offset: 1>>) lid 0 rid 2 : f32
// CHECK:        memref.load %[[ALOCAL]][%{{.*}}] : memref<2xf32>
// CHECK:        oacc.reduction_fini gang add %{{.*}} res(%[[R]] : memref<i32>) recipe @prod lid 0 rid 0 : i32
// CHECK-NEXT:   oacc.reduction_fini gang add %{{.*}} res(%[[V0]] : memref<f32, strided<[]>>) lid 0 rid 1 : f32
// CHECK-NEXT:   oacc.reduction_fini gang add %{{.*}} res(%[[V1]] : memref<f32, strided<[], offset: 1>>) lid 0 rid 2 : f32
