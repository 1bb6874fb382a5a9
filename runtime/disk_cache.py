"""Files of the on-disk caches (objects, PTX, spec-constant tables): written atomically, read
back only when every byte is what was written.

Each entry's JSON record carries ``entry_sha256``, the digest of its own canonical JSON, and
the digest of the binary file beside it (an object, a PTX text), so a flipped bit anywhere in
an entry (a default value of a spec-constant table, a dtype in a record's kernel metadata)
makes the entry a miss: it is rebuilt and rewritten, and the first time a process meets a
damaged file it says so on stderr, naming the file. A missing file is a plain miss, silently.

A write goes to a temporary file in the same directory that is renamed over the entry's
file: a reader sees the old file or the new one, never half of one; a failed write (a full
disk, a read-only directory) removes its temporary file and leaves the cache as it was.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import threading
from pathlib import Path

__all__ = ["SEAL", "damaged", "dumps_sealed", "read_sealed", "write_atomic"]

#: the key of a record's own digest
SEAL = "entry_sha256"

_reported: set[str] = set()
_report_lock = threading.Lock()


def _digest(record: dict) -> str:
    canonical = json.dumps(record, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def dumps_sealed(record: dict) -> bytes:
    """``record`` as JSON with its digest under ``SEAL``."""
    return json.dumps({**record, SEAL: _digest(record)}).encode()


def damaged(path: Path, why: str) -> None:
    """Say once per process and file that a cache file is damaged and will be rebuilt."""
    with _report_lock:
        if str(path) in _reported:
            return
        _reported.add(str(path))
    print(f"xmux: damaged cache file {path} ({why}): rebuilding it", file=sys.stderr)


def read_sealed(path: Path) -> dict | None:
    """The record written by ``dumps_sealed`` to ``path`` (without its seal); None when the
    file is missing, or damaged (then reported: ``damaged``)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        record = json.loads(data)
    except ValueError:
        damaged(path, "not JSON")
        return None
    if not isinstance(record, dict) or not isinstance(record.get(SEAL), str):
        damaged(path, "no checksum")
        return None
    seal = record.pop(SEAL)
    if seal != _digest(record):
        damaged(path, "checksum mismatch")
        return None
    return record


def write_atomic(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` through a renamed temporary file; False (and nothing left
    behind) when the directory cannot take it."""
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        import tempfile  # here: a warm start only reads (~4 ms of imports)

        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        tmp = None
        return True
    except OSError:
        return False  # a read-only or full cache directory must not break compilation
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
