"""A launch: work-groups one after another; inside a group, work-items with real barriers.

Without a barrier-like op reachable from the kernel, the work-items of a group simply run
one after another on the calling thread. Otherwise each work-item runs on a Python thread of
its own (xDSL's interpreter recurses through regions, so a work-item's state at a barrier *is*
its Python stack), strictly one at a time: the scheduler (the calling thread) hands a token to
each runnable work-item in local linear id order and waits until it reaches its next barrier
or returns. When every work-item waits, they must all wait at the same op reached through
the same calls: the collective is resolved (``mux.resolve_collective``) and the next round
starts. Sub-group ops only need the sub-group's work-items. Anything else is a divergent
barrier (``DivergentBarrierError``). An error in one work-item aborts the group: waiting
threads are woken with an abort flag, unwind, and are joined before the error is raised.
"""

from __future__ import annotations

import math
import threading
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.utils.scoped_dict import ScopedDict

from xmux.dialects import mux
from xmux.errors import XmuxError
from xmux.runtime.interpreter.core import Shared, XInterpreter, enclosing_function, op_text
from xmux.runtime.interpreter.errors import DivergentBarrierError, InterpretError

READY, RUNNING, WAITING, DONE, ERROR = range(5)

#: threads of a group need room for the interpreter's recursion (nested regions, calls)
_THREAD_STACK = 16 << 20


#: xDSL's per-interpreter scope stack, unused by ``XInterpreter`` (a flat frame dict):
#: one shared instance spares building one per work-item
_UNUSED_SCOPE = ScopedDict(name="unused")


class _Abort(BaseException):
    """Unwinds a waiting work-item's thread when its group is aborted."""


def _ids(lid: Sequence[int], dim: int) -> str:
    return "(" + ", ".join(str(v) for v in lid[:dim]) + ")"


