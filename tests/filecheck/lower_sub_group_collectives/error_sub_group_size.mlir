// RUN: not xmux-opt %s -p 'lower-sub-group-collectives{sub-group-size=4}' 2>&1 | filecheck %s

// The kernel's mux.reqd_sub_group_size is the source of truth; a non-default option that
// disagrees with it is an error naming the kernel.

func.func @k(%x: i32) attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 8 : i64} {
  %r = mux.sub_group_reduce add %x : i32
  func.return
}

// CHECK: lower-sub-group-collectives: kernel @k requires sub-group size 8 but the pipeline asks for sub-group-size=4
