// RUN: not xmux-opt %s -p 'lower-spec-constants{mode=spirv}' 2>&1 | filecheck %s

func.func @k() {
  func.return
}
// CHECK: error: lower-spec-constants: mode must be native or emulated, got 'spirv'