class WorkItem:
    """One work-item: its ids, interpreter, and (threaded groups) thread and token."""

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
        self.error: BaseException | None = None
        #: the token of the pool thread running this work-item (threaded groups)
        self.go: threading.Semaphore | None = None
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
        self.abort = False
        self.to_sched = threading.Semaphore(0)
        self.round: list[WorkItem] = []
        self.pos = 0
        sx, sy, _ = self.size
        self.items = [
            WorkItem(self, (i % sx, (i // sx) % sy, i // (sx * sy)), i) for i in range(self.n)
        ]
        n = launch.sub_group_size
        self.sub_groups = [self.items[i : i + n] for i in range(0, self.n, n)]
        self.args = launch.group_args(self)

    # -- running -------------------------------------------------------------------------
    def run(self) -> None:
        if self.launch.needs_threads and self.n > 1:
            self._run_threaded()
            return
        with np.errstate(all="ignore"):
            for wi in self.items:
                wi.state = RUNNING
                try:
                    self.launch.run_item(wi)
                except XmuxError:
                    raise
                except Exception as e:
                    raise self.launch.internal_error(e, wi) from e
                wi.state = DONE

    def _run_threaded(self) -> None:
        """Rounds: the token goes from each runnable work-item to the next (``_yielded``),
        the last hands it back to the scheduler, which resolves the barrier."""
        pool = self.launch.pool
        runnable = list(self.items)
        try:
            while runnable:
                self.round, self.pos = runnable, 0
                self._start(runnable[0])
                self.to_sched.acquire()
                failed = next((w for w in runnable if w.state == ERROR), None)
                if failed is not None:
                    assert failed.error is not None
                    raise failed.error
                runnable = self._next_round()
        except BaseException:
            self.abort = True
            waiting = [w for w in self.items if w.state == WAITING]
            for w in waiting:
                w.go.release()  # type: ignore[union-attr]
            for _ in waiting:
                pool.unwound.acquire()
            raise

    def _start(self, wi: WorkItem) -> None:
        wi.state = RUNNING
        if wi.go is None:
            self.launch.pool.assign(wi)
        else:
            wi.go.release()

    def _yielded(self, wi: WorkItem) -> None:
        """``wi`` stopped (barrier, return or error): pass the token on."""
        if wi.state != ERROR:
            self.pos += 1
            if self.pos < len(self.round):
                self._start(self.round[self.pos])
                return
        self.to_sched.release()

    def item_main(self, wi: WorkItem) -> bool:
        """Run ``wi`` on a pool thread; False when it was aborted while waiting."""
        try:
            with np.errstate(all="ignore"):
                self.launch.run_item(wi)
            wi.state = DONE
        except _Abort:
            return False
        except XmuxError as e:
            wi.error, wi.state = e, ERROR
        except BaseException as e:  # noqa: BLE001 - reported by the scheduler
            wi.error, wi.state = self.launch.internal_error(e, wi), ERROR
            wi.error.__cause__ = e
        return True

    def sync(self, wi: WorkItem, op: Operation, scope: str, payload: Any) -> Any:
        """Called by a work-item at a barrier-like op: returns the op's result for it."""
        from xmux.runtime.interpreter.mux import resolve_collective

        members = self.items if scope == "work_group" else self.sub_groups[wi.sg_id]
        if len(members) == 1:
            (result,) = resolve_collective(op, [wi], [payload], self)
            self._advance(scope, members)
            return result
        if wi.go is None:
            raise InterpretError(
                f"internal: barrier-like op reached in a group run without threads at "
                f"{wi.interp.where(op)}"
            )
        wi.pending = (scope, op, tuple(wi.interp.stack), payload)
        wi.state = WAITING
        self._yielded(wi)
        wi.go.acquire()
        if self.abort:
            raise _Abort()
        wi.pending = None
        return wi.result

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


class _Worker:
    """A pool thread: runs one work-item at a time (its stack is the work-item's state)."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.go = threading.Semaphore(0)
        self.wi: WorkItem | None = None
        self.thread = threading.Thread(target=self._loop, daemon=True, name="xmux-interp")
        self.thread.start()

    def _loop(self) -> None:
        while True:
            self.go.acquire()
            wi = self.wi
            if wi is None:
                return
            finished = wi.group.item_main(wi)
            wi.go = None
            self.wi = None
            self.pool.free.append(self)
            if finished:
                wi.group._yielded(wi)
            else:
                self.pool.unwound.release()


class Pool:
    """Threads for the work-items of one launch, reused group after group (starting a
    thread costs more than interpreting a short kernel)."""

    def __init__(self) -> None:
        self.free: list[_Worker] = []
        self.all: list[_Worker] = []
        self.unwound = threading.Semaphore(0)

    def assign(self, wi: WorkItem) -> None:
        if self.free:
            w = self.free.pop()
        else:
            old = threading.stack_size()
            threading.stack_size(_THREAD_STACK)
            try:
                w = _Worker(self)
            finally:
                threading.stack_size(old)
            self.all.append(w)
        w.wi = wi
        wi.go = w.go
        w.go.release()

    def close(self) -> None:
        for w in self.all:
            w.wi = None
            w.go.release()
        for w in self.all:
            w.thread.join()
        self.all.clear()
        self.free.clear()


class Launch:
    """One kernel launch over an NDRange (normalised to 3-D)."""

    def __init__(
        self, module: ModuleOp, kernel: func.FuncOp, shared: Shared, args: list[Any],
        local_args: dict[int, Any], *, work_dim: int, global_size: tuple[int, int, int],
        local_size: tuple[int, int, int], global_offset: tuple[int, int, int],
        sub_group_size: int, races: bool, needs_threads: bool,
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
        self.needs_threads = needs_threads

    def run(self) -> None:
        ng = self.num_groups
        self.pool = Pool()
        try:
            for gz in range(ng[2]):
                for gy in range(ng[1]):
                    for gx in range(ng[0]):
                        Group(self, (gx, gy, gz)).run()
        finally:
            self.pool.close()

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
