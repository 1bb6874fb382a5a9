// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// gang(static:N) deals chunks of N iterations to the gangs in turn (GCC's chunking): gang g
// runs chunks g, g + ng, ... (a loop from dim_pos gang to the chunk count by dim_size gang),
// each of min(N, n - start) iterations; static:* (-1, as flang writes it) is the default
// contiguous distribution.

func.func @h(%a: memref<100xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 100 : index
  %c7 = arith.constant 7 : i64
  %star = arith.constant -1 : i64
  %ng = arith.constant 10 : i32
  acc.parallel num_gangs({%ng : i32}) {
    acc.loop gang({static=%c7 : i64}) control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      %g = arith.index_cast %i : index to i32
      memref.store %g, %a[%i] : memref<100xi32>
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.loop gang({static=%star : i64}) control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      %g = arith.index_cast %i : index to i32
      memref.store %g, %a[%i] : memref<100xi32>
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}

// CHECK:      func.func @h_acc_parallel_0(
// CHECK:        oacc.fork gang
// CHECK:        %[[N:.*]] = arith.constant 100 : index
// CHECK-NEXT:   %[[SEVEN:.*]] = arith.constant 7 : index
// CHECK-NEXT:   %[[CHUNKS:.*]] = arith.constant 15 : index
// CHECK-NEXT:   %[[GP:.*]] = oacc.dim_pos gang : index
// CHECK-NEXT:   %[[GS:.*]] = oacc.dim_size gang : index
// CHECK-NEXT:   scf.for %[[C:.*]] = %[[GP]] to %[[CHUNKS]] step %[[GS]] {
// CHECK-NEXT:     %[[START:.*]] = arith.muli %[[C]], %[[SEVEN]] : index
// CHECK-NEXT:     %[[REST:.*]] = arith.subi %[[N]], %[[START]] : index
// CHECK-NEXT:     %[[LEN:.*]] = arith.minui %[[SEVEN]], %[[REST]] : index
// CHECK-NEXT:     scf.for %[[K:.*]] = %{{.*}} to %[[LEN]] step %{{.*}} {
// CHECK-NEXT:       %i = arith.addi %[[START]], %[[K]] : index
// CHECK:        oacc.join gang
// static:*: one contiguous chunk of ceil(n / ng) per gang
// CHECK:        oacc.fork gang
// CHECK:        oacc.dim_pos gang
// CHECK-NEXT:   oacc.dim_size gang
// CHECK-NEXT:   arith.subi
// CHECK-NEXT:   arith.addi
// CHECK-NEXT:   arith.divsi
// CHECK:        oacc.join gang
