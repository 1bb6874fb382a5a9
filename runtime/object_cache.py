"""The JIT's objects on disk: ``<key>.o`` and its sealed record ``<key>.json`` in the cache
directory (``runtime/jit.py`` keys, looks up and loads them; ``runtime/disk_cache.py`` seals
and writes atomically). A record of another shape, a foreign or edited file, or an object
whose digest is not the record's reads as a miss (and is reported once as damaged) instead of
failing every later run; a record of another target fingerprint is a plain miss."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from xmux.runtime import disk_cache

__all__ = ["read", "write"]


def paths(cache_dir: Path, key: str) -> tuple[Path, Path]:
    return cache_dir / f"{key}.o", cache_dir / f"{key}.json"


def valid_record(record: object) -> bool:
    """The record of ``compile_ir``: JSON of any other shape (an edited or foreign file)
    is treated as a miss instead of failing every later run."""
    if not isinstance(record, dict):
        return False
    strings = ("fingerprint", "object_sha256", "kernel_infos")
    lists = ("externals", "exports")
    if not all(isinstance(record.get(k), str) for k in strings):
        return False
    if not all(
        isinstance(record.get(k), list) and all(isinstance(n, str) for n in record[k])
        for k in lists
    ):
        return False
    try:
        infos = json.loads(record["kernel_infos"] or "[]")
    except ValueError:
        return False
    return isinstance(infos, list) and all(isinstance(i, dict) for i in infos)


def read(cache_dir: Path, key: str, fingerprint: str) -> tuple[bytes, dict] | None:
    """The object and record filed under ``key``, or None (a miss)."""
    obj_path, rec_path = paths(cache_dir, key)
    record = disk_cache.read_sealed(rec_path)
    if record is None:
        return None
    if not valid_record(record):
        disk_cache.damaged(rec_path, "not a record of this xmux")
        return None
    if record.get("fingerprint") != fingerprint:
        return None
    try:
        obj = obj_path.read_bytes()
    except OSError:
        return None
    if hashlib.sha256(obj).hexdigest() != record.get("object_sha256"):
        disk_cache.damaged(obj_path, "checksum mismatch")
        return None
    return obj, record


def write(cache_dir: Path, key: str, obj: bytes, record: dict) -> bool:
    """Object first, record last (its seal covers the object's digest), each atomically: a
    reader never sees half a file, nor a record without its object. Whether both were
    written."""
    obj_path, rec_path = paths(cache_dir, key)
    return disk_cache.write_atomic(obj_path, obj) and disk_cache.write_atomic(
        rec_path, disk_cache.dumps_sealed(record)
    )
