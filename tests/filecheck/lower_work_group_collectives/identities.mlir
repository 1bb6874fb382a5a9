// RUN: xmux-opt %s -p lower-work-group-collectives | filecheck %s

// Exclusive scans start from the kind's identity for the value's type; logical kinds on wider
// integers compare with 0 and give 0 or 1.

func.func @k(%i8: i8, %i16: i16, %i32: i32, %i64: i64, %f: f32, %h: f16, %b: i1) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 2, 1, 1>} {
  %0 = mux.work_group_scan_exclusive add %i32 : i32
  %1 = mux.work_group_scan_exclusive mul %i64 : i64
  %2 = mux.work_group_scan_exclusive smin %i8 : i8
  %3 = mux.work_group_scan_exclusive umin %i16 : i16
  %4 = mux.work_group_scan_exclusive smax %i32 : i32
  %5 = mux.work_group_scan_exclusive umax %i64 : i64
  %6 = mux.work_group_scan_exclusive and %i32 : i32
  %7 = mux.work_group_scan_exclusive or %i8 : i8
  %8 = mux.work_group_scan_exclusive xor %i16 : i16
  %9 = mux.work_group_scan_exclusive logical_and %i32 : i32
  %10 = mux.work_group_scan_exclusive logical_or %b : i1
  %11 = mux.work_group_scan_exclusive logical_xor %i64 : i64
  %12 = mux.work_group_scan_exclusive fadd %f : f32
  %13 = mux.work_group_scan_exclusive fmul %h : f16
  %14 = mux.work_group_scan_exclusive fmin %f : f32
  %15 = mux.work_group_scan_exclusive logical_and %b : i1
  func.return
}

// CHECK:      scf.if
// CHECK:      arith.constant 0 : i32
// CHECK:      arith.addi
// CHECK:      arith.constant 1 : i64
// CHECK:      arith.muli
// CHECK:      arith.constant 127 : i8
// CHECK:      arith.minsi
// CHECK:      arith.constant -1 : i16
// CHECK:      arith.minui
// CHECK:      arith.constant -2147483648 : i32
// CHECK:      arith.maxsi
// CHECK:      arith.constant 0 : i64
// CHECK:      arith.maxui
// CHECK:      arith.constant -1 : i32
// CHECK:      arith.andi
// CHECK:      arith.constant 0 : i8
// CHECK:      arith.ori
// CHECK:      arith.constant 0 : i16
// CHECK:      arith.xori
// CHECK:      %[[ID:.*]] = arith.constant 1 : i32
// CHECK:      scf.for {{.*}} iter_args(%[[A:.*]] = %[[ID]]) -> (i32)
// CHECK-NEXT:   %[[X:.*]] = memref.load
// CHECK-NEXT:   %[[Z1:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %[[T1:.*]] = arith.cmpi ne, %[[A]], %[[Z1]] : i32
// CHECK-NEXT:   %[[Z2:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %[[T2:.*]] = arith.cmpi ne, %[[X]], %[[Z2]] : i32
// CHECK-NEXT:   %[[AND:.*]] = arith.andi %[[T1]], %[[T2]] : i1
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %[[N:.*]] = arith.select %[[AND]], %[[ONE]], %[[ZERO]] : i32
// CHECK:      arith.constant false
// CHECK:      arith.ori %{{.*}}, %{{.*}} : i1
// CHECK:      arith.constant 0 : i64
// CHECK:      arith.xori %{{.*}}, %{{.*}} : i1
// CHECK:      arith.constant 0.000000e+00 : f32
// CHECK:      arith.addf
// CHECK:      arith.constant 1.000000e+00 : f16
// CHECK:      arith.mulf
// CHECK:      arith.constant 0x7f800000 : f32
// CHECK:      arith.minnumf
// CHECK:      arith.constant true
// CHECK:      arith.andi %{{.*}}, %{{.*}} : i1
