// RUN: not xmux-opt %s -p lower-work-group-collectives 2>&1 | filecheck %s --check-prefix=WG

// A kernel attribute out of its range, written by hand (the mutation fuzzer's find: a size of
// -2^63 made lower-work-group-collectives end in a ValueError traceback): every pass that reads
// it reports the kernel and the attribute (a MalformedAttributeError, an XmuxError).

// WG:     error: {{.*}}@k: mux.reqd_work_group_size must be three positive sizes, got [2, 1, -9223372036854775808]
// WG-NOT: Traceback

func.func @k(%x: i32) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 2, 1, -9223372036854775808>} {
  %0 = mux.work_group_scan_exclusive add %x : i32
  func.return
}
