// --print-ir-after-all dumps the module after each pass (stderr), --timing reports each pass.
// RUN: xmux-opt %s -p 'transfer-kernel-metadata,work-item-loops' --print-ir-after-all --timing 2>&1 >/dev/null | filecheck %s

// CHECK:      // -----// IR Dump After transfer-kernel-metadata //----- //
// CHECK:      mux.work_item_order = array<i64: 2, 1, 0>
// CHECK:      // -----// IR Dump After work-item-loops //----- //
// CHECK:      } {mux.work_item_loop}
// CHECK:      ===- Pass execution timing report -===
// CHECK-NEXT:   Total: {{[0-9.]+}} ms
// CHECK-NEXT:   {{ *[0-9.]+}} ms  transfer-kernel-metadata
// CHECK-NEXT:   {{ *[0-9.]+}} ms  work-item-loops

func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %x = memref.load %a[%i] : memref<?xf32>
  memref.store %x, %a[%i] : memref<?xf32>
  func.return
}
