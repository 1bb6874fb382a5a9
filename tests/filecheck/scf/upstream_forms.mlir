// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// Forms mlir-opt prints that xDSL's scf read differently: scf.while without loop-carried
// values (no operand list), and an scf.index_switch region left empty (its scf.yield elided).

func.func @f(%c: i1, %i: index) {
  scf.while : () -> () {
    scf.condition(%c)
  } do {
    scf.yield
  }
  scf.index_switch %i
  case 0 {
    scf.yield
  }
  default {
  }
  return
}

// CHECK:      scf.while () : () -> () {
// CHECK-NEXT:   scf.condition(%c)
// CHECK-NEXT: } do {
// CHECK-NEXT:   scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: scf.index_switch %i
// CHECK-NEXT: case 0 {
// CHECK-NEXT:   scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: default {
// CHECK-NEXT:   scf.yield
// CHECK-NEXT: }
