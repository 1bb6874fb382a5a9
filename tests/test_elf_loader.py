"""runtime/elf_loader.py: the JIT's objects loaded without LLVM, what it refuses, and the warm
start it is for (no llvmlite binding imported, the host's facts from the disk cache)."""

from __future__ import annotations

import ctypes
import json
import math
import os
import struct
import subprocess
import sys
import uuid
from pathlib import Path

import numpy as np
import pytest

from tests.kernel_texts import MATMUL
from xmux.errors import XmuxError
from xmux.runtime import elf_loader, host_record, jit


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("XMUX_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("XMUX_CACHE", raising=False)
    monkeypatch.delenv("XMUX_LOADER", raising=False)


def _ir(tag: str) -> str:
    """Code, constants, a writable global, a call into libm and one function calling
    another: every kind of section and reference the JIT's objects have."""
    return f"""
; {tag}
@table = internal constant [4 x float] [float 1.5, float 2.5, float 3.5, float 4.5]
@calls = global i64 0
declare float @sinf(float)

define internal float @pick(i64 %i) {{
  %p = getelementptr [4 x float], ptr @table, i64 0, i64 %i
  %v = load float, ptr %p
  ret float %v
}}

define float @f(i64 %i, float %x) {{
  %n = load i64, ptr @calls
  %n1 = add i64 %n, 1
  store i64 %n1, ptr @calls
  %t = call float @pick(i64 %i)
  %s = call float @sinf(float %x)
  %r = fadd float %t, %s
  ret float %r
}}
"""


def _call(jm: jit.JitModule, i: int, x: float) -> float:
    fn = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_int64, ctypes.c_float)(jm.address("f"))
    return fn(i, x)


def _maps_perms(address: int) -> str:
    for line in Path("/proc/self/maps").read_text().splitlines():
        span, perms = line.split()[:2]
        lo, hi = (int(v, 16) for v in span.split("-"))
        if lo <= address < hi:
            return perms
    raise AssertionError(f"{address:#x} is not mapped")


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the loader takes x86-64 objects")
def test_loads_code_constants_data_and_libm_calls():
    jm = jit.compile_ir(_ir(uuid.uuid4().hex), disk_cache=False)
    assert jm.loader == "native"
    for i, x in [(0, 0.0), (3, 0.5), (2, -1.25)]:
        want = np.float32(np.float32([1.5, 2.5, 3.5, 4.5][i]) + np.float32(math.sin(x)))
        assert _call(jm, i, x) == pytest.approx(float(want), rel=1e-6)
    assert ctypes.c_int64.from_address(jm.address("calls")).value == 3
    # code executable and not writable; the written global writable and not executable
    assert _maps_perms(jm.address("f")).startswith("r-x")
    assert _maps_perms(jm.address("calls")).startswith("rw-")


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the loader takes x86-64 objects")
def test_native_and_mcjit_loads_agree_on_a_kernel(monkeypatch):
    import xmux

    rng = np.random.default_rng(3)
    n = 48
    a, b = (rng.standard_normal((n, n)).astype(np.float32) for _ in range(2))
    out = {}
    for loader in ("native", "mcjit"):
        monkeypatch.setenv("XMUX_LOADER", loader)
        jit.clear_memory_cache()
        prog = xmux.compile(MATMUL, cache=False)
        assert prog.jit.loader == loader
        c = np.zeros((n, n), np.float32)
        prog.kernel("matmul")(n, a, b, c, global_size=(n, n), local_size=(16, 16))
        out[loader] = c
    np.testing.assert_allclose(out["native"], a @ b, rtol=1e-4, atol=1e-4)
    assert np.array_equal(out["native"], out["mcjit"])


def test_objects_the_loader_does_not_take_go_to_mcjit():
    """A module with a constructor table (.init_array, which GlobalOpt cannot fold away: it
    calls out): the loader refuses it whole and MCJIT loads it, as before."""
    ctors = f"""; {uuid.uuid4().hex}
@slot = global i64 7
%ctor = type {{ i32, ptr, ptr }}
@llvm.global_ctors = appending global [1 x %ctor] [%ctor {{ i32 65535, ptr @init, ptr null }}]
declare i32 @getpid()
define internal void @init() {{
  %p = call i32 @getpid()
  %w = sext i32 %p to i64
  store i64 %w, ptr @slot
  ret void
}}
define i64 @get() {{
  %v = load i64, ptr @slot
  ret i64 %v
}}
"""
    jm = jit.compile_ir(ctors, disk_cache=False)
    assert jm.loader == "mcjit"
    assert ctypes.CFUNCTYPE(ctypes.c_int64)(jm.address("get"))() in (7, os.getpid())


