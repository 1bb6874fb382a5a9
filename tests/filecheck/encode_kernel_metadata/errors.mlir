// RUN: not xmux-opt %s -p 'encode-kernel-metadata{kernel-name=kernel}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not xmux-opt %s -p 'encode-kernel-metadata' 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not xmux-opt %s -p 'encode-kernel-metadata{kernel-name=k work-item-order=xy}' 2>&1 | filecheck %s --check-prefix=ORDER
// RUN: not xmux-opt %s -p 'encode-kernel-metadata{kernel-name=k work-item-order=xxz}' 2>&1 | filecheck %s --check-prefix=ORDER2
// RUN: not xmux-opt %s -p 'encode-kernel-metadata{kernel-name=k local-sizes=16,0}' 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not xmux-opt %s -p 'encode-kernel-metadata{kernel-name=k local-sizes=-4}' 2>&1 | filecheck %s --check-prefix=NEG
// RUN: not xmux-opt %s -p 'encode-kernel-metadata{kernel-name=k local-sizes=1,2,3,4}' 2>&1 | filecheck %s --check-prefix=FOUR
// RUN: not xmux-opt %s -p 'encode-kernel-metadata{kernel-name=k max-work-dim=4}' 2>&1 | filecheck %s --check-prefix=MAXDIM
// RUN: not xmux-opt %s -p 'encode-kernel-metadata{kernel-name=k local-sizes=4,4 max-work-dim=1}' 2>&1 | filecheck %s --check-prefix=BEYOND
// RUN: not xmux-opt %s -p 'encode-kernel-metadata{kernel-name=ext}' 2>&1 | filecheck %s --check-prefix=DECL
// RUN: not xmux-opt %s -p 'encode-kernel-metadata{kernel-name=fixed local-sizes=32}' 2>&1 | filecheck %s --check-prefix=CONFLICT
// RUN: not xmux-opt %s -p 'encode-kernel-metadata{kernel-name=fixed work-item-order=xyz}' 2>&1 | filecheck %s --check-prefix=ORDER-CONFLICT

// UNKNOWN: error: encode-kernel-metadata: no function named @kernel in the module (functions: @k, @fixed, @ext)
// MISSING: error: encode-kernel-metadata: the option kernel-name is required (functions: @k, @fixed, @ext)
// ORDER: error: encode-kernel-metadata: work-item-order must be a permutation of 'xyz' (innermost dimension first, e.g. 'xyz' or 'zyx'), got 'xy'
// ORDER2: error: encode-kernel-metadata: work-item-order must be a permutation of 'xyz' {{.*}} got 'xxz'
// ZERO: error: encode-kernel-metadata: local-sizes must be positive, got [16, 0]
// NEG: error: encode-kernel-metadata: local-sizes must be positive, got [-4]
// FOUR: error: encode-kernel-metadata: local-sizes takes 1 to 3 sizes, got [1, 2, 3, 4]
// MAXDIM: error: encode-kernel-metadata: max-work-dim must be 1, 2 or 3, got 4
// BEYOND: error: encode-kernel-metadata: local-sizes [4, 4] use dimensions beyond max-work-dim=1
// DECL: error: encode-kernel-metadata: kernel @ext is a declaration without a body
// CONFLICT: error: encode-kernel-metadata: kernel @fixed already requires work-group size [16, 1, 1], local-sizes asks for [32, 1, 1]
// ORDER-CONFLICT: error: encode-kernel-metadata: kernel @fixed already has work-item order 'zyx', work-item-order asks for 'xyz'

func.func @k() {
  func.return
}
func.func @fixed() attributes {mux.reqd_work_group_size = array<i64: 16, 1, 1>, mux.work_item_order = array<i64: 0, 1, 2>} {
  func.return
}
func.func private @ext()
