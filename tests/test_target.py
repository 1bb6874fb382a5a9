"""The target attribute (#xmux.target): what xmux.compile attaches, what the passes read, and
that nothing depends on the host running xmux-opt."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import xmux
from xmux import pipelines
from xmux.api import parse
from xmux.dialects import attrs
from xmux.dialects.target import DEFAULT_TARGET, TargetAttr
from xmux.errors import XmuxError
from xmux.runtime import jit

ROOT = Path(__file__).resolve().parent.parent

CONV_BOUNDS = (ROOT / "bench" / "kernels" / "conv3x3_bounds.mlir").read_text()


def _host_flags() -> set[str]:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def test_default_target_without_attribute() -> None:
    module = parse("builtin.module {}")
    assert attrs.get_target(module) == DEFAULT_TARGET
    assert DEFAULT_TARGET.accumulator_floats == 128
    assert DEFAULT_TARGET.vector_floats == 16


def test_nested_module_reads_the_nearest_target() -> None:
    module = parse(
        'builtin.module attributes {xmux.target = #xmux.target<"x86_64-unknown-linux-gnu", '
        'chip = "haswell", vector_bits = 256, vector_registers = 16>} {\n'
        "  builtin.module {\n    func.func @f() {\n      func.return\n    }\n  }\n}"
    )
    f = next(op for op in module.walk() if op.name == "func.func")
    target = attrs.get_target(f)
    assert target.chip.data == "haswell"
    assert target.accumulator_floats == 64
    assert target.vector_floats == 8


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ('chip = "znver3", chip = "haswell"', "repeated parameter 'chip'"),
        ("vector_bits = 256", "expected 'chip = \"...\"'"),
        ('chip = "znver3", vector_bits = 96', "vector_bits must be 0 or a power of two"),
    ],
)
def test_bad_attribute_text(params: str, message: str) -> None:
    text = (
        f'builtin.module attributes {{xmux.target = #xmux.target<"x86_64-unknown-linux-gnu", '
        f"{params}>}} {{\n}}"
    )
    with pytest.raises(XmuxError, match=message):
        parse(text)


def test_host_target_reads_the_host() -> None:
    """The host's description follows its CPU flags (whichever host runs the suite)."""
    if os.environ.get("XMUX_CPU"):
        pytest.skip("XMUX_CPU names another model")
    flags = _host_flags()
    if not flags or not {"sse2", "avx"} & flags:
        pytest.skip("not an x86 host with /proc/cpuinfo flags")
    target = jit.host_target()
    expected = 512 if "avx512f" in flags else 256 if "avx" in flags else 128
    assert target.vector_bits == expected
    assert target.vector_registers == (32 if expected == 512 else 16)


@pytest.mark.parametrize(
    ("model", "bits", "registers"),
    [("znver3", 256, 16), ("haswell", 256, 16), ("skylake-avx512", 512, 32)],
)
def test_xmux_cpu_model_target(model: str, bits: int, registers: int) -> None:
    """XMUX_CPU=model: the attached target is the model's, its vector unit read off LLVM."""
    code = (
        "from xmux import pipelines\n"
        "p = pipelines.cpu()[0]\n"
        "print(p.name, p.chip, p.vector_bits, p.vector_registers)\n"
    )
    env = {**os.environ, "XMUX_CPU": model}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["attach-target", model, str(bits), str(registers)]


def test_pipelines_start_with_attach_target() -> None:
    cpu = pipelines.cpu(target=TargetAttr("x86_64-unknown-linux-gnu", "znver3", "", 256, 16))
    assert cpu[0].name == "attach-target" and cpu[0].chip == "znver3"
    ptx = pipelines.nvptx(target=pipelines.nvptx_target("sm_80"))
    assert ptx[0].name == "attach-target" and ptx[0].chip == "sm_80"
    assert ptx[0].triple.startswith("nvptx64")


def test_compiled_module_carries_the_host_target() -> None:
    """xmux.compile attaches the JIT's target; the emitted triple is the module's, not a
    query of the host at emission."""
    seen: list[TargetAttr] = []

    def observe(p, module) -> None:  # noqa: ANN001
        if p.name == "attach-target":
            seen.append(attrs.get_target(module))

    module = parse(CONV_BOUNDS)
    ir_text, _ = xmux.api.compile_to_llvm_ir(module, observe=observe)
    host = jit.host_target()
    assert seen and seen[0].chip.data == host.chip
    assert seen[0].vector_bits.data == host.vector_bits
    assert f'target triple = "{host.triple}"' in ir_text


