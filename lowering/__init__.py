"""xmux's lowering passes (to the llvm dialect). Importing any of them applies xmux's xDSL
patches first (``dialects/xdsl_compat.py``): the lazy assembly formats must be in place before
the dialect modules a pass imports define their op classes."""

from xmux.dialects import xdsl_compat as _xdsl_compat

_xdsl_compat.apply()
