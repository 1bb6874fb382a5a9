// RUN: not xmux-opt %s 2>&1 | filecheck %s

// The default-value blob is a hex string with the 0x prefix.

spec.default_values "2A00"
// CHECK: expected a hex string "0x..."
