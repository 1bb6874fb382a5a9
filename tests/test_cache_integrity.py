"""The disk cache never gives a wrong answer: every file of an entry is checksummed, a damaged
entry is rebuilt (said once on stderr), and a failed write leaves nothing behind."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from xmux.runtime import disk_cache

SOURCE = """
spec.specialization_id @answer_default = 42 : i32
func.func @answer(%out: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = spec.get_scalar "answer", @answer_default : i32
  memref.store %v, %out[%i] : memref<?xi32>
  func.return
}
"""

RUN = f"""
import numpy as np, xmux
out = np.zeros(4, np.int32)
xmux.compile({SOURCE!r})["answer"](out, global_size=(4,))
print(int(out[0]))
"""


def _fresh_process(cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XMUX_CACHE_DIR": str(cache), "XMUX_CACHE": "1"}
    return subprocess.run(
        [sys.executable, "-c", RUN], env=env, capture_output=True, text=True, timeout=300
    )


def _corrupt(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize(
    ("suffix", "old", "new"),
    [
        # one bit of the table's default value: 42 (0x2a) -> 58 (0x3a)
        (".spec.json", "2a000000", "3a000000"),
        # a dtype in the record's kernel metadata
        (".json", "int32", "int64"),
    ],
)
def test_damaged_entry_is_rebuilt(tmp_path: Path, suffix: str, old: str, new: str) -> None:
    first = _fresh_process(tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split() == ["42"]
    candidates = [p for p in sorted(tmp_path.rglob("*.json"))
                  if p.name.endswith(".spec.json") == (suffix == ".spec.json")
                  and old in p.read_text()]
    path = candidates[0]
    _corrupt(path, old, new)
    second = _fresh_process(tmp_path)
    assert second.returncode == 0, second.stderr
    assert second.stdout.split() == ["42"]
    assert f"damaged cache file {path}" in second.stderr
    assert second.stderr.count("damaged cache file") == 1
    third = _fresh_process(tmp_path)  # rewritten by the rebuild: a clean hit, nothing said
    assert third.stdout.split() == ["42"] and "damaged" not in third.stderr


def test_failed_write_leaves_no_temporary_file(tmp_path: Path, monkeypatch) -> None:
    real_fdopen = os.fdopen

    class FullDisk:
        def __init__(self, fd: int, mode: str) -> None:
            self.f = real_fdopen(fd, mode)

        def __enter__(self) -> FullDisk:
            return self

        def __exit__(self, *exc: object) -> None:
            self.f.close()

        def write(self, data: bytes) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(disk_cache.os, "fdopen", FullDisk)
    target = tmp_path / "entry.json"
    assert disk_cache.write_atomic(target, b"{}") is False
    assert list(tmp_path.iterdir()) == []


def test_sealed_record_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    record = {"a": [1, 2.5, "x"], "b": {"c": None}}
    assert disk_cache.write_atomic(path, disk_cache.dumps_sealed(record))
    assert disk_cache.read_sealed(path) == record
    assert disk_cache.read_sealed(tmp_path / "missing.json") is None
    path.write_text(path.read_text().replace("2.5", "3.5"))
    assert disk_cache.read_sealed(path) is None
