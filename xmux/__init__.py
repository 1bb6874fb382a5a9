"""xmux: SIMT kernels lowered through xDSL to LLVM and JIT-run on the CPU.

```python
import xmux
prog = xmux.compile(source)
prog.kernel("vecadd")(a, b, c, global_size=(n,), local_size=(256,))
```
"""

from xmux.api import Kernel, LaunchProfile, Program, compile
from xmux.arrays import aligned, empty, zeros
from xmux.errors import LaunchError, NotSupportedError, XmuxError
from xmux.interpret import interpret
from xmux.runtime.checks import CheckError
from xmux.runtime.launch import LocalMemory


def __getattr__(name: str) -> object:
    """``xmux.pipelines`` without importing it first (loaded on first use: it imports xDSL's
    pass machinery, which ``import xmux`` alone does not need)."""
    if name == "pipelines":
        import importlib

        return importlib.import_module("xmux.pipelines")
    raise AttributeError(f"module 'xmux' has no attribute {name!r}")


__all__ = [
    "CheckError",
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
