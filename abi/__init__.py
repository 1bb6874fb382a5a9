"""xmux's bottom layer: plain data and helpers that need no xDSL (docs/architecture.md, "Layers").

The kernel ABI (``kernel_layout``: scheduling-struct offsets, ``KernelInfo``), the NVPTX
target's ABI (``nvptx_abi``), the specialization constants' value types (``spec_types``), the
``gpu.printf`` record format (``printf_format``), the user-facing errors (``errors``) and
``lazy_import``. Every other layer may import these; they import nothing of xmux's but each
other, so a launch or a compile answered from the disk cache does not load xDSL.
"""
