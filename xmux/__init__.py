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
from xmux.runtime.launch import LocalMemory

__all__ = [
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
    "zeros",
]
