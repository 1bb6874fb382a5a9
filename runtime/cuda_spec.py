"""Specialization constants on the GPU (the NVPTX target's half of ``runtime/spec_constants.py``).

The program's value map is the CPU's ``SpecState`` (``set_spec_constant``, per-launch values,
checks, the blob of a launch's value set: ``SpecState.resolve``); what differs is how a launch
uses the blob:

* **native**: the program was lowered with every scalar leaf read from a declared constant
  global (``convert-spec-to-llvm{declare-leaves=true}``) and its LLVM IR optimized once for
  NVPTX (the table's template). The program's own PTX links in the default values; a launch
  whose kernel reads other values runs the PTX built from the template with that value set's
  values module linked in (``SpecTable.specialize``), so LLVM folds them as literals. Each
  distinct blob is compiled once: kept here in memory (with its loaded ``CudaModule``) and in
  the PTX disk cache under the program's key and the blob (``value_set_key``);
* **emulated**: one PTX for every value set; the kernel takes the buffer's address as a hidden
  parameter after the user's (``spec.buffer_arg``). The blob is copied into a CuPy device
  array, kept per distinct blob (``MAX_BUFFERS``, then recreated: CuPy's pool orders the
  reuse of freed memory after the kernels queued on the stream).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from xmux.runtime import nvptx as _ptx
from xmux.runtime.spec_state import SpecState
from xmux.runtime.spec_table import KernelSpecUse, value_set_key


class GpuSpec:
    """Per ``NvptxProgram``: its ``SpecState`` and what a launch's value set runs with."""

    #: device buffers kept per distinct value set (emulated mode)
    MAX_BUFFERS = 64

    def __init__(self, state: SpecState, arch: str,
                 load: Callable[[str], Any]) -> None:
        self.state = state
        self.arch = arch
        self._load = load  # PTX text -> CudaModule
        self._modules: dict[bytes, Any] = {}  # native: blob -> CudaModule
        self._buffers: dict[bytes, Any] = {}  # emulated: blob -> CuPy array

    def launch(self, kernel: str, call_values: Mapping[str, object] | None
               ) -> tuple[Any | None, list[Any]]:
        """(the ``CudaModule`` to launch from, None: the program's own; the hidden
        parameters) for a launch of ``kernel`` with ``call_values`` over the program's."""
        state = self.state
        target = state.resolve(kernel, call_values)  # checks the values
        table = state.table
        if table.mode == "emulated":
            if not table.kernels.get(kernel, KernelSpecUse()).buffer_arg:
                return None, []
            return None, [self._buffer(target.buffer)]
        if target.buffer == table.default_values:
            return None, []
        module = self._modules.get(target.buffer)
        if module is None:
            module = self._modules[target.buffer] = self._load(self.ptx(target.buffer))
            state.specializations += 1
        return module, []

    def ptx(self, buf: bytes) -> str:
        """Native mode: the PTX of the program specialized for the value-set blob ``buf``."""
        state = self.state
        template, link = state.table.specialize(buf)
        key = value_set_key(state.program_key, buf) if state.program_key else None
        return _ptx.compile_ir(
            template, arch=self.arch, kernel_infos_json=state.kernel_infos_json,
            cache_key=key, disk_cache=state.disk_cache and key is not None, link=link,
        ).ptx

    def _buffer(self, buf: bytes) -> Any:
        arr = self._buffers.get(buf)
        if arr is None:
            from xmux.runtime import cuda

            cp = cuda._require()
            # at least one byte: a kernel without constants still gets a valid pointer
            host = np.frombuffer(buf or b"\0", np.uint8)
            arr = cp.asarray(host)  # CuPy's allocations are 256-byte aligned
            if len(self._buffers) >= self.MAX_BUFFERS:
                self._buffers.clear()
            self._buffers[buf] = arr
        return arr
