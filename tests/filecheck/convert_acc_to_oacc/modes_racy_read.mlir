// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// A single-mode read of shared memory that a neutered op writes (here a[0], written by
// worker 0 / lane 0 only) is varying: on a GPU the other positions run concurrently with
// position 0 and may read before its write, so the value the worker loop uses is
// broadcast from position 0 at the fork like a neutered op's result.

func.func @race(%a: memref<1xi32>, %b: memref<?xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ng = arith.constant 1 : i32
  %nw = arith.constant 32 : i32
  %vl = arith.constant 32 : i32
  %ain = acc.copyin varPtr(%a : memref<1xi32>) -> memref<1xi32> {dataClause = #acc<data_clause acc_copy>, name = "a"}
  %bin = acc.copyin varPtr(%b : memref<?xi32>) -> memref<?xi32> {dataClause = #acc<data_clause acc_copy>, name = "b"}
  acc.parallel dataOperands(%ain, %bin : memref<1xi32>, memref<?xi32>) num_gangs({%ng : i32}) num_workers(%nw : i32) vector_length(%vl : i32) {
    %old = memref.load %ain[%c0] : memref<1xi32>
    %one = arith.constant 1 : i32
    %new = arith.addi %old, %one : i32
    memref.store %new, %ain[%c0] : memref<1xi32>
    %v = memref.load %ain[%c0] : memref<1xi32>
    acc.loop worker vector control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      memref.store %v, %bin[%i] : memref<?xi32>
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  acc.copyout accPtr(%ain : memref<1xi32>) to varPtr(%a : memref<1xi32>) {dataClause = #acc<data_clause acc_copy>, name = "a"}
  acc.copyout accPtr(%bin : memref<?xi32>) to varPtr(%b : memref<?xi32>) {dataClause = #acc<data_clause acc_copy>, name = "b"}
  func.return
}

// CHECK:      scf.if %{{.*}} {
// CHECK-NEXT:   memref.store %new, %a[%c0] : memref<1xi32>
// CHECK-NEXT: }
// CHECK-NEXT: %v = memref.load %a[%c0] : memref<1xi32>
// CHECK:      scf.if %{{.*}} {
// CHECK-NEXT:   %[[BUF:.*]] = memref.get_global @__oacc_bcast_race_acc_parallel_0_i32 : memref<1xi32, 3 : i64>
// CHECK-NEXT:   %[[SLOT:.*]] = arith.constant 0 : index
// CHECK-NEXT:   memref.store %v, %[[BUF]][%[[SLOT]]] : memref<1xi32, 3 : i64>
// CHECK-NEXT: }
// CHECK-NEXT: oacc.fork worker
// CHECK-NEXT: %[[BUF2:.*]] = memref.get_global @__oacc_bcast_race_acc_parallel_0_i32 : memref<1xi32, 3 : i64>
// CHECK-NEXT: %[[SLOT2:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[V:.*]] = memref.load %[[BUF2]][%[[SLOT2]]] : memref<1xi32, 3 : i64>
// CHECK:      memref.store %[[V]], %b[%{{.*}}] : memref<?xi32>
