"""AArch64 as a CPU target: kernels cross-compiled (``xmux-run --emit obj|header --target
aarch64-linux-gnu --chip ...``), linked with aarch64-linux-gnu-gcc and run under
qemu-aarch64. Every launch of every example must give this host's JIT results; the entry
hooks must leave FPCR as they found it; disable-neon-attribute fires on its trigger only.

CI installs qemu-user, gcc-aarch64-linux-gnu and libc6-dev-arm64-cross (.ci/run); without
them these tests skip, naming what is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tests.test_c_api import EXAMPLE_NAMES, EXAMPLES, build_drivers, emit, run_launches
from xmux.cli import c_target, compile_for_c

CC = shutil.which("aarch64-linux-gnu-gcc")
QEMU = shutil.which("qemu-aarch64")
SYSROOT = Path("/usr/aarch64-linux-gnu")
_missing = [n for n, p in (("aarch64-linux-gnu-gcc", CC), ("qemu-aarch64", QEMU)) if p is None]
needs_cross = pytest.mark.skipif(
    bool(_missing),
    reason=f"{' and '.join(_missing)} not installed (apt-get install qemu-user "
    "gcc-aarch64-linux-gnu libc6-dev-arm64-cross)",
)
ENV = {**os.environ, "QEMU_LD_PREFIX": str(SYSROOT)}
CHIPS = ("neoverse-n1", "neoverse-v2", "cortex-a72")


def _qemu(cpu: str = "max") -> list[str]:
    return [QEMU or "qemu-aarch64", "-cpu", cpu]


@needs_cross
@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_example_under_qemu(name, tmp_path):
    """Every launch of every example, built for neoverse-n1 and run under qemu, equals this
    host's JIT (on the calling thread and on 2 threads)."""
    target = ("--target", "aarch64-linux-gnu", "--chip", "neoverse-n1")
    launches, exes = build_drivers(name, tmp_path, [CC], target)
    run_launches(launches, exes, tmp_path, _qemu(), env=ENV)
    run_launches(launches, exes, tmp_path, _qemu(), threads=2, env=ENV)


@needs_cross
@pytest.mark.parametrize("chip", CHIPS)
def test_chips(chip, tmp_path):
    """Each named CPU builds (its own scheduling model and features) and runs."""
    target = ("--target", "aarch64-linux-gnu", "--chip", chip)
    launches, exes = build_drivers("matmul_tiled", tmp_path, [CC], target)
    run_launches(launches, exes, tmp_path, _qemu(), env=ENV)


FPCR_PROBE = textwrap.dedent("""\
    #include <stdint.h>
    #include <stdio.h>
    #include "vecadd.h"
    static uint64_t get_fpcr(void) {
      uint64_t v;
      __asm__ volatile("mrs %0, fpcr" : "=r"(v));
      return v;
    }
    static void set_fpcr(uint64_t v) { __asm__ volatile("msr fpcr, %0" : : "r"(v)); }
    enum { N = 300 };
    static float a[N], b[N], c[N];
    int main(void) {
      /* flush-to-zero (bit 24) and round toward zero (RMode = 3, bits 22-23) */
      const uint64_t mode = (1u << 24) | (3u << 22);
      vecadd_args_t args = { xmux_memref1(a, N), xmux_memref1(b, N), xmux_memref1(c, N) };
      size_t g[1] = {N}, l[1] = {32};
      volatile float tiny = 1e-39f; /* a denormal */
      int i;
      for (i = 0; i < N; ++i) { a[i] = 1.0f; b[i] = 0x1.8p-24f; } /* 1 + 3/4 ulp */
      a[7] = tiny; b[7] = tiny;
      set_fpcr(mode);
      if (vecadd_run(&args, 1, g, l, 0) != XMUX_SUCCESS) return 2;
      if (get_fpcr() != mode) {
        printf("FPCR %llx after the launch\\n", (unsigned long long)get_fpcr());
        return 1;
      }
      set_fpcr(0);
      /* inside the kernel: round to nearest (1 + 3/4 ulp -> 1 + ulp; toward zero: 1),
         denormals kept (flush-to-zero: 0) */
      printf("%a %a %llx\\n", c[0], c[7], (unsigned long long)mode);
      return 0;
    }
    """)


