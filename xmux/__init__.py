"""xmux: SIMT kernels lowered through xDSL to LLVM and JIT-run on the CPU.

```python
import xmux
prog = xmux.compile(source)
prog.kernel("vecadd")(a, b, c, global_size=(n,), local_size=(256,))
```
"""

from typing import TYPE_CHECKING

from xmux.abi import atfork as _atfork  # noqa: F401 - at-fork handlers, early
from xmux.abi.errors import LaunchError, NotSupportedError, XmuxError  # no xDSL: xmux.load
from xmux.interpret import interpret  # eager: a lazy name would lose to the submodule's

if TYPE_CHECKING:  # for type checkers and IDEs; at run time ``__getattr__`` loads them
    from xmux.api import Kernel, LaunchProfile, Program, compile
    from xmux.arrays import aligned, empty, zeros
    from xmux.binary import BinaryError, load
    from xmux.options import CompileOptions
    from xmux.runtime.checks import CheckError
    from xmux.runtime.counters import LaunchCounters
    from xmux.runtime.launch import LocalMemory
    from xmux.stages import PassTimings
    from xmux.stages import parse_source as parse

#: names loaded on first use, so that ``xmux-opt`` (``xmux.cli``) does not pay for the
#: compile API, numpy and the runtime at start-up: name → module
_LAZY = {
    "BinaryError": "xmux.binary",
    "CheckError": "xmux.runtime.checks",
    "CompileOptions": "xmux.options",
    "Kernel": "xmux.api",
    "LaunchCounters": "xmux.runtime.counters",
    "LaunchProfile": "xmux.api",
    "LocalMemory": "xmux.runtime.launch",
    "PassTimings": "xmux.stages",
    "Program": "xmux.api",
    "aligned": "xmux.arrays",
    "compile": "xmux.api",
    "empty": "xmux.arrays",
    "load": "xmux.binary",  # Program.save's binaries: no xDSL
    "parse": "xmux.stages:parse_source",  # module:attribute where the names differ
    "zeros": "xmux.arrays",
}


def __getattr__(name: str) -> object:
    """The compile API, ``xmux.pipelines`` (xDSL's pass machinery) and ``xmux.counters``,
    loaded on first use."""
    import importlib

    if name == "pipelines":
        return importlib.import_module("xmux.pipelines")
    if name == "counters":  # ``xmux.counters.available()``: runtime/counters.py
        return importlib.import_module("xmux.runtime.counters")
    if name in _LAZY:
        module, _, attr = _LAZY[name].partition(":")
        value = getattr(importlib.import_module(module), attr or name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'xmux' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"counters", "pipelines"})


__all__ = [
    "BinaryError",
    "CheckError",
    "CompileOptions",
    "Kernel",
    "LaunchCounters",
    "LaunchError",
    "LaunchProfile",
    "LocalMemory",
    "NotSupportedError",
    "PassTimings",
    "Program",
    "XmuxError",
    "aligned",
    "compile",
    "counters",
    "empty",
    "interpret",
    "load",
    "parse",
    "pipelines",
    "zeros",
]
