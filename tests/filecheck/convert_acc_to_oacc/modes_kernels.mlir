// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// acc.kernels: one kernel run by one gang (num_gangs ignored: GCC runs a kernels region's
// code outside parallelized loops gang-single); a loop with no level that is not marked
// independent (auto) stays sequential, an independent one gets GCC's levels (gang vector).

func.func @h(%a: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %ng = arith.constant 4 : i32
  %vl = arith.constant 8 : i32
  %one = arith.constant 1 : i32
  acc.kernels num_gangs({%ng : i32}) vector_length(%vl : i32) {
    acc.loop control(%i : index) = (%c1 : index) to (%c64 : index) step (%c1 : index) {
      %p = arith.subi %i, %c1 : index
      %x = memref.load %a[%p] : memref<64xi32>
      memref.store %x, %a[%i] : memref<64xi32>
      acc.yield
    } attributes {auto_ = [#acc.device_type<none>]}
    acc.loop control(%j : index) = (%c0 : index) to (%c64 : index) step (%c1 : index) {
      memref.store %one, %a[%j] : memref<64xi32>
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.terminator
  }
  return
}

// CHECK-LABEL: func.func @h_acc_kernels_0(%a: memref<64xi32>)
// CHECK-SAME:      oacc.dims = array<i64: 1, 1, 8>
// CHECK-NOT:     oacc.fork
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %x = memref.load %a[%p] : memref<64xi32>
// CHECK:           scf.if
// CHECK-NEXT:        memref.store %x, %a[%i] : memref<64xi32>
// CHECK:         oacc.fork gang
// CHECK-NEXT:    oacc.fork vector
// CHECK:         oacc.join vector
// CHECK-NEXT:    oacc.join gang
// CHECK-LABEL: func.func @h(
// CHECK:         mux.launch @h_acc_kernels_0(%a) global_size(%{{.*}}, %{{.*}}) local_size
