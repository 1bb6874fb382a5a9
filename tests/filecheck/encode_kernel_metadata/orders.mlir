// RUN: xmux-opt %s -p 'encode-kernel-metadata{kernel-name=k work-item-order=yxz}' | filecheck %s --check-prefix=YXZ
// RUN: xmux-opt %s -p 'encode-kernel-metadata{kernel-name=k work-item-order=xyz}' | filecheck %s --check-prefix=XYZ
// RUN: xmux-opt %s -p 'encode-kernel-metadata{kernel-name=k work-item-order=ZXY}' | filecheck %s --check-prefix=ZXY

// The order string names dimensions innermost first; the attribute lists them outermost first.

// YXZ: mux.work_item_order = array<i64: 2, 0, 1>
// XYZ: mux.work_item_order = array<i64: 2, 1, 0>
// ZXY: mux.work_item_order = array<i64: 1, 0, 2>
func.func @k() {
  func.return
}
