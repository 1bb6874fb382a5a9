"""Upstream ``gpu`` dialect kernels through xmux.compile (no option) against numpy, and the
errors unsupported gpu ops get."""

from __future__ import annotations

import numpy as np
import pytest

import xmux
from xmux.errors import XmuxError

SUBGROUP = """
gpu.module @k {
  gpu.func @sg(%x: memref<?xf32>, %out: memref<?xf32>, %c4: memref<?xf32>,
               %c2s2: memref<?xi32>, %shf: memref<?xf32>, %ok: memref<?xi32>) kernel {
    %i = gpu.global_id x
    %v = memref.load %x[%i] : memref<?xf32>
    %s = gpu.subgroup_reduce add %v : (f32) -> f32
    memref.store %s, %out[%i] : memref<?xf32>
    %m = gpu.subgroup_reduce maxnumf %v cluster(size = 4) : (f32) -> f32
    memref.store %m, %c4[%i] : memref<?xf32>
    %vi = arith.fptosi %v : f32 to i32
    %o = gpu.subgroup_reduce or %vi cluster(size = 2, stride = 2) : (i32) -> i32
    memref.store %o, %c2s2[%i] : memref<?xi32>
    %one = arith.constant 1 : i32
    %w = arith.constant 7 : i32
    %d, %valid = gpu.shuffle down %v, %one, %w : f32
    memref.store %d, %shf[%i] : memref<?xf32>
    %vz = arith.extui %valid : i1 to i32
    memref.store %vz, %ok[%i] : memref<?xi32>
    gpu.return
  }
}
"""


def test_subgroup_reduce_and_shuffle_match_numpy():
    prog = xmux.compile(SUBGROUP)
    n, sg = 64, 32
    x = np.random.default_rng(1).integers(0, 100, n).astype(np.float32)
    out, c4, shf = (np.zeros(n, np.float32) for _ in range(3))
    c2s2, ok = np.zeros(n, np.int32), np.zeros(n, np.int32)
    prog.kernel("sg")(x, out, c4, c2s2, shf, ok, global_size=(n,), local_size=(n,))
    lane = np.arange(n) % sg
    groups = x.reshape(-1, sg)
    np.testing.assert_array_equal(out, np.repeat(groups.sum(1), sg))
    np.testing.assert_array_equal(c4, np.repeat(x.reshape(-1, 4).max(1), 4))
    xi = x.astype(np.int32)
    # clusters of 2 lanes 2 apart: lanes {0, 2}, {1, 3}, {4, 6}, ...
    partner = np.arange(n) ^ 2
    np.testing.assert_array_equal(c2s2, xi | xi[partner])
    src = lane + 1
    valid = src < 7
    np.testing.assert_array_equal(ok, valid.astype(np.int32))
    expect = np.where(valid, x[np.minimum(np.arange(n) + 1, n - 1)], x)
    np.testing.assert_array_equal(shf[valid], expect[valid])
    np.testing.assert_array_equal(shf[~valid], x[~valid])


ALLREDUCE = """
gpu.module @k {
  gpu.func @red(%x: memref<?xf32>, %out: memref<?xf32>) kernel {
    %t = gpu.thread_id x
    %b = gpu.block_id x
    %d = gpu.block_dim x
    %base = arith.muli %b, %d : index
    %i = arith.addi %base, %t : index
    %v = memref.load %x[%i] : memref<?xf32>
    %s = gpu.all_reduce add %v {} : (f32) -> f32
    %m = gpu.all_reduce minnumf %v uniform {} : (f32) -> f32
    %r = arith.subf %s, %m : f32
    memref.store %r, %out[%i] : memref<?xf32>
    gpu.return
  }
}
"""


@pytest.mark.parametrize("local", [1, 7, 64])
def test_all_reduce_per_block_matches_numpy(local):
    prog = xmux.compile(ALLREDUCE)
    n = local * 5
    x = np.arange(n, dtype=np.float32) % 11
    out = np.zeros(n, np.float32)
    prog.kernel("red")(x, out, global_size=(n,), local_size=(local,))
    blocks = x.reshape(-1, local)
    np.testing.assert_allclose(out, np.repeat(blocks.sum(1) - blocks.min(1), local))


