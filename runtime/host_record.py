"""What LLVM says about this host, remembered in the disk cache for the next process.

A warm start needs the host's target facts before it can look anything up: the cache keys
hold the CPU's name and features and the tool versions (``jit.target_fingerprint``). Asking
LLVM means importing llvmlite's binding and creating its target (20-24 ms, half a warm start
on the 2-core VM). The answer only changes with the machine, so the first process that asks
LLVM writes it to ``$XMUX_CACHE_DIR/host/<identity>.json`` (sealed like every record), and
later processes on the same machine read it back.

The identity is what the answer depends on, read without LLVM: the architecture, the first
CPU's vendor, family, model, stepping and flags in ``/proc/cpuinfo`` (the kernel's view of
CPUID, features the OS does not enable left out, as LLVM leaves them out), llvmlite's
version (its package metadata only) and the settings that change the answer
(``XMUX_OPT_LEVEL``). With ``XMUX_CPU`` set, or without ``/proc/cpuinfo``, there is no
identity and LLVM is asked as before.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from xmux.runtime import disk_cache

__all__ = ["identity", "read", "write"]

_FIELDS = ("vendor_id", "cpu family", "model", "model name", "stepping", "flags",
           "CPU implementer", "CPU architecture", "CPU variant", "CPU part", "Features")
_CPUINFO = Path("/proc/cpuinfo")
_memo: dict[str, str | None] = {}


def identity() -> str | None:
    """A digest of what LLVM's host facts depend on, or None where it cannot be told."""
    if "id" not in _memo:
        _memo["id"] = _identity()  # one assignment: another thread sees all of it or nothing
    return _memo["id"]


def _identity() -> str | None:
    if os.environ.get("XMUX_CPU", "").strip():
        return None
    try:
        text = _CPUINFO.read_text(errors="replace")
    except OSError:
        return None
    first = text.split("\n\n", 1)[0]
    lines = sorted(line.strip() for line in first.splitlines()
                   if line.split(":", 1)[0].strip() in _FIELDS)
    if not lines:
        return None
    import llvmlite  # the package's version only (~1 ms), not its binding

    parts = [os.uname().machine, *lines, f"llvmlite {llvmlite.__version__}",
             f"O{os.environ.get('XMUX_OPT_LEVEL', '').strip()}"]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _path(cache_dir: Path, ident: str) -> Path:
    return cache_dir / "host" / f"{ident}.json"


def read(cache_dir: Path | None) -> dict | None:
    """The facts an earlier process wrote for this host, or None."""
    ident = identity()
    if cache_dir is None or ident is None:
        return None
    record = disk_cache.read_sealed(_path(cache_dir, ident))
    return record if record is not None and record.get("identity") == ident else None


def write(cache_dir: Path | None, facts: dict) -> None:
    """Remember ``facts`` (JSON-able) for this host; a failure to write is not an error."""
    ident = identity()
    if cache_dir is None or ident is None:
        return
    path = _path(cache_dir, ident)
    if path.exists():
        return
    disk_cache.write_atomic(path, disk_cache.dumps_sealed({**facts, "identity": ident}))
