"""Helpers of the OpenACC passes, split by responsibility; the passes themselves stay in
``transforms/convert_acc_to_oacc.py`` and ``transforms/expand_oacc_reductions.py``.

- ``convert-acc-to-oacc``: ``acc_common`` (errors, data-clause op groups, index builder),
  ``outline`` (``Outliner``: the construct into a kernel, data clauses, launch),
  ``partition`` (``LoopPartitioner``: ``acc.loop`` over gang/worker/vector),
  ``masking`` (``RoundMasker``: what every work-item runs masked around partitioned loops),
  ``reduction_builtins`` (recipes checked, ``oacc`` reduction builtins placed),
  ``private_storage`` (gang/worker-private variables that finer partitioned code writes:
  work-group local memory), ``modes`` (neutering and broadcast of single-mode code).
- ``expand-oacc-reductions``: ``oacc_kernels`` (the kernels and their builtins),
  ``reduction_ops`` (reduction arithmetic, atomics, spin locks), ``expand_cpu``
  (``CpuExpander``: the ``expansion=cpu`` expansion per level).
"""