def test_user_pipeline_gets_the_host_target() -> None:
    passes = [p for p in pipelines.cpu() if p.name != "attach-target"]
    seen: list[str] = []

    def observe(p, module) -> None:  # noqa: ANN001
        seen.append(p.name)

    xmux.api.compile_to_llvm_ir(parse(CONV_BOUNDS), passes, observe=observe)
    assert seen[0] == "attach-target"


@pytest.mark.parametrize("local", [(64, 4), (16, 16), (8, 2)])
def test_bounds_checked_convolution(local: tuple[int, int]) -> None:
    """The bench's bounds-checked stencil (scf.if on the edges inside the tap loops) against
    numpy, on the launch sizes whose local-size variant the cost model sees."""
    rng = np.random.default_rng(1)
    h, w = 37, 70
    img = rng.standard_normal((h, w)).astype(np.float32)
    taps = rng.standard_normal(9).astype(np.float32)
    padded = np.pad(img.astype(np.float64), 1)
    ref = sum(
        taps[3 * j + i] * padded[j : j + h, i : i + w] for j in range(3) for i in range(3)
    )
    k = xmux.compile(CONV_BOUNDS)["conv3x3_bounds"]
    for _ in range(3):  # the later launches run the local-size variant
        out = np.zeros((h, w), np.float32)
        k(img, out, taps, global_size=(w, h), local_size=local)
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("host_features, runs", [("+sse2,+sse4.2,-avx", False),
                                                 ("+avx,+avx2,+fma,-avx512f", None),
                                                 ("+avx2,+avx512f", True)])
def test_a_model_wider_than_the_host_is_refused_at_its_first_launch(monkeypatch, host_features,
                                                                     runs):
    """XMUX_CPU's model builds anywhere, but its code runs only where the host's vector
    registers are as wide: a launch or host code of a wider model is an error naming both,
    not an illegal instruction."""
    from xmux.runtime import host_symbols

    monkeypatch.setenv("XMUX_CPU", "haswell")
    monkeypatch.setattr(jit, "_runs_here", [])
    monkeypatch.setattr(jit, "host_cpu", lambda: ("x86_64-unknown-linux-gnu", "oldchip",
                                                  host_features))
    monkeypatch.setattr(jit, "host_target", lambda: jit.TargetDescription(
        "x86_64-unknown-linux-gnu", "haswell", "", 256, 16))
    reason = jit.cannot_run_here()
    if runs is False:
        assert reason == ("XMUX_CPU=haswell: its code uses 256-bit vector registers, which "
                          "this host (oldchip) lacks (its widest: 128-bit): it cannot run "
                          "here (building for it, as xmux-opt does, works)")
        with pytest.raises(XmuxError, match=r"^host code: XMUX_CPU=haswell: its code uses"):
            host_symbols.call_host(None, 0)  # type: ignore[arg-type]
    else:
        assert reason is None
    monkeypatch.delenv("XMUX_CPU")
    monkeypatch.setattr(jit, "_runs_here", [])
    assert jit.cannot_run_here() is None  # the host's own code


def test_a_launch_of_a_model_the_host_cannot_run_names_the_kernel(monkeypatch):
    text = (
        'func.func @twice(%x: memref<?xf32>) attributes {mux.kernel = "entry_point"} {\n'
        '  %i = mux.get_global_id 0 : index\n'
        '  %v = memref.load %x[%i] : memref<?xf32>\n'
        '  %r = arith.addf %v, %v : f32\n'
        '  memref.store %r, %x[%i] : memref<?xf32>\n'
        '  func.return\n}\n')
    k = xmux.compile(text, cache=False)["twice"]
    monkeypatch.setattr(jit, "_runs_here", ["XMUX_CPU=wide: it cannot run here"])
    x = np.ones(8, np.float32)
    with pytest.raises(XmuxError, match=r"^kernel 'twice': XMUX_CPU=wide: it cannot run here"):
        k(x, global_size=8)
    assert (x == 1).all()
