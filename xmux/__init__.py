"""xmux: SIMT kernels lowered through xDSL to LLVM and JIT-run on the CPU.

```python
import xmux
prog = xmux.compile(source)
prog.kernel("vecadd")(a, b, c, global_size=(n,), local_size=(256,))
```
"""

from typing import TYPE_CHECKING

from xmux.abi import atfork as _atfork  # noqa: F401 - at-fork handlers, early
from xmux.errors import LaunchError, NotSupportedError, XmuxError
from xmux.interpret import interpret  # eager: a lazy name would lose to the submodule's

if TYPE_CHECKING:  # for type checkers and IDEs; at run time ``__getattr__`` loads them
    from xmux.api import Kernel, LaunchProfile, Program, compile
    from xmux.arrays import aligned, empty, zeros
    from xmux.options import CompileOptions
    from xmux.runtime.checks import CheckError
    from xmux.runtime.launch import LocalMemory

#: names loaded on first use, so that ``xmux-opt`` (``xmux.cli``) does not pay for the
#: compile API, numpy and the runtime at start-up: name → module
_LAZY = {
    "CheckError": "xmux.runtime.checks",
    "CompileOptions": "xmux.options",
    "Kernel": "xmux.api",
    "LaunchProfile": "xmux.api",
    "LocalMemory": "xmux.runtime.launch",
    "Program": "xmux.api",
    "aligned": "xmux.arrays",
    "compile": "xmux.api",
    "empty": "xmux.arrays",
    "zeros": "xmux.arrays",
}


def __getattr__(name: str) -> object:
    """The compile API and ``xmux.pipelines`` (xDSL's pass machinery), loaded on first use."""
    import importlib

    if name == "pipelines":
        return importlib.import_module("xmux.pipelines")
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'xmux' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"pipelines"})


__all__ = [
    "CheckError",
    "CompileOptions",
    "Kernel",
    "LaunchError",
    "LaunchProfile",
    "LocalMemory",
    "NotSupportedError",
    "Program",
    "XmuxError",
    "aligned",
    "compile",
    "empty",
    "interpret",
    "pipelines",
    "zeros",
]
