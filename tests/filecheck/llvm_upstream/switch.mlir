// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

llvm.func @switch(%x: i32, %a: i64, %y: i8) -> i64 {
  llvm.switch %x : i32, ^default(%a : i64) [
    0: ^one,
    -3: ^default(%a : i64),
    7: ^two(%a, %x : i64, i32)
  ]
^default(%d: i64):
  llvm.switch %y : i8, ^one [
  ]
^one:
  llvm.return %a : i64
^two(%b: i64, %c: i32):
  llvm.return %b : i64
}

// CHECK-LABEL: llvm.func @switch
// CHECK-NEXT:    llvm.switch %x : i32, ^default(%a : i64) [
// CHECK-NEXT:      0: ^one,
// CHECK-NEXT:      -3: ^default(%a : i64),
// CHECK-NEXT:      7: ^two(%a, %x : i64, i32)
// CHECK-NEXT:    ]
// CHECK-NEXT:  ^default(%d: i64):
// CHECK-NEXT:    llvm.switch %y : i8, ^one [
// CHECK-NEXT:    ]
// CHECK-NEXT:  ^one:

// Case operands are one flat list split by case_operand_segments, as upstream.
// GENERIC:      "llvm.switch"(%x, %a, %a, %a, %x) [^default, ^one, ^default, ^two] <{case_operand_segments = array<i32: 0, 1, 2>, case_values = dense<[0, -3, 7]> : vector<3xi32>, operandSegmentSizes = array<i32: 1, 1, 3>}> : (i32, i64, i64, i64, i32) -> ()
// GENERIC:      "llvm.switch"(%y) [^one] <{case_operand_segments = array<i32>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i8) -> ()
