// RUN: not xmux-opt %s -p 'transfer-kernel-metadata' 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not xmux-opt %s -p 'transfer-kernel-metadata{work-item-order=abc}' 2>&1 | filecheck %s --check-prefix=ORDER
// RUN: not xmux-opt %s -p 'transfer-kernel-metadata{local-sizes=0}' 2>&1 | filecheck %s --check-prefix=SIZE

// MISSING: error: transfer-kernel-metadata: mux.launch of @nowhere, which the module lacks
// ORDER: error: transfer-kernel-metadata: work-item-order must be a permutation of 'xyz' (innermost dimension first, e.g. 'xyz' or 'zyx'), got 'abc'
// SIZE: error: transfer-kernel-metadata: local-sizes must be positive, got [0]

func.func @main(%n: index) {
  mux.launch @nowhere() global_size(%n) local_size(%n) : ()
  func.return
}
