"""bench/transforms_onoff.py's smoke mode: two of its kernels (the bounds-checked convolution
and the ELLPACK gather) with three transforms turned off, checked against numpy, exit 0 and
a table row of on ÷ off ratios."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "transforms_onoff.py"
SHARED = Path(os.environ.get("BENCH_SHARED", ROOT.parent / "shared" / "bench"))


@pytest.mark.skipif(not (SHARED / "pocl_baseline.py").is_file(),
                    reason="the shared bench baseline (pocl_baseline.py) is not here")
def test_transforms_onoff_quick(tmp_path):
    cmd = [sys.executable, str(SCRIPT), "--quick", "--no-pocl", "--rounds", "2",
           "--only", "conv3x3_bounds,spmv_ell",
           "--transforms", "work-item-unroll-and-jam,work-item-loop-interchange,specialize",
           "--json", str(tmp_path / "out.json")]
    env = dict(os.environ, XMUX_CACHE_DIR=str(tmp_path / "cache"))
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    rows = {m.group(1): m.group(2) for m in
            re.finditer(r"^\| (conv3x3_bounds|spmv_ell) \| [^|]+ \| [0-9.]+ \| [0-9.]+ \|(.*)$",
                        p.stdout, re.M)}  # kernel | size | on ms | A/A | the transforms
    assert set(rows) == {"conv3x3_bounds", "spmv_ell"}, p.stdout[-3000:]
    for row in rows.values():  # unroll-jam, interchange: a ratio or "=" (same IR); specialize
        cells = [c.strip().strip("*") for c in row.split("|")[:3]]
        assert all(c == "=" or re.fullmatch(r"\d+\.\d{3}", c) for c in cells), row
        assert re.fullmatch(r"\d+\.\d{3}", cells[2]), row  # specialize is always timed
    assert (tmp_path / "out.json").is_file()
