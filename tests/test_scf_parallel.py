"""scf.parallel with scf.reduce as upstream MLIR writes it (issue 31): programs mlir-opt-19
generates from linalg and from affine loops with iter_args (tests/scf_parallel/, checked in;
regenerated here where mlir-opt-19 is installed) run with xmux-run and in the interpreter
and print what numpy computes; the example with reductions in a kernel does too; the
custom syntax round-trips through mlir-opt-19. Sizes are small and the inputs small
integers, so every result is exact whatever the order of the combinations."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.inprocess_cli import xmux_opt

ROOT = Path(__file__).resolve().parent.parent
GEN_DIR = ROOT / "tests" / "scf_parallel"
sys.path.insert(0, str(GEN_DIR))
import gen  # noqa: E402

MLIR_OPT = shutil.which("mlir-opt-19")


def cuda_available() -> bool:
    from xmux.runtime import cuda

    return cuda.available()


def _printed(out: str) -> list[np.ndarray]:
    """The values of each ``printMemref*`` output of ``out``, flattened."""
    chunks = out.split("Unranked Memref")[1:]
    assert chunks, out
    return [np.array([float(x) for x in re.findall(r"-?[0-9.]+(?:e[-+]?\d+)?",
                                                   c.split("data =", 1)[1])])
            for c in chunks]


def _inputs() -> tuple[np.ndarray, np.ndarray]:
    i, j = np.indices((5, 7))
    a = ((3 * i + 2 * j) % 11 - 5).astype(np.float32)
    i, j = np.indices((7, 4))
    b = ((i + 4 * j) % 7 - 3).astype(np.float32)
    return a, b


def _expected(name: str) -> list[np.ndarray]:
    a, b = _inputs()
    if gen.VARIANTS[name][0] == "linalg.mlir":
        return [np.array([a.sum()]), a.sum(1), a.max(0), (a @ b).ravel()]
    ai = a.astype(np.int64)
    return [np.array([a.sum()]), a.sum(1), (a @ b).ravel(),
            np.array([(ai * ai).sum(), ai.max()])]


def _same(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def _jit(text: str, name: str, capsys: pytest.CaptureFixture[str], target: str = "cpu") -> str:
    from xmux.runner import HostProgram

    capsys.readouterr()
    HostProgram(text, name, target=target).run_main()
    return capsys.readouterr().out


def _interpret(text: str, name: str, capsys: pytest.CaptureFixture[str]) -> str:
    from xmux.interpret import run_host

    capsys.readouterr()
    run_host(text, name)
    return capsys.readouterr().out


@pytest.mark.parametrize("name", list(gen.VARIANTS))
def test_generated_program_runs_exactly(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    text = (GEN_DIR / f"{name}.mlir").read_text()
    want = _expected(name)
    _same(_printed(_jit(text, name, capsys)), want)
    _same(_printed(_interpret(text, name, capsys)), want)


#: the generated programs with kernels (convert-parallel-loops-to-gpu maps no nest holding a
#: reduction: affine_reductions_gpu keeps everything on the host)
GPU_VARIANTS = [n for n in gen.VARIANTS
                if "gpu.launch_func" in (GEN_DIR / f"{n}.mlir").read_text()]


@pytest.mark.parametrize("name", GPU_VARIANTS)
def test_generated_kernels_build_ptx(name: str) -> None:
    import xmux

    prog = xmux.compile(GEN_DIR / f"{name}.mlir", target="nvptx", cache=False)
    assert len(prog.kernel_names) == 3  # rowsum, colmax, matmul (sum is all-reduction: host)
    for k in prog.kernel_names:
        assert f".entry {k}(" in prog.ptx


@pytest.mark.skipif(not cuda_available(), reason="no CUDA device (CuPy)")
@pytest.mark.parametrize("name", GPU_VARIANTS)
def test_generated_program_on_the_gpu(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    text = (GEN_DIR / f"{name}.mlir").read_text()
    _same(_printed(_jit(text, name, capsys, target="nvptx")), _expected(name))


def test_reductions_in_a_kernel_and_on_the_host(capsys: pytest.CaptureFixture[str]) -> None:
    path = ROOT / "examples" / "gpu" / "scf_parallel_reduce.mlir"
    i, j = np.indices((6, 5))
    a = ((3 * i + 2 * j) % 7 - 3).astype(np.float64)
    g = np.arange(6)
    neighbour = g - g % 3 + (g % 3 + 1) % 3  # @rounds: barriers inside the scf.parallel
    want = [a.sum(1), a.max(1), a.sum(1) * a[:, ::2].sum(1), np.array([a.sum()]),
            4 * neighbour + 6]
    _same(_printed(_jit(path.read_text(), path.name, capsys)), want)
    _same(_printed(_interpret(path.read_text(), path.name, capsys)), want)


def test_bad_forms_are_clear_errors() -> None:
    two_types = ("func.func @f(%n: index, %z: f32) {\n"
                 "  %r = scf.parallel (%i) = (%n) to (%n) step (%n) init (%z) -> (f32, f32) {\n"
                 "  }\n  return\n}\n")
    proc = xmux_opt([], two_types)
    assert proc.returncode != 0
    assert "scf.parallel: 1 init value(s) but 2 result type(s)" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_non_positive_step_in_the_interpreter() -> None:
    from xmux.interpret import InterpretError, run_host

    text = ("func.func @main() {\n  %c0 = arith.constant 0 : index\n"
            "  %c4 = arith.constant 4 : index\n"
            "  scf.parallel (%i) = (%c0) to (%c4) step (%c0) {\n  }\n  return\n}\n")
    with pytest.raises(InterpretError, match=r"scf.parallel with steps \[0\]"):
        run_host(text)


needs_mlir_opt = pytest.mark.skipif(MLIR_OPT is None, reason="mlir-opt-19 is not installed")


@needs_mlir_opt
@pytest.mark.parametrize("name", list(gen.VARIANTS))
def test_checked_in_program_is_what_mlir_opt_generates(name: str) -> None:
    assert gen.generate(name) == (GEN_DIR / f"{name}.mlir").read_text(), (
        f"regenerate with: python {GEN_DIR / 'gen.py'}")


@needs_mlir_opt
@pytest.mark.skipif(gen.CPU_RUNNER is None or not all(Path(p).exists() for p in gen.RUNNER_LIBS),
                    reason="mlir-cpu-runner-19 and its runner libraries are not installed")
@pytest.mark.parametrize("name", gen.HOST_ONLY)
def test_upstream_cpu_lowering_prints_the_same(name: str) -> None:
    _same(_printed(gen.upstream_run(name)), _expected(name))


def _mlir_opt(args: list[str], stdin: str) -> str:
    assert MLIR_OPT is not None
    proc = subprocess.run([MLIR_OPT, *args], input=stdin, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@needs_mlir_opt
@pytest.mark.parametrize("generic", [False, True])
def test_round_trip_through_mlir_opt(generic: bool) -> None:
    """mlir-opt reads what xmux prints of mlir-opt's output, and prints it back unchanged."""
    src = (ROOT / "tests" / "filecheck" / "scf" / "parallel_reduce_syntax.mlir").read_text()
    upstream = _mlir_opt(["--mlir-print-op-generic"] if generic else [], src)
    ours = xmux_opt(["--print-op-generic"] if generic else [], upstream)
    assert ours.returncode == 0, ours.stderr
    assert "scf.reduce(" in ours.stdout or generic
    assert _mlir_opt([], ours.stdout) == _mlir_opt([], upstream)
