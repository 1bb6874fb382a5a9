// Bad pipelines and bad IR give one clear line, not a traceback.
// RUN: not xmux-opt %s -p 'nosuchpass' 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not xmux-opt %s -p 'canonicalize,work-item-loop' 2>&1 | filecheck %s --check-prefix=TYPO
// RUN: not xmux-opt %s -p 'encode-kernel-metadata{kernel-name=k local-sizes=a}' 2>&1 | filecheck %s --check-prefix=OPT
// RUN: not xmux-opt %s -p 'encode-kernel-metadata{kernel-name=nope}' 2>&1 | filecheck %s --check-prefix=KERNEL
// RUN: not xmux-opt %s -p 'work-item-loops{' 2>&1 | filecheck %s --check-prefix=SPEC

// PASS: error: unknown pass 'nosuchpass'
// PASS-NOT: Traceback
// TYPO: error: unknown pass 'work-item-loop'; did you mean 'work-item-loops'?
// TYPO-NOT: Traceback
// OPT: error: invalid pass pipeline {{.*}}local-sizes=a
// OPT-NOT: Traceback
// SPEC: error: invalid pass pipeline 'work-item-loops{': Error parsing pass pipeline specification
// SPEC-NOT: Traceback
// KERNEL: nope
// KERNEL-SAME: k
// KERNEL-NOT: Traceback

func.func @k(%a: memref<?xf32>) {
  func.return
}
