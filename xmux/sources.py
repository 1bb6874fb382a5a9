"""Reading an MLIR source file with an error naming it: shared by ``xmux.compile`` and the
command-line tools, which import this module alone (``xmux.api`` pulls in numpy and the
runtime, a tenth of a second of ``xmux-opt``'s start-up)."""

from __future__ import annotations

from pathlib import Path

from xmux.errors import XmuxError


def read_source_file(path: Path) -> str:
    """The text of an MLIR file, or an error naming it (missing, a directory, not UTF-8)."""
    if not path.exists():
        raise XmuxError(f"no such file: {path}")
    if path.is_dir():
        raise XmuxError(f"{path} is a directory, not an MLIR file")
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise XmuxError(
            f"{path} is not UTF-8 text: byte 0x{data[e.start]:02x} at offset {e.start} "
            f"(line {line})"
        ) from None
