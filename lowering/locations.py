"""Source locations for debug builds (``xmux.compile(..., debug=True)``, ``xmux-run --debug``).

MLIR gives every op the file, line and column where it was parsed; xDSL's parser keeps only
an explicit ``loc(...)``, and its rewriters do not hand an op's location to the ops that
replace it. This module supplies both, for debug builds only (a normal compile runs none of
it, so it costs nothing):

- ``parse_located``: ``LocatingParser`` gives each op without ``loc(...)`` a
  ``FileLineColLoc`` of where its text starts (MLIR text given as a string is written to a
  file first, so that a debugger can show and break at its lines);
- ``keep_locations()``: while the pass pipeline runs, an op inserted into a block without a
  location takes the location of the op it is inserted next to (the op a pattern replaces:
  patterns insert the new ops before it), or the enclosing op's for a block's first op.
  That is MLIR's "new ops carry the location of the op they come from" rule for the rewrites
  xmux's passes do; the emitter (``runtime/debug_info.py``) falls back to the previous
  op's location for what is still unknown. work-item-loops sets the locations of what it
  rebuilds itself (the lifted loops, barriers, yields: the op's they replace; each barrier
  region's nest and the per-work-item values it reads at its top: the barrier's or loop's
  that opens it, ``transforms/wi_loops/emit.py`` and ``dispatch.py``); convert-to-llvm gives
  a loop's latch the location of its ``scf.yield``.
- ``mark_debug`` / ``is_debug``: the module attribute ``xmux.debug`` asks the emitter for
  DWARF debug info (like the target attribute, the module says how it is built).
"""

from __future__ import annotations

import bisect
import hashlib
import os
import tempfile
from contextlib import AbstractContextManager
from pathlib import Path

from xdsl.dialects.builtin import (
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    ModuleOp,
    NameLoc,
    StringAttr,
    UnitAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Operation
from xdsl.parser import Parser

__all__ = [
    "DEBUG_ATTR",
    "LocatingParser",
    "file_line_col",
    "is_debug",
    "keep_locations",
    "mark_debug",
    "source_path",
]

#: the module attribute that makes the emitter produce debug info
DEBUG_ATTR = "xmux.debug"


def mark_debug(module: ModuleOp) -> None:
    module.attributes[DEBUG_ATTR] = UnitAttr()


def is_debug(module: ModuleOp) -> bool:
    return DEBUG_ATTR in module.attributes


def source_path(text: str, name: str) -> str:
    """The file name debug info names for ``text``: ``name`` when it is a file holding it,
    else a file under the temporary directory holding the text (gdb lists and breaks at
    lines of a file it can name)."""
    if name and not name.startswith("<") and Path(name).is_file():
        return str(Path(name).resolve())
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / "xmux-debug"
    path = folder / f"{digest}.mlir"
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{digest}.{os.getpid()}.tmp"
        tmp.write_text(text)
        tmp.replace(path)
    return str(path)


class LocatingParser(Parser):
    """xDSL's parser, giving each op without an explicit ``loc(...)`` the location of its
    first token (its results' names, else its name) in ``filename``."""

    def __init__(self, ctx: object, text: str, name: str, filename: str) -> None:
        super().__init__(ctx, text, name)  # type: ignore[arg-type]
        self._filename = StringAttr(filename)
        self._line_starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            line = bisect.bisect_right(self._line_starts, start)
            column = start - self._line_starts[line - 1] + 1
            op.location = FileLineColLoc(self._filename, IntAttr(line), IntAttr(column))
        return op


def file_line_col(loc: Attribute) -> FileLineColLoc | None:
    """The file/line/column a location attribute points at (a name's, a call site's
    callee, a fused location's first), or None."""
    while True:
        if isinstance(loc, FileLineColLoc):
            return loc
        if isinstance(loc, NameLoc):
            loc = loc.location
        elif isinstance(loc, CallSiteLoc):
            loc = loc.callee
        elif isinstance(loc, FusedLoc):
            found = (file_line_col(x) for x in loc.locations.data)
            return next((f for f in found if f is not None), None)
        else:
            return None


# ---------------------------------------------------------------------------------------
# Locations through the passes
# ---------------------------------------------------------------------------------------

def keep_locations() -> AbstractContextManager[None]:
    """While active, ops inserted into blocks inherit a location (see the module docstring);
    the change to xDSL's ``Block`` is ``dialects/xdsl_compat.py``'s
    ``block_insertions_keep_locations``, applied by the first debug compile."""
    from xmux.dialects.xdsl_compat import located_pipeline

    return located_pipeline()