@pytest.mark.parametrize("body, op", [
    ("%l = gpu.lane_id\n gpu.warp_execute_on_lane_0(%l)[16] { }",
     "gpu.warp_execute_on_lane_0' in @f: a warp of 16 lanes"),
])
def test_unsupported_device_ops_are_named(body, op):
    src = f"gpu.module @k {{ gpu.func @f() kernel {{ {body}\n gpu.return }} }}"
    with pytest.raises(XmuxError, match=op):
        xmux.compile(src)


REGION = """
gpu.module @k {
  gpu.func @f(%x: memref<?xi32>, %out: memref<?xi32>) kernel {
    %t = gpu.thread_id x
    %ty = gpu.thread_id y
    %dx = gpu.block_dim x
    %row = arith.muli %ty, %dx : index
    %l = arith.addi %row, %t : index
    %b = gpu.block_id x
    %dy = gpu.block_dim y
    %per = arith.muli %dx, %dy : index
    %base = arith.muli %b, %per : index
    %i = arith.addi %base, %l : index
    %v = memref.load %x[%i] : memref<?xi32>
    %r = gpu.all_reduce %v {
    ^bb0(%a: i32, %c: i32):
      %gt = arith.cmpi sgt, %a, %c : i32
      %m = arith.select %gt, %a, %c : i32
      %ten = arith.constant 10 : i32
      %s = arith.muli %m, %ten : i32
      %r0 = arith.addi %s, %c : i32
      gpu.yield %r0 : i32
    } : (i32) -> i32
    memref.store %r, %out[%i] : memref<?xi32>
    gpu.return
  }
}
"""


@pytest.mark.parametrize("local", [(1, 1), (3, 1), (4, 2)])
def test_all_reduce_general_region_folds_in_linear_order(local):
    """A region of several ops (not one kind): acc = v0, acc = max(acc, v) * 10 + v in
    local linear order — checked against the same fold in Python."""
    prog = xmux.compile(REGION)
    per = local[0] * local[1]
    groups = 3
    x = np.random.default_rng(2).integers(0, 5, groups * per).astype(np.int32)
    out = np.zeros_like(x)
    prog.kernel("f")(x, out, global_size=(local[0] * groups, local[1]), local_size=local)
    for g in range(groups):
        vals = x[g * per:(g + 1) * per]
        acc = int(vals[0])
        for v in vals[1:]:
            acc = (max(acc, int(v)) * 10 + int(v)) & 0xFFFFFFFF
        acc = acc - (1 << 32) if acc >= 1 << 31 else acc
        np.testing.assert_array_equal(out[g * per:(g + 1) * per], acc)


def test_printf_formats_as_c_printf():
    from xmux.abi.printf_format import format_c

    assert format_c("%lld|%5.2f|%x|%u|%c|%%", [-3, 2.5, 255, 7, 65]) == "-3| 2.50|ff|7|A|%"


VECTOR_SG = """
gpu.module @k {
  gpu.func @v(%x: memref<?xf32>, %out: memref<?xf32>) kernel {
    %i = gpu.global_id x
    %a = memref.load %x[%i] : memref<?xf32>
    %two = arith.constant 2.0 : f32
    %b = arith.mulf %a, %two : f32
    %z = vector.broadcast %a : f32 to vector<2xf32>
    %v = vector.insert %b, %z [1] : f32 into vector<2xf32>
    %r = gpu.subgroup_reduce add %v cluster(size = 4) : (vector<2xf32>) -> vector<2xf32>
    %e0 = vector.extract %r[0] : f32 from vector<2xf32>
    %e1 = vector.extract %r[1] : f32 from vector<2xf32>
    %s = arith.addf %e0, %e1 : f32
    memref.store %s, %out[%i] : memref<?xf32>
    gpu.return
  }
}
"""


def test_vector_subgroup_reduce_is_elementwise():
    n = 32
    x = np.arange(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    xmux.compile(VECTOR_SG).kernel("v")(x, out, global_size=(n,), local_size=(n,))
    np.testing.assert_array_equal(out, np.repeat(x.reshape(-1, 4).sum(1) * 3, 4))


def test_dynamic_shared_memory_over_the_limit_is_refused(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    src = (Path(__file__).resolve().parent.parent / "examples" / "gpu"
           / "dynamic_shared_memory.mlir").read_text()
    big = tmp_path / "big.mlir"
    big.write_text(src.replace("arith.constant 64 : i32", "arith.constant 100000 : i32"))
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from xmux.cli import run_main; sys.exit(run_main())",
         str(big)], capture_output=True, text=True, check=False)
    assert proc.returncode != 0
    assert "dynamic_shared_memory_size above 49152 bytes" in proc.stdout + proc.stderr


