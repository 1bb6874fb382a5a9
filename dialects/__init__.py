"""xmux dialects: mux (ComputeMux builtins), attrs (kernel attribute accessors).

Importing any of them applies xmux's xDSL patches first (``xdsl_compat``): the lazy assembly
formats must be in place before an op class is defined."""

from xmux.dialects import xdsl_compat as _xdsl_compat

_xdsl_compat.apply()
