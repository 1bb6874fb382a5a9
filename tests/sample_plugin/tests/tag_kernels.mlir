// RUN: xmux-opt %s -p 'tag-kernels{tag=fast}' | filecheck %s
// RUN: xmux-opt %s -p tag-kernels | filecheck %s --check-prefix=DEFAULT

func.func @k() attributes {mux.kernel} {
  func.return
}

func.func @helper() {
  func.return
}

// CHECK:     func.func @k() attributes {mux.kernel, sample.tag = "fast"}
// CHECK:     func.func @helper() {
// DEFAULT:   func.func @k() attributes {mux.kernel, sample.tag = "tagged"}
