"""docs/coverage.md is current: one row per op xmux registers in the upstream dialects (a new op
without a row fails), and a few rows checked again against what the code does now."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _gen():
    spec = importlib.util.spec_from_file_location("gen_coverage", ROOT / "docs" / "gen_coverage.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_coverage", module)
    spec.loader.exec_module(module)
    return module


gen = _gen()
ROWS = gen.parse_table((ROOT / "docs" / "coverage.md").read_text())


def test_every_registered_op_has_a_row():
    want = set(gen.all_op_names())
    missing = sorted(want - set(ROWS))
    extra = sorted(set(ROWS) - want)
    assert not missing and not extra, (
        "docs/coverage.md is stale (run `python docs/gen_coverage.py`): "
        f"ops without a row {missing}, rows without an op {extra}"
    )


def test_rows_are_well_formed():
    values = {"yes", "no", "n/a", "—"}
    for name, row in ROWS.items():
        cells = {row[c] for c in gen.COLUMNS}
        assert cells <= values, (name, row)
        if "no" in cells:  # a gap says why
            assert row["reason"], name


def test_an_op_without_sample_is_a_no_row():
    row = gen._check_row("gpu.not_an_op", None, False)
    assert [row[c] for c in gen.COLUMNS if c != "mlir-opt-19"] == ["no"] * 4
    assert row["reason"] == "no sample; not registered in xmux"


#: rows checked again (kernel, host and module samples; cheap ones)
RECHECK = ("arith.addi", "gpu.shuffle", "scf.parallel")


@pytest.mark.parametrize("name", RECHECK)
def test_row_matches_the_code(name):
    ops = gen.registered_ops()
    row = gen._check_row(name, gen.sample_for(name, ops), name in ops)
    for col in gen.COLUMNS:
        if col == "mlir-opt-19" and gen.MLIR_OPT is None:
            continue
        assert row[col] == ROWS[name][col], (name, col, row)


def test_a_failing_column_is_reported_with_its_reason():
    """A sample that cannot parse: a 'no' row with the parser's message, nothing run after."""
    row = gen._check_row("arith.addi", gen.K("%r = arith.addi %i0, %f0 : i32"), True)
    assert row["parse"] == "no" and row["cpu"] == "—"
    assert "parse:" in row["reason"] and "f32" in row["reason"]
