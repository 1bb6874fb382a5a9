"""Where the disk cache keeps a program's specialization-constant table (``spec_table``'s
``save_table`` / ``load_table``): named here, in a module that imports nothing of xmux, so
that ``spec_constants.load_table`` can tell a program without a table before importing the
table's code (a warm start of a kernel without specialization constants)."""

from __future__ import annotations

import os


def table_path(cache_dir: str | os.PathLike[str], key: str) -> str:
    """The table file of the program cached under ``key``."""
    return os.path.join(cache_dir, f"{key}.spec.json")
