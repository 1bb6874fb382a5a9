// RUN: xmux-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Verifier errors of mux.launch: dimension counts.

func.func @k() {
  func.return
}
func.func @main(%n: index) {
  mux.launch @k() global_size(%n, %n) local_size(%n) : ()
  func.return
}
// CHECK: 'mux.launch' of @k: local_size has 1 dimensions, global_size has 2

// -----

func.func @k() {
  func.return
}
func.func @main(%n: index) {
  mux.launch @k() global_size(%n, %n, %n, %n) local_size(%n, %n, %n, %n) : ()
  func.return
}
// CHECK: 'mux.launch' of @k: global_size needs 1 to 3 dimensions, got 4

// -----

func.func @k() {
  func.return
}
func.func @main(%n: index) {
  mux.launch @k() global_size(%n, %n) local_size(%n, %n) global_offset(%n) : ()
  func.return
}
// CHECK: 'mux.launch' of @k: global_offset has 1 dimensions, global_size has 2