@needs_cross
def test_fpcr_is_restored_after_a_launch(tmp_path):
    """The caller's FPCR (flush-to-zero, round toward zero) is back after the launch; the
    kernel ran with round-to-nearest-even and denormals (the mode add-floating-point-control
    sets on AArch64)."""
    target = ("--target", "aarch64-linux-gnu")
    emit(EXAMPLES / "vecadd.mlir", "obj", tmp_path / "vecadd.o", *target)
    emit(EXAMPLES / "vecadd.mlir", "header", tmp_path / "vecadd.h", *target)
    (tmp_path / "probe.c").write_text(FPCR_PROBE)
    subprocess.run([CC, "-std=gnu99", "-O1", "-Wall", "-Werror", "-o", "probe", "probe.c",
                    "vecadd.o", "-lm"], check=True, cwd=tmp_path)
    proc = subprocess.run([*_qemu(), str(tmp_path / "probe")], capture_output=True, text=True,
                          env=ENV, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    first, denormal, _ = proc.stdout.split()
    assert float.fromhex(first) == 1.0 + 2.0**-23  # to nearest (toward zero: 1.0)
    assert float.fromhex(denormal) == float(np.float32(1e-39) * np.float32(2))  # not flushed


@needs_cross
def test_no_fp_control_keeps_the_callers_mode(tmp_path):
    """``--no-fp-control``: the kernel runs in the caller's mode, flush-to-zero included
    (what the probe above would see without the wrapper)."""
    target = ("--target", "aarch64-linux-gnu", "--no-fp-control")
    emit(EXAMPLES / "vecadd.mlir", "obj", tmp_path / "vecadd.o", *target)
    emit(EXAMPLES / "vecadd.mlir", "header", tmp_path / "vecadd.h", *target)
    (tmp_path / "probe.c").write_text(FPCR_PROBE)
    subprocess.run([CC, "-std=gnu99", "-O1", "-Wall", "-Werror", "-o", "probe", "probe.c",
                    "vecadd.o", "-lm"], check=True, cwd=tmp_path)
    proc = subprocess.run([*_qemu(), str(tmp_path / "probe")], capture_output=True, text=True,
                          env=ENV, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    first, denormal, _ = proc.stdout.split()
    assert float.fromhex(first) == 1.0  # the caller's round toward zero
    assert float.fromhex(denormal) == 0.0  # flushed in the caller's mode


ROUNDS_TWICE = """
func.func @k(%x: memref<?xi64>, %y: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c4 = arith.constant 4 : index
  %b = arith.muli %i, %c4 : index
  %v = vector.load %x[%b] : memref<?xi64>, vector<4xi64>
  %f = llvm.sitofp %v : vector<4xi64> to vector<4xf32>
  vector.store %f, %y[%b] : memref<?xf32>, vector<4xf32>
  func.return
}
"""


def test_disable_neon_in_the_aarch64_pipeline():
    """pipelines.cpu for AArch64 ends in disable-neon-attribute: a kernel with the trigger is
    built without NEON, one without keeps it; x86 never runs the pass."""
    aarch64 = c_target("aarch64-linux-gnu", "neoverse-n1")
    _, _, features = compile_for_c(ROUNDS_TWICE, aarch64)
    assert features.split(",")[-1] == "-neon"
    plain = (EXAMPLES / "vecadd.mlir").read_text()
    assert "-neon" not in compile_for_c(plain, aarch64)[2]
    x86 = c_target("cpu")
    if x86.triple.startswith("x86_64"):  # type: ignore[attr-defined]
        assert "-neon" not in compile_for_c(ROUNDS_TWICE, x86)[2]


@needs_cross
def test_vector_i64_to_f32_rounds_once_under_qemu(tmp_path):
    """The trigger, built for AArch64 (so without NEON) and run: each i64 becomes the f32
    nearest to it (one rounding), e.g. 2^53 + 2^29 + 1 -> 2^53 + 2^30, where i64 -> f64 ->
    f32 rounds to 2^53 (ties to even after the first rounding lost the + 1). (LLVM 20's
    NEON lowering converts such vectors element by element with scvtf s, x, rounding once
    too: this checks the result, not that NEON would have got it wrong.)"""
    mlir = tmp_path / "k.mlir"
    mlir.write_text(ROUNDS_TWICE)
    target = ("--target", "aarch64-linux-gnu")
    emit(mlir, "obj", tmp_path / "k.o", *target)
    emit(mlir, "header", tmp_path / "k.h", *target)
    (tmp_path / "main.c").write_text(textwrap.dedent("""\
        #include <stdio.h>
        #include "k.h"
        static long long x[4] = {9007199791611905LL, 1, -9007199791611905LL, 123456789012345LL};
        static float y[4];
        int main(void) {
          k_args_t args = { xmux_memref1(x, 4), xmux_memref1(y, 4) };
          size_t g[1] = {1};
          if (k_run(&args, 1, g, 0, 0) != XMUX_SUCCESS) return 2;
          printf("%a %a %a %a\\n", y[0], y[1], y[2], y[3]);
          return 0;
        }
        """))
    subprocess.run([CC, "-O1", "-o", "main", "main.c", "k.o"], check=True, cwd=tmp_path)
    proc = subprocess.run([*_qemu(), str(tmp_path / "main")], capture_output=True, text=True,
                          env=ENV, check=False)
    assert proc.returncode == 0, proc.stderr
    got = [float.fromhex(v) for v in proc.stdout.split()]
    want = np.array([9007199791611905, 1, -9007199791611905, 123456789012345],
                    np.int64).astype(np.float32)
    assert got == [float(v) for v in want]
