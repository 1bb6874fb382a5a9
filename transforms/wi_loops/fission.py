"""Structured fission: the three stages of work-item loops with barriers, in order.

``Fission`` is what ``work-item-loops`` and ``work-item-loop-interchange`` call: region
formation (``regions.py``), the storage plan (``storage.py``), emission (``emit.py``). The
input is a *per-work-item program* (the ops of one block, written for a single work-item);
the output is *work-group level* code: work-item loop nests ("segments", one per barrier
region) separated by memory fences, with the control flow that contains barriers lifted to
the work-group level (each lifted ``scf.for``/``scf.while``/``scf.if`` runs once per group
and holds its own nests). ``analyze`` raises ``Unstructured`` for a shape it cannot prove
correct; the caller then falls back to region dispatch (``dispatch.py``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from xmux.transforms.insert_bounds_checks import Sites
from xmux.transforms.wi_loops.emit import Emitter
from xmux.transforms.wi_loops.nests import NestFactory
from xmux.transforms.wi_loops.regions import Regions, form_regions
from xmux.transforms.wi_loops.storage import StoragePlan, plan_storage


class Fission:
    """Rewrites a per-work-item block into work-group level code.

    ``lifted``: ops of scheduled levels to lift (their regions are scheduled levels too).
    ``wi_args``: block arguments of ``block`` that are per work-item (mapped to the nest's
    linear index, e.g. the induction variable of the loop being split).
    ``uniform_dims``: dimensions whose local / global ids are the same for every work-item of
    the nests (the client's nests span only the other dimensions).
    ``single_work_item``: run ``mux.single_work_item`` steps once per group.
    """

    def __init__(
        self,
        block: Block,
        ops: Sequence[Operation],
        lifted: Collection[Operation],
        wi_args: Collection[SSAValue] = (),
        single_work_item: bool = False,
        uniform_dims: Collection[int] = (),
    ) -> None:
        self._args = (block, ops, lifted, wi_args, single_work_item, uniform_dims)
        self.regions: Regions | None = None
        self.plan: StoragePlan | None = None
        self.wi_loops: list[Operation] = []
        """Outermost loops of the nests created (for clients that post-process them)."""

    def analyze(self) -> StoragePlan:
        self.regions = form_regions(*self._args)
        self.plan = plan_storage(self.regions)
        return self.plan

    def emit(self, factory: NestFactory, ip: InsertPoint,
             check: tuple[Sites, str] | None = None) -> None:
        """Emit the group-level code at ``ip`` (after ``analyze``); ``check``: the checking
        mode's divergent-barrier check (``divergence.py``: message sites, kernel name)."""
        assert self.plan is not None, "analyze() first"
        emitter = Emitter(self.plan, factory, check)
        emitter.emit(ip)
        self.wi_loops = emitter.wi_loops
