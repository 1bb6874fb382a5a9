"""The ``xdsl.universe`` entry point: plain ``xdsl-opt`` sees xmux's dialects and passes.

Under ``xdsl-opt`` itself, an error of xmux's (an ``XmuxError`` naming the pass, op or
kernel at fault) that reaches the top is printed as one ``error: ...`` line, as ``xmux-opt``
prints it, instead of a traceback through xDSL's driver; other exceptions keep theirs.
"""

import os
import sys

from xdsl.universe import XDSL_UNIVERSE, Universe

from xmux.registry import _OVERRIDES, get_all_dialects, get_all_passes


def _acc_with_compat(factory=XDSL_UNIVERSE.all_dialects["acc"]):  # noqa: ANN001, ANN202
    # upstream acc forms xDSL's acc refuses (xmux.dialects.acc_compat), applied when a context
    # loads the acc dialect: xDSL's acc module alone is 0.06 s of every command's start-up
    import xmux.dialects.acc_compat  # noqa: F401

    return factory()


XDSL_UNIVERSE.all_dialects["acc"] = _acc_with_compat


def _override(path: str):  # noqa: ANN202
    def load():  # noqa: ANN202
        from xmux.registry import _load

        return _load(path)

    return load


# xmux's wider dialects of xDSL's names (upstream llvm ops, the upstream gpu syntax) for plain
# xdsl-opt too: a universe may not add a second dialect of one name, so xDSL's own factory is
# replaced, as make_context registers them (xmux/registry.py's _OVERRIDES)
for _name, _path in _OVERRIDES.items():
    XDSL_UNIVERSE.all_dialects[_name] = _override(_path)
XMUX_UNIVERSE = Universe(all_dialects=get_all_dialects(), all_passes=get_all_passes())


def _one_line_errors(kind, value, traceback) -> None:  # noqa: ANN001 - sys.excepthook's
    from xmux.errors import XmuxError, format_error

    if isinstance(value, XmuxError):
        print(format_error(value), file=sys.stderr)
        return
    _default_hook(kind, value, traceback)


_default_hook = sys.excepthook
if os.path.basename(sys.argv[0] if sys.argv else "") == "xdsl-opt":
    sys.excepthook = _one_line_errors
