// RUN: not xmux-opt %s -p add-entry-hook 2>&1 | filecheck %s

// The hook calls the packed-argument wrapper; a kernel that was not wrapped is an error.
func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  func.return
}
// CHECK: error: add-entry-hook: entry point 'k' must take (packed, wi_info, wg_info, sched_info) pointers and return nothing; run add-kernel-wrapper first
