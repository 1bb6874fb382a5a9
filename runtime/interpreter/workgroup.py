"""A launch: work-groups one after another; inside a group, work-items with real barriers.

Without a barrier-like op reachable from the kernel, the work-items of a group simply run
one after another. Otherwise each work-item is a generator (``coroutines.py``) that stops at
every barrier-like op with a request; the scheduler advances every runnable work-item, in
local linear id order, to its next request or to its return. When every work-item waits,
they must all wait at the same op reached through the same calls: the collective is
resolved (``mux.resolve_collective``), each gets its result and the next round starts.
Sub-group ops only need the sub-group's work-items. Anything else is a divergent barrier
(``DivergentBarrierError``, listing where each work-item is). An error in one work-item
propagates at once; the other work-items' generators are closed.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.utils.scoped_dict import ScopedDict

from xmux.abi.errors import XmuxError
from xmux.dialects import mux
from xmux.runtime.interpreter.core import Shared, XInterpreter, enclosing_function, op_text
from xmux.runtime.interpreter.errors import DivergentBarrierError, InterpretError

#: work-item states
READY, RUNNING, WAITING, DONE = range(4)


#: xDSL's per-interpreter scope stack, unused by ``XInterpreter`` (a flat frame dict):
#: one shared instance spares building one per work-item
_UNUSED_SCOPE = ScopedDict(name="unused")


def _ids(lid: Sequence[int], dim: int) -> str:
    return "(" + ", ".join(str(v) for v in lid[:dim]) + ")"


class WorkItem:
    """One work-item: its ids, interpreter and (groups with barriers) generator."""

    def __init__(self, group: Group, lid: tuple[int, int, int], llid: int) -> None:
        self.group = group
        self.lid = lid
        self.llid = llid
        n = group.launch.sub_group_size
        self.sg_id, self.sg_lid = divmod(llid, n)
        self.sg_epoch = 0
        self.state = READY
        self.pending: tuple[str, Operation, tuple[Operation, ...], Any] | None = None
        self.result: Any = None
        #: the work-item as a generator (groups that meet at barriers)
        self.gen: Any = None
        launch = group.launch
        self.interp = XInterpreter(
            launch.module, _impls=launch.shared.impls, _ctx=_UNUSED_SCOPE,
            shared=launch.shared, wi=self, launch=launch,
        )

    @property
    def global_id(self) -> tuple[int, ...]:
        lc = self.group.launch
        return tuple(
            self.group.gid[d] * lc.local_size[d] + self.lid[d] + lc.global_offset[d]
            for d in range(3)
        )

    def same_sub_group(self, llid: int) -> bool:
        return llid // self.group.launch.sub_group_size == self.sg_id

    def describe(self) -> str:
        dim = self.group.launch.work_dim
        return (f"work-item {_ids(self.lid, dim)} (global {_ids(self.global_id, dim)}) of "
                f"work-group {_ids(self.group.gid, dim)}")


class Group:
    """One work-group's execution."""

    def __init__(self, launch: Launch, gid: tuple[int, int, int]) -> None:
        self.launch = launch
        self.gid = gid
        self.size = tuple(
            min(launch.local_size[d], launch.global_size[d] - gid[d] * launch.local_size[d])
            for d in range(3)
        )
        self.n = math.prod(self.size)
        self.epoch = 0
        self.locals: dict[str, Any] = {}
        sx, sy, _ = self.size
        self.items = [
            WorkItem(self, (i % sx, (i // sx) % sy, i // (sx * sy)), i) for i in range(self.n)
        ]
        n = launch.sub_group_size
        self.sub_groups = [self.items[i : i + n] for i in range(0, self.n, n)]
        self.args = launch.group_args(self)

    # -- running -------------------------------------------------------------------------
    def run(self) -> None:
        with np.errstate(all="ignore"):
            if self.launch.meets_at_barriers and self.n > 1:
                self._run_coroutines()
                return
            for wi in self.items:
                wi.state = RUNNING
                try:
                    self.launch.run_item(wi)
                except XmuxError:
                    raise
                except Exception as e:
                    raise self.launch.internal_error(e, wi) from e
                wi.state = DONE

    def _run_coroutines(self) -> None:
        from xmux.runtime.interpreter.coroutines import run_function

        kernel = self.launch.kernel
        try:
            for wi in self.items:
                wi.gen = run_function(wi.interp, kernel, self.args)
            runnable = self.items
            while runnable:
                for wi in runnable:
                    self._step(wi)
                runnable = self._next_round()
        finally:
            for wi in self.items:
                if wi.gen is not None:
                    wi.gen.close()  # unwinds a suspended work-item (its finally blocks)
                    wi.gen = None

    def _step(self, wi: WorkItem) -> None:
        """Run ``wi`` to its next wait (or its return); ops whose group is this work-item
        alone are resolved on the spot."""
        from xmux.runtime.interpreter.mux import resolve_collective

        value, wi.result = wi.result, None
        wi.state = RUNNING
        while True:
            try:
                request = wi.gen.send(value)  # type: ignore[union-attr]
            except StopIteration:
                wi.state, wi.gen = DONE, None
                return
            except XmuxError:
                raise
            except Exception as e:
                raise self.launch.internal_error(e, wi) from e
            scope, op, _, payload = request
            members = self.items if scope == "work_group" else self.sub_groups[wi.sg_id]
            if len(members) > 1:
                wi.pending, wi.state = request, WAITING
                return
            (value,) = resolve_collective(op, [wi], [payload], self)
            self._advance(scope, members)

    def sync(self, wi: WorkItem, op: Operation, scope: str, payload: Any) -> Any:
        """A barrier-like op reached in plain mode: only where its group is one work-item."""
        from xmux.runtime.interpreter.mux import resolve_collective

        members = self.items if scope == "work_group" else self.sub_groups[wi.sg_id]
        if len(members) != 1:
            raise InterpretError(
                f"internal: barrier-like op reached outside a coroutine at "
                f"{wi.interp.where(op)}"
            )
        (result,) = resolve_collective(op, [wi], [payload], self)
        self._advance(scope, members)
        return result

    def _advance(self, scope: str, members: list[WorkItem]) -> None:
        if scope == "work_group":
            self.epoch += 1
        for w in members:
            w.sg_epoch += 1

    def _release(self, scope: str, members: list[WorkItem]) -> list[WorkItem]:
        from xmux.runtime.interpreter.mux import resolve_collective

        keys = {(w.pending[1], w.pending[2]) for w in members}  # type: ignore[index]
        if len(keys) > 1:
            raise self._divergent(scope)
        op = members[0].pending[1]  # type: ignore[index]
        results = resolve_collective(op, members, [w.pending[3] for w in members], self)
        for w, r in zip(members, results, strict=True):
            w.result = r
        self._advance(scope, members)
        return members

    def _next_round(self) -> list[WorkItem]:
        if all(w.state == DONE for w in self.items):
            return []
        runnable: list[WorkItem] = []
        if self.launch.sub_group_size > 1:
            for sg in self.sub_groups:
                if all(w.state == WAITING and w.pending[0] == "sub_group" for w in sg):  # type: ignore[index]
                    runnable += self._release("sub_group", sg)
        if runnable:
            return sorted(runnable, key=lambda w: w.llid)
        if all(w.state == WAITING and w.pending[0] == "work_group" for w in self.items):  # type: ignore[index]
            return self._release("work_group", self.items)
        raise self._divergent("work_group")

    def _divergent(self, scope: str) -> DivergentBarrierError:
        launch = self.launch
        where: dict[str, list[WorkItem]] = defaultdict(list)
        for w in self.items:
            if w.state == DONE:
                where["returned from the kernel"].append(w)
            elif w.state == WAITING:
                assert w.pending is not None
                where[f"wait at {barrier_label(w.pending[1], w.pending[2])}"].append(w)
        dim = launch.work_dim
        lines = []
        for text, ws in where.items():
            ids = ", ".join(_ids(w.lid, dim) for w in ws[:6])
            more = f" and {len(ws) - 6} more" if len(ws) > 6 else ""
            lines.append(f"  {len(ws)} work-item(s) {ids}{more}: {text}")
        what = "work-group" if scope == "work_group" else "sub-group"
        return DivergentBarrierError(
            f"divergent barrier in kernel '{launch.name}', work-group {_ids(self.gid, dim)}: "
            f"the work-items of a {what} did not all reach the same barrier:\n"
            + "\n".join(lines)
        )


_LABELS: dict[Operation, str] = {}


def barrier_label(op: Operation, calls: Sequence[Operation] = ()) -> str:
    """"'mux.work_group_barrier' #2 of @k (text)": the barrier-like op's position among
    those of its function, and the calls it was reached through."""
    label = _LABELS.get(op)
    if label is None:
        f = enclosing_function(op)
        index, fname = 0, "?"
        if f is not None:
            fname = f.sym_name.data
            index = next(
                (i for i, o in enumerate(o for o in f.walk() if mux.is_barrier_like(o))
                 if o is op), -1,
            ) + 1
        label = _LABELS[op] = f"'{op.name}' #{index} of @{fname} ({op_text(op)})"
    if calls:
        return f"{label} via " + " -> ".join(call_label(c) for c in calls)
    return label


def call_label(op: Operation) -> str:
    """"@h (call #2 in @k)": a call site, for barriers reached through calls."""
    label = _LABELS.get(op)
    if label is None:
        f = enclosing_function(op)
        index, fname = 0, "?"
        if f is not None:
            fname = f.sym_name.data
            calls = [o for o in f.walk() if isinstance(o, func.CallOp)]
            index = next(i for i, o in enumerate(calls) if o is op) + 1
        callee = op.callee.string_value()  # type: ignore[attr-defined]
        label = _LABELS[op] = f"@{callee} (call #{index} in @{fname})"
    return label


class Launch:
    """One kernel launch over an NDRange (normalised to 3-D)."""

    def __init__(
        self, module: ModuleOp, kernel: func.FuncOp, shared: Shared, args: list[Any],
        local_args: dict[int, Any], *, work_dim: int, global_size: tuple[int, int, int],
        local_size: tuple[int, int, int], global_offset: tuple[int, int, int],
        sub_group_size: int, races: bool, meets_at_barriers: bool,
    ) -> None:
        self.module = module
        self.kernel = kernel
        self.name = kernel.sym_name.data
        self.shared = shared
        self.args = args
        self.local_args = local_args
        self.work_dim = work_dim
        self.global_size = global_size
        self.local_size = local_size
        self.global_offset = global_offset
        self.num_groups = tuple(-(-g // loc) for g, loc in zip(global_size, local_size,
                                                                 strict=True))
        self.sub_group_size = sub_group_size
        self.races = races
        self.meets_at_barriers = meets_at_barriers

    def run(self) -> None:
        ng = self.num_groups
        for gz in range(ng[2]):
            for gy in range(ng[1]):
                for gx in range(ng[0]):
                    Group(self, (gx, gy, gz)).run()

    def group_args(self, group: Group) -> tuple[Any, ...]:
        """The kernel arguments of one group: fresh local-memory buffers in place of the
        ``LocalMemory`` arguments."""
        if not self.local_args:
            return tuple(self.args)
        args = list(self.args)
        for i, (t, shape, name) in self.local_args.items():
            args[i] = _local_of_shape(t, shape, name, self.races)
        return tuple(args)

    def run_item(self, wi: WorkItem) -> None:
        wi.interp.call_function(self.kernel, wi.group.args)

    def internal_error(self, e: BaseException, wi: WorkItem) -> InterpretError:
        return InterpretError(
            f"interpreter failure ({type(e).__name__}: {e}) at {wi.interp.where()}"
        )


def _local_of_shape(t, shape, name: str, races: bool):
    from xmux.runtime.interpreter.memory import (
        Allocation,
        MemRef,
        contiguous_strides,
        memory_space,
    )
    from xmux.runtime.interpreter.values import int_width, storage_dtype

    dtype = storage_dtype(t.element_type)
    shape = tuple(shape)
    alloc = Allocation.new(math.prod(shape) * dtype.itemsize, name, memory_space(t), local=True,
                           races=races)
    return MemRef(alloc, dtype, 0, 0, shape, contiguous_strides(shape),
                  int_width(t.element_type) is not None)
