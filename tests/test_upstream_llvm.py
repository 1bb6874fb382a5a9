"""xmux's lowered output is upstream llvm-dialect text: every example lowered with the cpu
pipeline (``xmux-opt -p <pipelines.spec(pipelines.cpu())>``) parses in mlir-opt-19, custom
and generic form, and translates with ``mlir-translate-19 --mlir-to-llvmir`` into LLVM IR
with the loop metadata xmux's own emission (runtime/emit.py) gives; the NVPTX target's
lowered modules too; and the llvm ops' round-trip files read back from mlir-opt-19's output
unchanged. Skipped where the tools (Debian's ``mlir-19-tools``) are not installed."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from xdsl.parser import Parser
from xdsl.printer import Printer

from tests.inprocess_cli import xmux_opt
from xmux import pipelines
from xmux.registry import make_context
from xmux.runtime.emit import emit_text

MLIR_OPT = shutil.which("mlir-opt-19")
MLIR_TRANSLATE = shutil.which("mlir-translate-19")
ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir")) + sorted(
    (ROOT / "examples" / "gpu").glob("*.mlir")
)

pytestmark = pytest.mark.skipif(
    MLIR_OPT is None or MLIR_TRANSLATE is None,
    reason="mlir-opt-19 / mlir-translate-19 (mlir-19-tools) are not installed",
)


def _run(args: list[str], stdin: str | None = None) -> str:
    proc = subprocess.run(args, input=stdin, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"{' '.join(args[:2])}: {proc.stderr}"
    return proc.stdout


def _lower(path: Path, target: str = "cpu", **options: object) -> str:
    """The module as ``xmux-opt FILE -p <the target's pipeline>`` prints it."""
    spec = pipelines.spec(pipelines.for_target(target, **options))
    return _xmux_opt([str(path), "-p", spec])


def _upstream(text: str) -> str:
    """``text`` without the module's ``xmux.target`` attribute (``#xmux.target<...>``, the
    target the passes read, which no upstream dialect defines), and nothing else of xmux's."""
    text = re.sub(r"xmux\.target = #xmux\.target<[^>]*>(, )?", "", text)
    assert "#xmux" not in text, "an xmux attribute besides the target is left in the output"
    return text


def _generic(text: str) -> str:
    """xmux's generic form of ``text`` (as ``xmux-opt --print-op-generic`` prints it)."""
    module = Parser(make_context(), text).parse_module()
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    return out.getvalue()


def _loop_metadata(llvm_ir: str) -> tuple[set[str], int, int]:
    """The loop property nodes (node numbers and spacing normalized), the number of loops
    with ``!llvm.loop`` and of instructions with ``!llvm.access.group``."""
    props = set()
    for line in llvm_ir.splitlines():
        compact = line.replace(" ", "")
        m = re.match(r"^!\d+=(?:distinct)?!\{(.*)\}$", compact)
        if m and '"llvm.loop.' in compact:
            props.add(re.sub(r"!\d+", "!N", m.group(1)).replace("i1false", "i10"))
    return (
        props,
        len(re.findall(r"!llvm\.loop !\d+", llvm_ir)),
        len(re.findall(r"!llvm\.access\.group !\d+", llvm_ir)),
    )


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_lowered_example_is_upstream_llvm(path: Path):
    lowered = _lower(path)
    assert "llvmx." not in lowered
    _run([MLIR_OPT], _upstream(lowered))
    _run([MLIR_OPT], _upstream(_generic(lowered)))
    upstream_ir = _run([MLIR_TRANSLATE, "--mlir-to-llvmir"], _upstream(lowered))
    own_ir = emit_text(Parser(make_context(), lowered).parse_module())
    assert _loop_metadata(upstream_ir) == _loop_metadata(own_ir)