def test_sub_group_size_from_the_pipeline():
    """xmux.compile(sub_group_size=8): gpu subgroups are 8 work-items, not a warp of 32."""
    n = 32
    x = np.arange(n, dtype=np.float32)
    out, c4, shf = (np.zeros(n, np.float32) for _ in range(3))
    c2s2, ok = np.zeros(n, np.int32), np.zeros(n, np.int32)
    prog = xmux.compile(SUBGROUP, sub_group_size=8)
    prog.kernel("sg")(x, out, c4, c2s2, shf, ok, global_size=(n,), local_size=(n,))
    np.testing.assert_array_equal(out, np.repeat(x.reshape(-1, 8).sum(1), 8))
    # shuffle down by 1 with width 7: lanes 0..5 of each sub-group of 8 read lane + 1
    lane = np.arange(n) % 8
    np.testing.assert_array_equal(ok, (lane + 1 < 7).astype(np.int32))


def test_printf_from_a_cached_object(tmp_path):
    """The format travels in the module: a second process loading the disk cache prints it."""
    import os
    import subprocess
    import sys

    script = tmp_path / "p.py"
    script.write_text(
        "import numpy as np, xmux\n"
        "src = '''gpu.module @k { gpu.func @p(%x: memref<?xi32>) kernel {\n"
        "  %i = gpu.thread_id x\n"
        "  %v = memref.load %x[%i] : memref<?xi32>\n"
        "  %f = arith.sitofp %v : i32 to f32\n"
        "  gpu.printf \"item %lld: %d %.1f\\\\n\", %i, %v, %f : index, i32, f32\n"
        "  gpu.return } }'''\n"
        "p = xmux.compile(src)\n"
        "p.kernel('p')(np.array([5, -7, 9], np.int32), global_size=(3,), local_size=(3,))\n"
        "from xmux.runtime import jit\n"
        "import sys; print('disk_hits', jit.cache_stats['disk_hits'], file=sys.stderr)\n")
    env = {**os.environ, "XMUX_CACHE_DIR": str(tmp_path / "cache"), "XMUX_CACHE": "1"}
    want = "item 0: 5 5.0\nitem 1: -7 -7.0\nitem 2: 9 9.0\n"
    for run in range(2):  # compiled, then loaded from the disk cache
        proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              env=env, check=False)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == want
        hits = int(proc.stderr.split("disk_hits")[1].split()[0])
        assert (hits > 0) == (run == 1), proc.stderr
    assert any((tmp_path / "cache").iterdir())


NAN_REDUCE = """
gpu.module @k {
  gpu.func @m(%x: memref<?xf32>, %a: memref<?xf32>, %b: memref<?xf32>) kernel {
    %i = gpu.global_id x
    %v = memref.load %x[%i] : memref<?xf32>
    %r = gpu.all_reduce maximumf %v {} : (f32) -> f32
    %s = gpu.subgroup_reduce minimumf %v : (f32) -> f32
    memref.store %r, %a[%i] : memref<?xf32>
    memref.store %s, %b[%i] : memref<?xf32>
    gpu.return
  }
}
"""


def test_maximumf_minimumf_propagate_nan():
    """maximumf / minimumf: a NaN in the group makes the result NaN (maxnumf would drop it)."""
    n = 64
    x = np.arange(n, dtype=np.float32)
    x[40] = np.nan  # second block of 32 (and second subgroup)
    a, b = np.zeros(n, np.float32), np.zeros(n, np.float32)
    xmux.compile(NAN_REDUCE).kernel("m")(x, a, b, global_size=(n,), local_size=(32,))
    np.testing.assert_array_equal(a[:32], 31.0)
    assert np.isnan(a[32:]).all()
    np.testing.assert_array_equal(b[:32], 0.0)
    assert np.isnan(b[32:]).all()
