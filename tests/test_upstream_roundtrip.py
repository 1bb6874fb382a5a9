"""Round trips with upstream MLIR: every example's text as mlir-opt-19 prints it reads into xmux
and runs with the same output, and xmux's printed text (as read, and after the kernel-level
passes) reads into mlir-opt-19. Skipped where mlir-opt-19 is not installed (Debian:
``apt-get install mlir-19-tools``).

Which text goes to mlir-opt-19: xmux's default (custom) form where a module has only upstream
dialects; the generic form with ``--allow-unregistered-dialect`` where it has mux / spec / oacc
ops (mlir-opt-19 reads unregistered ops only in the generic form) or gpu ops newer than LLVM 19;
``--acc-syntax=llvm19`` for acc (LLVM 19 spells reduction recipes differently, and its generic
acc.loop has one operand group fewer).
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.printer import Printer

from xmux.dialects.acc_syntax import llvm19_output
from xmux.registry import make_context

MLIR_OPT = shutil.which("mlir-opt-19")
pytestmark = pytest.mark.skipif(
    MLIR_OPT is None, reason="mlir-opt-19 not installed (Debian package mlir-19-tools)")

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir")) + sorted(
    (ROOT / "examples" / "gpu").glob("*.mlir"))
IDS = [str(p.relative_to(ROOT / "examples")) for p in EXAMPLES]

#: dialects LLVM 19 knows; a module with ops of others goes to it in the generic form
UPSTREAM = {"builtin", "func", "arith", "math", "memref", "scf", "cf", "gpu", "index", "vector",
            "llvm", "acc"}
#: gpu ops whose custom form is newer than LLVM 19's (mlir-opt-19 rejects it)
NEWER_THAN_19 = re.compile(r"gpu\.printf \"|gpu\.subgroup_reduce \w+ %\S+ cluster")
#: ... of which LLVM 19 drops a part it does not know when it reads the generic form
LOSSY_IN_19 = re.compile(r"gpu\.subgroup_reduce \w+ %\S+ cluster")
#: gpu ops LLVM 19 does not have at all (its gpu dialect rejects even their generic form;
#: vector.warp_execute_on_lane_0 is LLVM 19's name of the last): examples using them stay here
UNKNOWN_TO_19 = re.compile(
    r"gpu\.(rotate|subgroup_broadcast|broadcast_lane|warp_execute_on_lane_0)\b")


def _parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def _print(module: ModuleOp, generic: bool = False, llvm19: bool = False) -> str:
    out = io.StringIO()
    if llvm19:
        with llvm19_output():
            Printer(stream=out, print_generic_format=generic).print_op(module)
    else:
        Printer(stream=out, print_generic_format=generic).print_op(module)
    return out.getvalue() + "\n"


def _mlir_opt(text: str, unregistered: bool) -> str:
    args = [MLIR_OPT, "-"] + (["--allow-unregistered-dialect"] if unregistered else [])
    proc = subprocess.run(args, input=text, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"mlir-opt-19 rejected xmux's text:\n{proc.stderr}"
    return proc.stdout


def _for_upstream(module: ModuleOp, source: str) -> tuple[str, bool]:
    """xmux's text of ``module`` that mlir-opt-19 reads, and whether it needs unregistered ops."""
    dialects = {op.name.split(".")[0] for op in module.walk()}
    acc = "acc" in dialects
    if dialects <= UPSTREAM and not NEWER_THAN_19.search(source):
        return _print(module, llvm19=acc), False
    assert not acc, "acc with non-upstream ops: no text LLVM 19 reads"
    return _print(module, generic=True), True


def _run(path: Path, capfd: pytest.CaptureFixture[str]) -> str:
    from xmux.runner import main

    capfd.readouterr()
    rc = main([str(path)])
    out, err = capfd.readouterr()
    assert rc == 0, err
    return re.sub(r"base@ = 0x[0-9a-f]+", "base@ = ADDR", out)


@pytest.mark.parametrize(
    "path", [p for p in EXAMPLES if not UNKNOWN_TO_19.search(p.read_text())],
    ids=lambda p: str(p.relative_to(ROOT / "examples")))
def test_example_through_mlir_opt_19(path: Path, tmp_path: Path, capfd) -> None:
    """xmux → mlir-opt-19 → xmux: mlir-opt-19 reads xmux's text, xmux reads mlir-opt-19's, and
    the program prints what the original prints."""
    source = path.read_text()
    module = _parse(source)
    text, unregistered = _for_upstream(module, source)
    upstream = _mlir_opt(text, unregistered)
    back = tmp_path / path.name
    back.write_text(upstream)
    again = _parse(upstream)
    again.verify()
    if LOSSY_IN_19.search(source):
        return  # LLVM 19's gpu.subgroup_reduce has no cluster: it drops the property
    assert again.is_structurally_equivalent(module)
    assert _run(back, capfd) == _run(path, capfd)


@pytest.mark.parametrize(
    "path", [p for p in EXAMPLES if p.parent.name == "gpu" and not NEWER_THAN_19.search(
        p.read_text()) and not UNKNOWN_TO_19.search(p.read_text())], ids=lambda p: p.name)
def test_mlir_opt_19_output_of_gpu_example_runs(path: Path, tmp_path: Path, capfd) -> None:
    """mlir-opt-19's own reading of an upstream-only example (no xmux in front) runs in xmux."""
    proc = subprocess.run([MLIR_OPT, str(path)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    back = tmp_path / path.name
    back.write_text(proc.stdout)
    assert _run(back, capfd) == _run(path, capfd)


KERNEL_PASSES = ("gpu-launch-outlining,convert-gpu-to-mux,convert-acc-to-oacc,"
                 "lower-sub-group-collectives,transfer-kernel-metadata,lower-spec-constants,expand-oacc-reductions{expansion=cpu},"
                 "convert-mux-launch,lower-scf-parallel,prepare-barriers,"
                 "lower-work-group-collectives,"
                 "work-item-loops,replace-local-module-scope-variables,define-mux-builtins")


@pytest.mark.parametrize("path", EXAMPLES, ids=IDS)
def test_kernel_level_output_reads_in_mlir_opt_19(path: Path) -> None:
    """After the kernel-level passes (before add-kernel-wrapper's llvm structs), xmux's text
    reads into mlir-opt-19, and mlir-opt-19's printing of it reads back into the same IR (ops,
    properties, attributes and types equal; only value names change)."""
    from xmux.pipelines import parse as parse_pipeline

    module = _parse(path.read_text())
    ctx = make_context()
    for p in parse_pipeline(KERNEL_PASSES):
        p.apply(ctx, module)
    module.verify()
    upstream = _mlir_opt(_print(module, generic=True), unregistered=True)
    back = _parse(upstream)
    back.verify()
    assert back.is_structurally_equivalent(module)


def test_llvm19_acc_reduction_form_runs(tmp_path: Path, capfd) -> None:
    """examples/acc_sum.mlir as LLVM 19 writes it (the recipe in the loop's clause, none on
    acc.reduction) runs through xmux-run to the same sum."""
    src = ROOT / "examples" / "acc_sum.mlir"
    with llvm19_output():
        text = _print(_parse(src.read_text()))
    assert "reduction(@add_f64 -> %red : memref<f64>)" in text
    assert "recipe(@add_f64)" not in text
    f = tmp_path / "acc_sum_19.mlir"
    f.write_text(_mlir_opt(text, unregistered=False))
    out = _run(f, capfd)
    assert out.rstrip().endswith("[18000.5]")
    assert out == _run(src, capfd)
