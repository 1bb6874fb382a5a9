"""What a fresh process imports: a compile answered from the disk cache, and its launch, none of
xDSL's IR, dialects, parser or passes (about 250 ms of a fresh process: bench/RESULTS.md's warm
text→result row); a cold compile of a plain kernel none of the front doors it does not use
(OpenACC, upstream gpu: ~85 ms, abi/lazy_import.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys
import numpy as np
import xmux
prog = xmux.compile(sys.argv[1])
k = prog.kernel("vecadd")
a = np.arange(256, dtype=np.float32)
c = np.empty_like(a)
k(a, a, c, global_size=(256,), local_size=(64,))
print(json.dumps({"ok": bool((c == 2 * a).all()), "llvm_ir": prog.llvm_ir is not None,
                  "xdsl": sorted(m for m in sys.modules if m.split(".")[0] == "xdsl"),
                  "xmux": sorted(m for m in sys.modules if m.split(".")[0] == "xmux")}))
"""


def _child(cache_dir: Path) -> dict:
    env = {**os.environ, "XMUX_CACHE": "1", "XMUX_CACHE_DIR": str(cache_dir)}
    r = subprocess.run([sys.executable, "-c", CHILD, str(ROOT / "examples" / "vecadd.mlir")],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_a_warm_cache_hit_imports_no_xdsl(tmp_path):
    cold = _child(tmp_path)
    assert cold["ok"] and cold["xdsl"] and cold["llvm_ir"], cold  # it ran the pipeline
    warm = _child(tmp_path)
    assert warm["ok"] and not warm["llvm_ir"], warm  # from the disk cache
    # xmux.errors' base classes (xdsl.utils.exceptions) are light; IR, dialects, parser and
    # passes are what costs
    heavy = [m for m in warm["xdsl"] if m.startswith(
        ("xdsl.ir", "xdsl.irdl", "xdsl.dialects", "xdsl.parser", "xdsl.passes", "xdsl.printer"))]
    assert heavy == [], heavy[:10]


def test_a_cold_compile_imports_no_front_door_the_kernel_does_not_use(tmp_path):
    """vecadd has no acc, gpu or oacc ops: the passes for them, which run in every default
    pipeline, leave it unchanged without importing their dialects or rewriting machinery."""
    cold = _child(tmp_path)
    assert cold["ok"] and cold["llvm_ir"], cold
    unused = [m for m in cold["xdsl"] + cold["xmux"] if m in (
        "xdsl.dialects.acc", "xmux.dialects.gpu", "xmux.dialects.gpu_host", "xmux.dialects.oacc",
        "xmux.transforms.openacc.outline", "xmux.transforms.openacc.expand_cpu")]
    assert unused == [], unused
    # the passes themselves were loaded (they ran)
    assert "xmux.transforms.convert_acc_to_oacc" in cold["xmux"]
    assert "xmux.transforms.convert_gpu_to_mux" in cold["xmux"]
