// Plain xdsl-opt sees xmux's dialects and passes through the xdsl.universe entry point.
// RUN: xdsl-opt %s -p work-item-loops | filecheck %s

// CHECK: mux.set_local_id 0, %{{.*}} : index
// CHECK: } {mux.work_item_loop}
func.func @k(%a: memref<?xindex>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  memref.store %i, %a[%i] : memref<?xindex>
  func.return
}
