"""lower-kernel-asserts: a failed ``cf.assert`` in kernel code raises in Python, it does not abort.

MLIR's cf-to-llvm lowers ``cf.assert`` to a call of ``abort`` (what the lowering in
``lowering/to_llvm/cf.py`` still does for host code, xmux-run's ``@main``): inside a JIT in the
user's Python process that kills the process. This pass, run on every entry point and every
function the entry points call (after ``prepare-barriers``, so in every build), replaces each
``cf.assert %ok, "msg"`` by a report through the checking mode's channel
(``runtime/checks.py``): ``xmux_check_failed`` with the message (naming the kernel), the
work-item's local id and its group id. The runtime keeps the first failure, stops a launch
from the main thread between work-groups (``runtime/interrupt.py``) and the launch call raises
it as a ``CheckError``. The work-item goes on past the failed assertion, as any code after a
check does: what the assertion guarded is not guarded any more (with ``checks=True`` every
memory access and division still is).

Expects: kernel code (no host ops). Guarantees: no ``cf.assert`` in the functions reached from
entry points; ``xmux_check_failed`` declared where a report was made.

Before::

    cf.assert %ok, "n must be positive"

After::

    %true = arith.constant true
    %failed = arith.xori %ok, %true : i1
    scf.if %failed {
      %msg = llvm.mlir.addressof @"xmux.check.0" : !llvm.ptr   // "kernel @k: assertion failed: ..."
      ... local and group ids ...
      func.call @xmux_check_failed(%msg, %c0, ...) : (...) -> ()
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, cf, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i1
from xdsl.ir import Block, Region
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from xmux.dialects import attrs
from xmux.transforms.insert_bounds_checks import Sites, declare_check_fn, reached, report_ops


@dataclass(frozen=True)
class LowerKernelAsserts(ModulePass):
    """Lower ``cf.assert`` in kernel code to a failure reported to Python, not an abort."""

    name = "lower-kernel-asserts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        sites: Sites | None = None
        for f in reached(op):
            kernel = f.sym_name.data
            where = f"kernel @{kernel}" if attrs.is_entry_point(f) else f"@{kernel}"
            for a in [o for o in f.walk() if isinstance(o, cf.AssertOp)]:
                sites = sites or Sites(op)
                site = sites.message(f"{where}: assertion failed: {a.msg.data}")
                true = arith.ConstantOp(IntegerAttr(1, i1))
                failed = arith.XOrIOp(a.arg, true.result)
                report = Block()
                report.add_ops([*report_ops(site, [], []), scf.YieldOp()])
                Rewriter.replace_op(
                    a, [true, failed, scf.IfOp(failed.result, [], Region(report))], []
                )
        if sites is not None:
            declare_check_fn(op)
