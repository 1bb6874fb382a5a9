// RUN: not xmux-opt %s -p lower-sub-group-collectives 2>&1 | filecheck %s

// A kernel that requires sub-groups larger than one cannot be compiled for size 1.

func.func @k(%x: i32) attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 8 : i64} {
  %r = mux.sub_group_reduce add %x : i32
  func.return
}

// CHECK: lower-sub-group-collectives: kernel @k requires sub-group size 8; this pipeline has sub-groups of size 1