def _object(tag: str) -> bytes:
    return jit.compile_ir(_ir(tag), disk_cache=False).object_code


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the loader takes x86-64 objects")
def test_refusals_name_what_is_not_taken():
    obj = _object(uuid.uuid4().hex)
    with pytest.raises(elf_loader.Unsupported, match="not an ELF"):
        elf_loader.load([b"\x7fELX" + obj[4:]], jit.system_symbol)
    wrong_machine = bytearray(obj)
    struct.pack_into("<H", wrong_machine, 18, 183)  # EM_AARCH64
    with pytest.raises(elf_loader.Unsupported, match="machine 183"):
        elf_loader.load([bytes(wrong_machine)], jit.system_symbol)
    # a relocation type it does not apply (R_X86_64_GOTPCREL) in the code's RELA section
    parsed = elf_loader._Object(obj)  # noqa: SLF001
    rela = next(s for s in parsed.sections if s.type == 4 and s.name.endswith("text"))
    patched = bytearray(obj)
    info_at = rela.offset + 8
    (info,) = struct.unpack_from("<Q", patched, info_at)
    struct.pack_into("<Q", patched, info_at, (info >> 32) << 32 | 9)
    with pytest.raises(elf_loader.Unsupported, match="relocation type 9"):
        elf_loader.load([bytes(patched)], jit.system_symbol)


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the loader takes x86-64 objects")
def test_missing_symbol_is_named():
    with pytest.raises(elf_loader.MissingSymbol) as info:
        elf_loader.load([_object(uuid.uuid4().hex)], lambda name: None)
    assert info.value.args[0] == ["sinf"]


def test_bad_loader_setting_is_refused(monkeypatch):
    monkeypatch.setenv("XMUX_LOADER", "orc")
    with pytest.raises(XmuxError, match="XMUX_LOADER must be 'native' or 'mcjit'"):
        jit.compile_ir(_ir(uuid.uuid4().hex), disk_cache=False)


def test_no_host_identity_for_a_named_cpu_model(monkeypatch):
    monkeypatch.setenv("XMUX_CPU", "znver3")
    assert host_record._identity() is None  # noqa: SLF001
    monkeypatch.delenv("XMUX_CPU")
    if Path("/proc/cpuinfo").exists():
        assert len(host_record._identity() or "") == 64  # noqa: SLF001


_WARM = """
import json, sys
import numpy as np
import xmux
n = 1 << 12
a = np.arange(n, dtype=np.float32); b = np.full(n, 0.5, np.float32); c = np.zeros(n, np.float32)
prog = xmux.compile(open(sys.argv[1]).read())
prog.kernel("vecadd")(a, b, c, global_size=(n,), local_size=(64,))
print(json.dumps({"ok": bool(np.array_equal(c, a + b)), "loader": prog.jit.loader,
                  "binding": "llvmlite.binding" in sys.modules}))
"""


@pytest.mark.skipif(os.uname().machine != "x86_64" or not Path("/proc/cpuinfo").exists(),
                    reason="the warm start without LLVM is x86-64 Linux's")
def test_warm_start_runs_without_llvm(tmp_path):
    """A second process finds the host's facts and the objects in the disk cache: it loads
    and runs the kernel without importing llvmlite's binding."""
    kernel = Path(__file__).resolve().parent.parent / "bench" / "kernels" / "vecadd.mlir"
    env = {**os.environ, "XMUX_CACHE_DIR": str(tmp_path / "warm"), "XMUX_SYNC_BUILDS": "1"}
    env.pop("XMUX_CACHE", None)
    env.pop("XMUX_CPU", None)  # a named model is asked of LLVM in every process (host_record)
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", _WARM, str(kernel)], env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert runs[0]["ok"] and runs[1]["ok"]
    assert runs[0]["binding"]  # the first process compiled
    assert runs[1] == {"ok": True, "loader": "native", "binding": False}
    assert list((tmp_path / "warm" / "host").glob("*.json"))