def test_work_item_loops_keep_parallel_accesses():
    # vecadd's work-item loop: upstream's translation marks it parallel, its accesses in
    # the loop's group, as xmux's own emission does
    lowered = _lower(ROOT / "examples" / "vecadd.mlir")
    assert "loop_annotation = #llvm.loop_annotation<" in lowered
    upstream_ir = _run([MLIR_TRANSLATE, "--mlir-to-llvmir"], _upstream(lowered))
    loop = re.search(r"!llvm\.loop (!\d+)", upstream_ir)
    assert loop is not None
    node = re.search(rf"^{loop.group(1)} = distinct !\{{(.*)\}}$", upstream_ir, re.M)
    assert node is not None
    refs = re.findall(r"!\d+", node.group(1))
    groups = [
        g
        for r in refs
        for g in re.findall(
            rf'^{r} = !\{{!"llvm.loop.parallel_accesses", (!\d+)\}}$', upstream_ir, re.M
        )
    ]
    assert len(groups) == 1
    loads = re.findall(rf"= load float, ptr .*!llvm\.access\.group {groups[0]}\b", upstream_ir)
    assert len(loads) == 2  # a[i], b[i]
    assert re.search(rf"store float .*!llvm\.access\.group {groups[0]}\b", upstream_ir)


def test_vectorized_work_item_loops_keep_hints():
    # vector_width=8: the main loop asks for width 8 without unrolling, the tail for none
    lowered = _lower(ROOT / "examples" / "vecadd.mlir", vector_width=8)
    upstream_ir = _run([MLIR_TRANSLATE, "--mlir-to-llvmir"], _upstream(lowered))
    own_ir = emit_text(Parser(make_context(), lowered).parse_module())
    props, _, _ = _loop_metadata(upstream_ir)
    assert {
        '!"llvm.loop.vectorize.width",i328',
        '!"llvm.loop.unroll.disable"',
        '!"llvm.loop.vectorize.width",i321',
        '!"llvm.loop.vectorize.enable",i10',
        '!"llvm.loop.interleave.count",i321',
    } <= props
    assert _loop_metadata(upstream_ir) == _loop_metadata(own_ir)


@pytest.mark.parametrize(
    "name", ["reduce_local.mlir", "acc_sum.mlir", "gpu/dynamic_shared_memory.mlir"]
)
def test_nvptx_output_is_upstream_llvm(name: str):
    # the NVPTX target's lowered module (shared memory in address space 3, atomics, fences)
    lowered = _lower(ROOT / "examples" / name, target="nvptx")
    _run([MLIR_OPT], _upstream(_generic(lowered)))
    assert "addrspace(3)" in _run([MLIR_TRANSLATE, "--mlir-to-llvmir"], _upstream(lowered))


# The round-trip files of tests/filecheck/llvm_upstream in forms LLVM 19 has (uitofp.mlir's
# `nneg` and overflow.mlir's `llvm.trunc ... overflow<nsw>` are LLVM 20's).
ROUND_TRIPS = [
    "addrspacecast",
    "atomicrmw",
    "cmpxchg",
    "extractelement",
    "fence",
    "fptosi",
    "fptoui",
    "loop_annotation",
    "switch",
]


def _xmux_opt(args: list[str], stdin: str | None = None) -> str:
    proc = xmux_opt(args, stdin)
    assert proc.returncode == 0, f"xmux-opt {' '.join(args[:1])}: {proc.stderr}"
    return proc.stdout


@pytest.mark.parametrize("name", ROUND_TRIPS)
def test_op_round_trips_through_mlir_opt(name: str):
    path = ROOT / "tests" / "filecheck" / "llvm_upstream" / f"{name}.mlir"
    ours = _xmux_opt([str(path)])
    assert _run([MLIR_OPT], _generic(ours))  # upstream reads xmux's generic form
    upstream = _run([MLIR_OPT], ours)  # ... and its custom form; xmux reads upstream's back
    assert _normalized(_xmux_opt([], upstream)) == _normalized(ours)


def _normalized(text: str) -> str:
    """``text`` with value and block names, and distinct ids numbered by first use."""
    text = re.sub(r"%[\w.$-]+", "%v", text)
    text = re.sub(r"\^[\w.$-]+", "^b", text)
    ids: dict[str, int] = {}
    return re.sub(
        r"distinct\[(\d+)\]", lambda m: f"distinct[{ids.setdefault(m[1], len(ids))}]", text
    )
