"""The warm start's shortcuts keep their guarantees (issue 33, "warm disk cache"): the source
digest of the cache key is memoized on the files' stamp yet changes with any edit; runtime
symbols are registered when code that calls them loads (``jit.provide``), so a kernel without
host code loads no host module while one with prints and launches still gets them."""

from __future__ import annotations

import ctypes
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

from tests.kernel_texts import VECADD
from xmux.runtime import jit
from xmux.targets.driver import source_digest

ROOT = Path(__file__).resolve().parents[1]


def _tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_the_source_digest_changes_with_any_edit_and_not_with_a_touch(tmp_path):
    src, cache = tmp_path / "src", tmp_path / "cache"
    _tree(src, {"xmux/a.py": "A = 1\n", "runtime/b.py": "B = 2\n", "other/c.py": "C\n"})
    first = source_digest(src, cache)
    assert len(list((cache / "code").iterdir())) == 1  # the stamp's record
    assert source_digest(src, cache) == first
    assert source_digest(src, None) == first  # no cache: the same digest, computed

    os.utime(src / "xmux/a.py")  # touched: a new stamp, the same content
    assert source_digest(src, cache) == first
    assert len(list((cache / "code").iterdir())) == 2

    (src / "xmux/a.py").write_text("A = 3\n")  # the same size, another content
    edited = source_digest(src, cache)
    assert edited != first
    (src / "other/c.py").write_text("changed outside xmux's folders\n")
    assert source_digest(src, cache) == edited
    (src / "runtime/d.py").write_text("")  # an added module
    added = source_digest(src, cache)
    assert added not in (first, edited)
    (src / "runtime/d.py").rename(src / "runtime/e.py")  # renamed
    assert source_digest(src, cache) not in (first, edited, added)


def test_a_damaged_digest_record_is_recomputed(tmp_path, capsys):
    src, cache = tmp_path / "src", tmp_path / "cache"
    _tree(src, {"abi/a.py": "A = 1\n"})
    good = source_digest(src, cache)
    (record,) = (cache / "code").iterdir()
    record.write_text(record.read_text().replace(good, "0" * 64))
    assert source_digest(src, cache) == good
    assert "damaged cache file" in capsys.readouterr().err


_PROVIDED = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(lambda x: 3 * x + 1)


def test_a_provided_symbol_is_registered_when_code_calling_it_loads():
    calls = []

    def install() -> None:
        calls.append(1)
        jit.register_symbol("xmux_test_provided", ctypes.cast(_PROVIDED, ctypes.c_void_p).value)

    jit.provide(["xmux_test_provided"], install)
    assert calls == []
    ir = ("declare i64 @xmux_test_provided(i64)\n"
          "define i64 @f(i64 %x) {\n  %r = call i64 @xmux_test_provided(i64 %x)\n"
          "  ret i64 %r\n}\n")
    module = jit.compile_ir(ir, disk_cache=False)
    f = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(module.address("f"))
    assert f(5) == 16 and calls == [1]
    jit.compile_ir(ir.replace("@f(", "@g("), disk_cache=False)
    assert calls == [1]  # registered: not installed again


CHILD = r"""
import json, sys
import numpy as np
import xmux
from xmux.runtime import host_symbols
prog = xmux.compile(sys.argv[1])
a = np.arange(256, dtype=np.float32)
c = np.empty_like(a)
prog.kernel("vecadd")(a, a, c, global_size=(256,), local_size=(64,))
state = {"ok": bool((c == 2 * a).all()), "warm": prog.llvm_ir is None,
         "host_module": "host module" in host_symbols._installed,
         "loaded": [m for m in ("xmux.runtime.spec_state", "xmux.runtime.spec_table",
                                "xmux.abi.spec_types", "xmux.runtime.gpu_printf",
                                "xmux.kernel_info") if m in sys.modules]}
xmux.compile(sys.argv[2]).run_main()  # host code: mux.launch, memref.alloc, printMemrefF32
print(json.dumps(state))
"""


def _child(cache_dir: Path) -> tuple[dict, np.ndarray]:
    env = {**os.environ, "XMUX_CACHE": "1", "XMUX_CACHE_DIR": str(cache_dir)}
    r = subprocess.run([sys.executable, "-c", CHILD, VECADD, str(ROOT / "examples" / "saxpy.mlir")],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    printed = re.search(r"data =\s*\[(.*?)\]", r.stdout, re.S)
    assert printed, r.stdout[-2000:]
    return (json.loads(r.stdout.strip().splitlines()[-1]),
            np.array(re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", printed.group(1)), float))


def test_a_warm_kernel_loads_no_host_module_and_host_code_still_runs(tmp_path):
    i = np.arange(4096)
    expected = np.where(i >= 96, 1.5 * i + (3.0 - i), 3.0 - i)  # saxpy.mlir's @main
    for warm in (False, True):
        state, y = _child(tmp_path)
        assert state["ok"] and state["warm"] == warm, state
        assert not state["host_module"], state  # vecadd has no host code
        if warm:  # nor specialization constants: their modules, and xDSL's, stay unloaded
            assert state["loaded"] == [], state
        np.testing.assert_allclose(y, expected, rtol=1e-6)
