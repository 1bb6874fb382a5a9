"""The ``xdsl.universe`` entry point: plain ``xdsl-opt`` sees xmux's dialects and passes."""

from xdsl.universe import Universe

from xmux.registry import get_all_dialects, get_all_passes

XMUX_UNIVERSE = Universe(all_dialects=get_all_dialects(), all_passes=get_all_passes())
