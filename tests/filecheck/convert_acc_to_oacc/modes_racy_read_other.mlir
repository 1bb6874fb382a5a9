// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// A single-mode read of shared memory that no neutered op writes stays uniform: worker 0 /
// lane 0 writes a[0], every work-item reads c[0] (another copy object) and the worker loop
// uses it directly, without a broadcast.

func.func @race(%a: memref<1xi32>, %b: memref<?xi32>, %c: memref<1xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ng = arith.constant 1 : i32
  %nw = arith.constant 32 : i32
  %vl = arith.constant 32 : i32
  %ain = acc.copyin varPtr(%a : memref<1xi32>) -> memref<1xi32> {dataClause = #acc<data_clause acc_copy>, name = "a"}
  %cin = acc.copyin varPtr(%c : memref<1xi32>) -> memref<1xi32> {name = "c"}
  %bin = acc.copyin varPtr(%b : memref<?xi32>) -> memref<?xi32> {dataClause = #acc<data_clause acc_copy>, name = "b"}
  acc.parallel dataOperands(%ain, %bin, %cin : memref<1xi32>, memref<?xi32>, memref<1xi32>) num_gangs({%ng : i32}) num_workers(%nw : i32) vector_length(%vl : i32) {
    %old = memref.load %ain[%c0] : memref<1xi32>
    %one = arith.constant 1 : i32
    %new = arith.addi %old, %one : i32
    memref.store %new, %ain[%c0] : memref<1xi32>
    %v = memref.load %cin[%c0] : memref<1xi32>
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
// CHECK-NEXT: %v = memref.load %c[%c0] : memref<1xi32>
// CHECK-NEXT: oacc.fork worker
// CHECK-NOT:  __oacc_bcast
// CHECK:      memref.store %v, %b[%{{.*}}] : memref<?xi32>
