"""The compile-time measures of xmux/stages.py and xmux/gc_tuning.py (issue 33 item 2): passes
that have nothing to do are not run, with the same IR and the same inspection as when they
run; the collector's thresholds come back after a compile."""

from __future__ import annotations

import gc
import io

import pytest

from xmux import pipelines, stages
from xmux.gc_tuning import YOUNG_THRESHOLD, fewer_collections
from xmux.runtime.jit import host_target

KERNEL = """
func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  %w = arith.addf %v, %v : f32
  memref.store %w, %a[%i] : memref<?xf32>
  func.return
}
"""

AFFINE = KERNEL.replace("%w = arith.addf %v, %v : f32",
                        "%w = arith.addf %v, %v : f32\n"
                        "  affine.for %j = 0 to 2 {\n  }")


def _compile(text: str, skipping: bool = True, **inspect: object) -> tuple[str, list[str]]:
    """The printed llvm-dialect module and the names of the passes that ran."""
    from xdsl.printer import Printer

    ran: list[str] = []
    passes = pipelines.complete(pipelines.cpu(), host_target())
    for p in passes:  # record each apply (on the instance: the classes stay as they are)
        object.__setattr__(p, "apply", (lambda f, n: lambda *a: (ran.append(n), f(*a)))(
            p.apply, p.name))
    saved = dict(stages.SKIPPED_WITHOUT)
    if not skipping:
        stages.SKIPPED_WITHOUT.clear()
    try:
        module = stages.parse(text)
        insp = stages.Inspection(**inspect) if inspect else None  # type: ignore[arg-type]
        stages.run_pipeline(module, passes, inspect=insp)
    finally:
        stages.SKIPPED_WITHOUT.update(saved)
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue(), ran


def test_passes_without_their_ops_are_skipped_with_the_same_result() -> None:
    fast, ran = _compile(KERNEL)
    slow, ran_all = _compile(KERNEL, skipping=False)
    assert fast == slow
    assert set(ran_all) - set(ran) == set(stages.SKIPPED_WITHOUT)
    assert "convert-to-llvm" in ran


def test_a_pass_whose_ops_are_there_runs() -> None:
    _, ran = _compile(AFFINE)
    assert "lower-affine-upstream" in ran and "lower-vector-transfers" not in ran


def test_a_skipped_pass_is_still_inspected_and_timed() -> None:
    stream = io.StringIO()
    _, ran = _compile(KERNEL, print_ir_after=("lower-scf-forall",), stream=stream, timing=True)
    assert "lower-scf-forall" not in ran
    assert "// -----// IR Dump After lower-scf-forall //----- //" in stream.getvalue()


def test_a_user_callback_turns_skipping_off() -> None:
    seen: list[str] = []
    _, ran = _compile(KERNEL, callback=lambda p, m: seen.append(p.name))
    assert "lower-scf-forall" in ran and "lower-scf-forall" in seen


def test_the_thresholds_come_back() -> None:
    before = gc.get_threshold()
    with fewer_collections():
        with fewer_collections():
            assert gc.get_threshold()[0] == max(YOUNG_THRESHOLD, before[0])
        assert gc.get_threshold()[0] == max(YOUNG_THRESHOLD, before[0])
    assert gc.get_threshold() == before


def test_a_failing_compile_restores_the_thresholds_too() -> None:
    before = gc.get_threshold()
    with pytest.raises(Exception, match="cannot parse"):
        stages.parse("func.func @k( {")
    assert gc.get_threshold() == before


def test_a_child_forked_during_a_compile_starts_with_the_thresholds() -> None:
    import os

    before = gc.get_threshold()
    with fewer_collections():
        pid = os.fork()
        if pid == 0:  # the child: the process's thresholds, and the lock free
            ok = gc.get_threshold() == before
            with fewer_collections():
                ok = ok and gc.get_threshold()[0] == max(YOUNG_THRESHOLD, before[0])
            os._exit(0 if ok and gc.get_threshold() == before else 1)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
