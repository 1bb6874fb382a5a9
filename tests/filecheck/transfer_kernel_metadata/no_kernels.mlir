// RUN: xmux-opt %s -p 'transfer-kernel-metadata' | filecheck %s

// A module without kernels (only private functions and declarations) is unchanged.

// CHECK:      func.func private @f() {
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
// CHECK-NEXT: func.func private @g() -> ()
func.func private @f() {
  func.return
}
func.func private @g()
