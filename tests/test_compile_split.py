"""A large module of independent kernels is built in parts on several cores at once
(runtime/split_ir.py, ``jit._build_split``): the parts' objects load together and run as the
whole module's would; the cut keeps every reference inside a part; what it cannot cut safely
it leaves whole; a child that aborts fails the parallel build as a single child would."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import numpy as np
import pytest

import xmux
from xmux.runtime import contained, jit, split_ir

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from compile_scaling import module  # noqa: E402

HEAD = 'target triple = "x86_64-unknown-linux-gnu"\n\ndeclare float @sinf(float)\n\n'
IR = HEAD + """@"table" = internal global [2 x i32] [i32 1, i32 2]
@"lone" = internal constant i32 7

define internal i32 @"helper"(i32 %".1")
{
.2:
  %".3" = add i32 %".1", 1
  ret i32 %".3"
}

define i32 @"a"(i32 %".1")
{
.2:
  %".3" = call i32 @"helper"(i32 %".1")
  ret i32 %".3"
}

define i32 @"b"()
{
.1:
  %".2" = load i32, ptr @"table"
  ret i32 %".2"
}

define i32 @"c"()
{
.1:
  %".2" = getelementptr [2 x i32], ptr @"table", i32 0, i32 1
  %".3" = load i32, ptr %".2"
  ret i32 %".3"
}

define float @"d"(float %".1")
{
.2:
  %".3" = call float @sinf(float %".1")
  ret float %".3"
}
"""


def _defines(text: str) -> set[str]:
    return {line.split("@", 1)[1].split("(")[0].strip('"') for line in text.splitlines()
            if line.startswith("define ")}


def test_the_cut_keeps_references_inside_a_part():
    parts = split_ir.split(IR, 3)
    assert parts is not None and len(parts) == 3
    units = sorted(sorted(_defines(p)) for p in parts)
    # a with its helper; b and c share @table; d alone
    assert units == [["a", "helper"], ["b", "c"], ["d"]]
    for p in parts:
        assert p.startswith(HEAD.rstrip("\n"))  # shared lines in every part
        assert p.count("@\"table\" =") == ("@\"b\"" in p)  # a global in its users' part only
        jit._parse(p)  # each part is a whole module LLVM verifies


def test_what_cannot_be_cut_safely_stays_whole():
    assert split_ir.split(IR, 1) is None
    assert split_ir.split(IR + '!0 = !{ptr @"a"}\n', 2) is None  # metadata naming a global
    assert split_ir.split(IR + "!llvm.dbg.cu = !{}\n", 2) is None  # debug info
    assert split_ir.split(IR + "weird top-level line\n", 2) is None
    one = HEAD + IR[IR.index('define internal i32 @"helper"'):IR.index('define i32 @"b"')]
    assert split_ir.split(one, 4) is None  # one unit


def test_a_module_built_in_parts_runs_as_the_whole(monkeypatch, tmp_path):
    monkeypatch.setattr(jit, "SPLIT_TEXT", 0)
    monkeypatch.setattr(jit, "SPLIT_PART", 1)
    monkeypatch.setattr(jit, "_cores", lambda: 3)
    text = module("many", 150)  # kernels k0, k1, k2 of 50 statements each
    monkeypatch.setenv("XMUX_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("XMUX_CACHE", "1")
    prog = xmux.compile(text)
    assert prog.jit.object_code.startswith(b"XMUXOBJS")  # three objects in one engine
    assert split_ir.unpack_objects(prog.jit.object_code)[0][:4] == b"\x7fELF"
    n = 256
    a = np.random.default_rng(1).random(n + 97, dtype=np.float32)
    want = a * np.float32(1.5) + a
    for name in ("k0", "k1", "k2"):
        b = np.zeros_like(a)
        prog.kernel(name)(a, b, np.float32(1.5), global_size=(n,), local_size=(64,))
        touched = b != 0
        assert touched.sum() > n and np.allclose(b[touched], want[touched])
    jit.clear_memory_cache()
    again = xmux.compile(text)  # the disk cache keeps the packed objects
    assert again.jit.source == "disk" and again.jit.object_code == prog.jit.object_code
    b = np.zeros_like(a)
    again.kernel("k1")(a, b, np.float32(1.5), global_size=(n,), local_size=(64,))
    assert np.allclose(b[b != 0], want[b != 0])


def test_a_part_that_aborts_fails_the_parallel_build():
    assert contained.run_forked_all([lambda: 1, lambda: 2], [None, None]) == [1, 2]
    with pytest.raises(contained.LLVMAborted, match="SIGABRT"):
        contained.run_forked_all([lambda: 1, lambda: os.kill(os.getpid(), signal.SIGABRT)],
                                 [None, None])
    assert contained.run_forked_all([os.getpid, os.getpid], [None, None])[0] != os.getpid()


def test_a_part_llvm_refuses_falls_back_to_the_whole_module(monkeypatch):
    """A part that does not parse (a cut this module did not foresee) costs a whole build,
    never a wrong error: the whole module is built as before."""
    monkeypatch.setattr(jit, "SPLIT_TEXT", 0)
    monkeypatch.setattr(jit, "SPLIT_PART", 1)
    monkeypatch.setattr(jit, "_cores", lambda: 2)
    monkeypatch.setattr(split_ir, "split", lambda text, n: ["define broken", text])
    jm = jit.compile_ir(IR, disk_cache=False)
    assert not jm.object_code.startswith(b"XMUXOBJS")
    assert {"a", "b", "c", "d"} <= set(jm.exports)
