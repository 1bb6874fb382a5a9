"""dialects/xdsl_fast.py (the ``irdl_fast_paths`` and ``irdl_constraint_cache`` patches of
dialects/xdsl_compat.py) against xDSL's own builder, verifier and constraints: the same
printed IR and the same errors. ``tests/xdsl_fast_corpus.py`` does this on the whole
filecheck corpus, the examples and the bench kernels (about a minute); here a sample."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from xdsl_fast_corpus import compare, xdsl_own  # noqa: E402

import xmux.registry  # noqa: E402, F401 - applies the patches
from xmux.dialects import xdsl_fast  # noqa: E402

SAMPLE = [
    ROOT / "bench" / "kernels" / "matmul_tiled.mlir",  # scf.for nests, local memory, barriers
    ROOT / "bench" / "kernels" / "histogram.mlir",  # atomics
    ROOT / "tests" / "filecheck" / "convert_to_llvm" / "memref.mlir",
    ROOT / "tests" / "filecheck" / "mux" / "verify_collectives.mlir",  # verifier errors
    ROOT / "tests" / "filecheck" / "spec" / "verify.mlir",
]


@pytest.mark.parametrize("path", [p for p in SAMPLE if p.exists()], ids=lambda p: p.name)
def test_parse_verify_and_pipeline_match_xdsl(path: Path) -> None:
    assert compare([path], pipeline=path.parent.name == "kernels") == []


def _addi() -> object:
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import i32
    from xdsl.ir import Block

    b = Block(arg_types=[i32, i32])
    return arith.AddiOp(b.args[0], b.args[1]), b


def test_fast_paths_are_taken_for_simple_ops() -> None:
    from xdsl.dialects import arith, func, memref, scf

    assert xdsl_fast._plan(arith.AddiOp) is not None  # noqa: SLF001
    assert xdsl_fast._plan(memref.LoadOp).operands.variadic == 1  # noqa: SLF001
    assert xdsl_fast._plan(func.CallOp) is not None  # noqa: SLF001
    assert xdsl_fast._plan(scf.ForOp).regions  # noqa: SLF001 - built by xDSL's builder


def test_a_type_error_is_xdsls_own_message() -> None:
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import f32, i32
    from xdsl.ir import Block
    from xdsl.utils.exceptions import VerifyException

    b = Block(arg_types=[i32, f32])
    bad = arith.AddiOp(b.args[0], b.args[1])
    with pytest.raises(VerifyException) as fast:
        bad.verify()
    with xdsl_own(), pytest.raises(VerifyException) as own:
        bad.verify()
    assert str(fast.value) == str(own.value)
    assert "operand 'rhs' at position 1 does not verify" in str(fast.value)


def test_a_wrong_operand_count_is_xdsls_own_error() -> None:
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import i32
    from xdsl.ir import Block

    b = Block(arg_types=[i32, i32, i32])
    with pytest.raises(ValueError, match="Expected 2 operand, but got 3"):
        arith.AddiOp.build(operands=list(b.args), result_types=[i32])
    with pytest.raises(ValueError, match="passed Sequence to non-variadic"):
        arith.AddiOp.build(operands=[b.args[:2], b.args[2]], result_types=[i32])


def test_constraints_of_a_hint_are_made_once() -> None:
    import xdsl.irdl
    from xdsl.dialects.builtin import ArrayAttr, IntAttr

    made = xdsl.irdl.irdl_to_attr_constraint(ArrayAttr[IntAttr])
    assert xdsl.irdl.irdl_to_attr_constraint(ArrayAttr[IntAttr]) is made
    with xdsl_own():
        assert xdsl.irdl.irdl_to_attr_constraint(ArrayAttr[IntAttr]) == made


def test_every_loaded_op_format_parses() -> None:
    """Assembly formats are parsed on an op's first parse or print (``lazy_formats``): every
    format of every dialect a context loads must still be one xDSL accepts, found here, not
    by the first user of the op."""
    from xmux.registry import get_all_dialects

    lazy = 0
    for name, load in get_all_dialects().items():
        for op in load().operations:
            program = getattr(op, "_xmux_format_program", None)
            if program is not None:
                lazy += 1
                assert program() is not None, (name, op.name)
    assert lazy > 0  # the dialects this process imported after the patch


@pytest.mark.parametrize("first", ["xmux.transforms.add_entry_hook", "xmux.lowering.to_llvm",
                                   "xmux.dialects.mux"])
def test_importing_a_pass_or_dialect_first_parses_no_format(first: str) -> None:
    """A process whose first xmux import is a pass or dialect module (the background compile
    server lowering a variant, a user's own pipeline) gets the lazy formats too: the patches
    come with the package (179 formats parsed at import before, ~0.25 s)."""
    import subprocess

    probe = (
        "from xdsl.irdl import declarative_assembly_format as daf\n"
        "calls = []\n"
        "orig = daf.FormatProgram.from_str\n"
        "daf.FormatProgram.from_str = staticmethod(lambda *a: calls.append(1) or orig(*a))\n"
        f"import {first}\n"
        "from xdsl.dialects import arith, llvm, memref, scf\n"
        "print(len(calls))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.strip()) == 0


def test_a_fresh_process_defines_ops_without_parsing_formats() -> None:
    """In a fresh process the dialects a context loads after xmux's patches parse no format
    until an op is parsed or printed; the round trip is xDSL's."""
    import subprocess

    probe = (
        "import xmux.registry\n"
        "from xdsl.irdl import declarative_assembly_format as daf\n"
        "calls = []\n"
        "orig = daf.FormatProgram.from_str\n"
        "daf.FormatProgram.from_str = staticmethod(lambda *a: calls.append(1) or orig(*a))\n"
        "from xdsl.dialects import arith, llvm\n"
        "assert calls == [], len(calls)\n"
        "from xmux.stages import parse\n"
        "m = parse('%a = arith.constant 1 : i32\\n%b = arith.addi %a, %a : i32\\n')\n"
        "assert 'arith.addi %a, %a : i32' in str(m), str(m)\n"
        "print(len(calls))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert 1 <= int(done.stdout.strip()) <= 6  # the formats of the ops used, not ~200
