// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// Upstream's reduction operator enum has one max and one min; the recipe's combiner says
// whether they compare unsigned (arith.maxui / arith.minui: kinds umax / umin) or signed.

acc.reduction.recipe @umax_i32 : memref<i32> reduction_operator <max> init {
^bb0(%arg0: memref<i32>):
  %id = arith.constant 0 : i32
  %p = memref.alloca() : memref<i32>
  memref.store %id, %p[] : memref<i32>
  acc.yield %p : memref<i32>
} combiner {
^bb0(%x: memref<i32>, %y: memref<i32>):
  %0 = memref.load %x[] : memref<i32>
  %1 = memref.load %y[] : memref<i32>
  %2 = arith.maxui %0, %1 : i32
  memref.store %2, %x[] : memref<i32>
  acc.yield %x : memref<i32>
}
acc.reduction.recipe @umin_i32 : i32 reduction_operator <min> init {
^bb0(%arg0: i32):
  %id = arith.constant -1 : i32
  acc.yield %id : i32
} combiner {
^bb0(%x: i32, %y: i32):
  %0 = arith.minui %x, %y : i32
  acc.yield %0 : i32
}
acc.reduction.recipe @smax_i32 : i32 reduction_operator <max> init {
^bb0(%arg0: i32):
  %id = arith.constant -2147483648 : i32
  acc.yield %id : i32
} combiner {
^bb0(%x: i32, %y: i32):
  %0 = arith.maxsi %x, %y : i32
  acc.yield %0 : i32
}
func.func @h(%a: memref<i32>, %b: memref<i32>, %c: memref<i32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : i32
  %ra = acc.reduction varPtr(%a : memref<i32>) recipe(@umax_i32) -> memref<i32> {name = "a"}
  %rb = acc.reduction varPtr(%b : memref<i32>) recipe(@umin_i32) -> memref<i32> {name = "b"}
  %rc = acc.reduction varPtr(%c : memref<i32>) recipe(@smax_i32) -> memref<i32> {name = "c"}
  acc.parallel num_gangs({%c4 : i32}) {
    acc.loop gang reduction(%ra, %rb, %rc : memref<i32>, memref<i32>, memref<i32>)
        control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  func.return
}

// CHECK: oacc.reduction_setup gang umax %{{.*}} res(%a : memref<i32>) lid 0 rid 0 : i32
// CHECK: oacc.reduction_setup gang umin %{{.*}} res(%b : memref<i32>) lid 0 rid 1 : i32
// CHECK: oacc.reduction_setup gang max %{{.*}} res(%c : memref<i32>) lid 0 rid 2 : i32
// CHECK: oacc.reduction_fini gang umax
// CHECK: oacc.reduction_fini gang umin
// CHECK: oacc.reduction_fini gang max
