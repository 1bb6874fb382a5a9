"""The NVPTX target's kernel ABI (docs/architecture.md, "The NVPTX target").

A kernel ``@k(args...)`` becomes the PTX entry ``k`` whose parameters are, in order:

- each argument of ``@k`` flattened (``add-kernel-wrapper-nvptx``):
  ``memref`` of rank R → ``ptr aligned, i64 offset, i64 sizes[R], i64 strides[R]``
  (elements; MLIR's descriptor without the allocated pointer); a work-group local
  ``memref`` (memory space 3) → the same with ``i64`` byte offset into the launch's dynamic
  shared memory in place of the pointer; ``index`` → ``i64``; ``i1`` → ``i8``; other scalars
  and ``!llvm.ptr`` as they are;
- then the launch record, ``LAUNCH_FIELDS`` ``i64`` values (layout below).

The hardware runs the work-items: thread = work-item, CTA = work-group. A global size that
a local size does not divide is run as up to 2^dims launches (the full groups, then the
remainder groups of each dimension with their smaller block), each with its own group base,
so that ``get_local_size`` is the actual size of a group and every barrier sees all of its
work-items.
"""

from __future__ import annotations

#: launch record fields (i64 each): three per dimension, then work_dim
GLOBAL_SIZE = 0
GLOBAL_OFFSET = 3
ENQUEUED_LOCAL_SIZE = 6
GROUP_BASE = 9  # group id of this launch's first CTA in each dimension
NUM_GROUPS = 12
WORK_DIM = 15
LAUNCH_FIELDS = 16

#: the sub-group (warp) size of the target
WARP_SIZE = 32

#: the external shared-memory array that local-memory arguments are carved from
DYNAMIC_SHARED = "__xmux_dynamic_shared"
#: alignment of each local-memory argument within the dynamic shared memory
LOCAL_ARG_ALIGN = 16

#: the checking mode's device globals (transforms/define_check_failed_nvptx.py): the record
#: of a launch's failed checks (CHECK_FIELDS i64) and the sites' messages
CHECK_RECORD = "__xmux_check_record"
CHECK_MESSAGES = "__xmux_check_messages"
CHECK_FIELDS = 16

TRIPLE = "nvptx64-nvidia-cuda"
DEFAULT_ARCH = "sm_90"
PTX_FEATURES = "+ptx80"
