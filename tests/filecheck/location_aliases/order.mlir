// RUN: xmux-opt --print-debuginfo %s | filecheck %s
// RUN: not xmux-opt %S/inputs/undefined_alias.mlir 2>&1 | filecheck %s --check-prefix=ERR
// Location aliases in any order (issue 31): used before their definition, defined after
// the module, one naming others defined after it (callsite, fused, name(...)).

func.func @f(%a: i32 loc(#arg)) -> i32 {
  %b = arith.addi %a, %a : i32 loc(#site)
  %c = arith.muli %b, %b : i32 loc(#both)
  func.return %c : i32 loc(#named)
} loc(#fn)
#site = loc(callsite(#callee at #caller))
#both = loc(fused[#callee, #caller])
#named = loc("ret"(#caller))
#callee = loc("k.mlir":3:5)
#caller = loc("main.mlir":10:1)
#fn = loc("k.mlir":1:1)
#arg = loc("k.mlir":1:14)

// CHECK:      func.func @f(%{{.*}}: i32 loc("k.mlir":1:14)) -> i32 {
// CHECK-NEXT:   arith.addi {{.*}} loc(callsite("k.mlir":3:5 at "main.mlir":10:1))
// CHECK-NEXT:   arith.muli {{.*}} loc(fused["k.mlir":3:5, "main.mlir":10:1])
// CHECK-NEXT:   func.return {{.*}} loc("ret"("main.mlir":10:1))
// CHECK-NEXT: } loc("k.mlir":1:1)

// an alias defined nowhere is still the parser's error, at its use
// ERR: undefined symbol alias '#nowhere'
