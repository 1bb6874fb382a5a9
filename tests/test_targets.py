"""Targets, CompileOptions and the launch facts read from the kernels' attributes (issue 30;
docs/architecture.md, "Targets")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xmux
from xmux.errors import XmuxError
from xmux.options import CompileOptions
from xmux.targets import CpuTarget, NvptxTarget, resolve

ROOT = Path(__file__).resolve().parent.parent
VECADD = ROOT / "examples" / "vecadd.mlir"

UNMARKED = """
func.func @twice(%a: memref<?xf32>) {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  %w = arith.addf %v, %v : f32
  memref.store %w, %a[%i] : memref<?xf32>
  func.return
}
"""


def test_options_are_checked_once_naming_the_field() -> None:
    with pytest.raises(XmuxError, match=r"xmux.compile: oacc_expansion must be one of "
                       r"\('cpu', 'host'\), got 'gpu'"):
        CompileOptions(oacc_expansion="gpu")  # type: ignore[arg-type]
    with pytest.raises(XmuxError, match="xmux.compile: force_no_tail must be True or False"):
        CompileOptions(force_no_tail="yes")  # type: ignore[arg-type]
    with pytest.raises(XmuxError, match="oacc_expansion applies to the default pipeline"):
        CompileOptions(pipeline=(), oacc_expansion="host")


def test_unset_options_come_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("XMUX_TUNE", "0")
    monkeypatch.setenv("XMUX_CHECK_PLAN", "1")
    opts = CompileOptions()
    assert opts.tune is False and opts.check_plan is True and opts.checks is False


def test_oacc_target_is_the_former_name_of_oacc_expansion() -> None:
    assert CompileOptions.of(oacc_target="host").oacc_expansion == "host"
    with pytest.raises(XmuxError, match="oacc_target must be one of"):
        CompileOptions.of(oacc_target="gpu")
    with pytest.raises(XmuxError, match="give one of them"):
        CompileOptions.of(oacc_target="host", oacc_expansion="cpu")


def test_the_cache_key_part_is_derived_from_the_fields_that_change_code() -> None:
    cpu, gpu = CpuTarget(), NvptxTarget("sm_80")
    base = CompileOptions(cache=True)
    key = base.key(cpu)
    assert key is not None and key.startswith("pipeline=None,spec_constants='native'")
    # runtime-only fields never split the cache
    assert base.replace(threads=3, tune=False, specialize=False).key(cpu) == key
    assert base.replace(vector_width=8).key(cpu) != key
    # a target reads its own options only
    assert "vector_width" in key and "vector_width" not in (base.key(gpu) or "")


def test_a_target_refuses_the_options_it_does_not_read() -> None:
    with pytest.raises(XmuxError, match="sub_group_size applies to the cpu target, not nvptx"):
        CompileOptions(sub_group_size=4).check_target(NvptxTarget("sm_80"))
    with pytest.raises(XmuxError, match="target must be 'cpu' or 'nvptx', got 'tpu'"):
        resolve("tpu")


def test_compile_takes_a_target_object_and_an_options_object() -> None:
    prog = xmux.compile(VECADD, target=CpuTarget(), options=CompileOptions(cache=False))
    a = np.arange(64, dtype=np.float32)
    c = np.empty_like(a)
    prog["vecadd"](a, a, c, global_size=64, local_size=16)
    np.testing.assert_array_equal(c, 2 * a)
    with pytest.raises(XmuxError, match="either as keywords or as options="):
        xmux.compile(VECADD, vector_width=8, options=CompileOptions())


def test_nvptx_target_object_names_its_arch() -> None:
    prog = xmux.compile(ROOT / "examples" / "saxpy.mlir", target=NvptxTarget("sm_80"),
                        cache=False)
    assert prog.arch == "sm_80" and ".target sm_80" in prog.ptx


def test_the_launch_facts_come_from_the_entry_points_attributes() -> None:
    from xmux import pipelines
    from xmux.dialects import attrs
    from xmux.kernel_info import collect_kernel_infos
    from xmux.stages import parse, run_pipeline

    module = parse(VECADD.read_text())
    run_pipeline(module, pipelines.cpu(vector_width=8))
    (entry,) = attrs.launch_entries(module)
    assert entry.sym_name.data == "vecadd.mux-entry-hook"  # type: ignore[attr-defined]
    (info,) = collect_kernel_infos(module)
    assert (info.name, info.symbol, info.vector_width) == (
        "vecadd", "vecadd.mux-entry-hook", 8)
    assert [(a.name, a.written) for a in info.args] == [("a", False), ("b", False), ("c", True)]


def test_a_pipeline_without_the_record_is_completed() -> None:
    """A user pipeline of its own gets attach-target and record-kernel-abi first."""
    from xmux import pipelines

    passes = [p for p in pipelines.cpu() if p.name not in ("attach-target", "record-kernel-abi")]
    completed = pipelines.complete(passes, CpuTarget().attribute())
    assert [p.name for p in completed[:2]] == ["attach-target", "record-kernel-abi"]
    assert xmux.compile(VECADD, pipeline=passes, cache=False).kernel_names == ["vecadd"]


def test_a_kernel_marked_by_transfer_kernel_metadata_is_found() -> None:
    """Kernel metadata was taken before the first pass not on a list of metadata passes:
    lower-generic-atomic-rmw, before transfer-kernel-metadata, hid unmarked kernels."""
    prog = xmux.compile(UNMARKED, cache=False)
    a = np.arange(8, dtype=np.float32)
    prog["twice"](a, global_size=8)
    np.testing.assert_array_equal(a, 2 * np.arange(8, dtype=np.float32))
