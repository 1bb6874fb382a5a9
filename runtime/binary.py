"""Program binaries (``prog.save(path)`` / ``xmux.load(path)``): the container format, its
checks and the refusals, without xDSL or LLVM (docs/architecture.md, "Program binaries").

Layout (all integers little-endian)::

    0   8 bytes  magic b"XMUXBIN\\n"
    8   u32      container version (CONTAINER_VERSION)
    12  u32      0 (reserved)
    16  u64      N: length of the notes
    24  N bytes  the notes: UTF-8 JSON, sealed as a disk-cache record (``disk_cache``'s
                 ``entry_sha256``)
    24+N         the blobs (objects, PTX), back to back; each note of ``objects`` gives its
                 ``offset`` (from the start of the blobs), ``size`` and ``sha256``
    end-32       sha256 of every byte before it

Why this and not an ELF with a ``.note`` section or a zip: the notes are the disk cache's
records (the same sealed JSON, the same per-object record that ``jit.load_object`` takes), so
one reader checks both; a flat container needs no ELF writer, reads with ``struct`` alone,
and its trailing digest catches a flipped byte anywhere before any of it is trusted (zip's
CRC-32 covers members, not the directory).
"""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path

from xmux.abi.errors import XmuxError
from xmux.runtime import disk_cache

__all__ = [
    "ABI_VERSION",
    "CONTAINER_VERSION",
    "MAGIC",
    "BinaryError",
    "check_cpu",
    "jsonable",
    "read",
    "write",
    "xmux_version",
]

MAGIC = b"XMUXBIN\n"
#: the container's own layout (header, notes, blobs, digest)
CONTAINER_VERSION = 1
#: xmux's kernel ABI as compiled code uses it: the scheduling structs (abi/kernel_layout.py),
#: the packed-argument layout, the entry hook's signature, the runtime symbols objects call
#: and the notes' keys. Bump on any change: a binary of another version is refused.
ABI_VERSION = 1

_HEADER = struct.Struct("<8sIIQ")
_DIGEST = 32


class BinaryError(XmuxError):
    """A program binary that cannot be loaded here: damaged, not a binary, of another ABI
    version, or built for a CPU this one is not."""


def write(path: Path | str, notes: dict, blobs: list[bytes]) -> None:
    """Write a binary: ``notes`` get each blob's ``offset``/``size``/``sha256`` filled into
    ``notes["objects"][i]`` (one entry per blob, in order) and are sealed."""
    offset = 0
    for entry, blob in zip(notes["objects"], blobs, strict=True):
        entry.update(offset=offset, size=len(blob), sha256=hashlib.sha256(blob).hexdigest())
        offset += len(blob)
    body = disk_cache.dumps_sealed(notes)
    data = _HEADER.pack(MAGIC, CONTAINER_VERSION, 0, len(body)) + body + b"".join(blobs)
    data += hashlib.sha256(data).digest()
    if not disk_cache.write_atomic(Path(path), data):
        raise XmuxError(f"cannot write the program binary {path}")


def read(path: Path | str) -> tuple[dict, list[bytes]]:
    """The notes and blobs of a binary, every checksum verified (``BinaryError`` naming what is
    wrong); the ABI and the CPU are the caller's to check (``check_abi``, ``check_cpu``)."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise BinaryError(f"cannot read the program binary {path}: {e}") from None
    where = f"program binary {path}"
    if len(data) < _HEADER.size + _DIGEST or data[:8] != MAGIC:
        raise BinaryError(f"{path} is not an xmux program binary (no XMUXBIN header)")
    if hashlib.sha256(data[:-_DIGEST]).digest() != data[-_DIGEST:]:
        raise BinaryError(f"{where} is damaged (checksum mismatch): build and save it again")
    _, version, _, size = _HEADER.unpack_from(data)
    if version != CONTAINER_VERSION:
        raise BinaryError(f"{where} has container version {version}; this xmux reads "
                          f"version {CONTAINER_VERSION}")
    start = _HEADER.size
    try:
        notes = json.loads(data[start:start + size])
    except ValueError:
        raise BinaryError(f"{where} is damaged (its notes are not JSON)") from None
    seal = notes.pop(disk_cache.SEAL, None) if isinstance(notes, dict) else None
    if seal is None or json.loads(disk_cache.dumps_sealed(notes))[disk_cache.SEAL] != seal:
        raise BinaryError(f"{where} is damaged (its notes' checksum does not match)")
    check_abi(notes, where)
    region = data[start + size:-_DIGEST]
    blobs = []
    for i, entry in enumerate(notes.get("objects", [])):
        blob = region[entry["offset"]:entry["offset"] + entry["size"]]
        if len(blob) != entry["size"] or hashlib.sha256(blob).hexdigest() != entry["sha256"]:
            raise BinaryError(f"{where} is damaged (object {i}'s checksum does not match)")
        blobs.append(blob)
    return notes, blobs


def check_abi(notes: dict, where: str) -> None:
    abi = notes.get("abi_version")
    if abi != ABI_VERSION:
        raise BinaryError(
            f"{where} was built for xmux ABI version {abi} (xmux {notes.get('xmux_version')}); "
            f"this xmux runs ABI version {ABI_VERSION}: rebuild it with this xmux"
        )


def _features(text: str) -> set[str]:
    return {f[1:] for f in text.split(",") if f.startswith("+")}


def check_cpu(target: dict, host_triple: str, host_cpu: str, host_features: str,
              where: str) -> None:
    """Refuse a CPU binary whose code this host cannot run: another architecture, or a CPU
    feature the binary was built with that this host lacks. A binary built for an
    ``XMUX_CPU`` model (no feature list) is checked by architecture only."""
    arch, host_arch = target["triple"].split("-")[0], host_triple.split("-")[0]
    if arch != host_arch:
        raise BinaryError(
            f"{where} was built for {target['triple']} ({target['cpu']}); this host is "
            f"{host_triple} ({host_cpu})"
        )
    missing = sorted(_features(target.get("features", "")) - _features(host_features))
    if missing:
        shown = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8
                                          else "")
        raise BinaryError(
            f"{where} was built for CPU {target['cpu']} with features this host "
            f"({host_cpu}) lacks: {shown}; rebuild it here (or save it with a CPU model all "
            "hosts share: XMUX_CPU)"
        )


def jsonable(value: object) -> object:
    """Property sets as JSON (for readers of the notes): bytes as hex, triples as lists."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def xmux_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("xmux")
    except PackageNotFoundError:
        return "unknown"
