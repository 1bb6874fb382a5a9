"""prepare-barriers: inline functions that reach a barrier, give barriers unique ids.

Re-creates the reference's PrepareBarriersPass together with PoCL's "Flatten" step, for what
``work-item-loops`` needs from kernels with barriers:

* **Inlining.** A kernel that calls a function which (transitively) contains a barrier-like op
  (``mux.is_barrier_like``: control barriers, work-/sub-group collectives and shuffles) gets
  that call inlined, repeatedly, until every barrier-like op of the kernel is in the kernel's
  own body: barrier regions are formed inside one function. A single-block callee is inlined
  anywhere; a multi-block (CFG) callee only where the call sits directly in a block of the
  kernel's body (the block is split, ``func.return`` becomes a branch to the continuation).
  Functions reaching a barrier that were called before and are not called any more are
  removed (they cannot run outside a kernel). Barrier-free callees are left alone.
* **Recursion** among the functions a kernel reaches is an error naming the cycle (OpenCL
  forbids it; deep recursion would overflow a worker's stack).
* **Unique ids.** Every ``mux.work_group_barrier``, ``mux.sub_group_barrier`` and work-group
  collective of an entry point gets a distinct ``id``: 1, 2, ... in program (walk) order, so
  later passes (and vectorized copies of a kernel) can name barrier regions. Running the pass
  twice gives the same ids.

Expects: entry points marked ``mux.kernel = "entry_point"``. Guarantees: entry points contain
no call to a function with a barrier-like op; barrier ids are unique per entry point.

Before::

    func.func private @sync(%v: f32) -> f32 {
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
      func.return %v : f32
    }
    func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
      ...
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
      %w = func.call @sync(%v) : (f32) -> f32
      ...
    }

After (``@sync`` had no other caller, so it is gone)::

    func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
      ...
      mux.work_group_barrier id 1, work_group, <acq_rel, work_group_memory>
      mux.work_group_barrier id 2, work_group, <acq_rel, work_group_memory>
      ...            // %w replaced by %v
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import cf, func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import NotSupportedError, XmuxError
from xmux.dialects import attrs, mux

PASS = "prepare-barriers"


def _functions(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}


def _calls(f: func.FuncOp) -> list[func.CallOp]:
    return [op for op in f.walk() if isinstance(op, func.CallOp)]


def barrier_functions(module: ModuleOp) -> set[str]:
    """Names of the functions that contain a barrier-like op or call one that does."""
    funcs = _functions(module)
    callers: dict[str, set[str]] = {name: set() for name in funcs}
    reached: set[str] = set()
    for name, f in funcs.items():
        for op in f.walk():
            if mux.is_barrier_like(op):
                reached.add(name)
            elif isinstance(op, func.CallOp) and op.callee.string_value() in funcs:
                callers[op.callee.string_value()].add(name)
    stack = list(reached)
    while stack:
        for caller in callers[stack.pop()]:
            if caller not in reached:
                reached.add(caller)
                stack.append(caller)
    return reached


def _check_recursion(module: ModuleOp, with_barriers: set[str]) -> None:
    """No call cycle among the functions kernels reach: OpenCL forbids recursion (a work-item
    runs on a small stack), and a cycle through a function that reaches a barrier could not
    be flattened anyway."""
    funcs = _functions(module)
    graph = {name: [c.callee.string_value() for c in _calls(f)] for name, f in funcs.items()}
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    path: list[str] = []

    def visit(name: str) -> None:
        state[name] = 1
        path.append(name)
        for callee in graph[name]:
            if callee not in graph:
                continue
            if state.get(callee) == 1:
                cycle = path[path.index(callee) :] + [callee]
                named = " -> ".join(f"@{n}" for n in cycle)
                if any(n in with_barriers for n in cycle):
                    raise XmuxError(
                        f"{PASS}: recursion through a barrier: {named} (functions that "
                        "reach a barrier are inlined into the kernel, which is impossible "
                        "for a recursive call)"
                    )
                raise XmuxError(
                    f"{PASS}: recursion in kernel @{path[0]}: {named} (OpenCL C forbids "
                    "recursion in kernel code)"
                )
            if callee not in state:
                visit(callee)
        path.pop()
        state[name] = 2

    for kernel in attrs.entry_points(module):
        name = kernel.sym_name.data
        if name in graph and name not in state:
            visit(name)


def _inline_single_block(call: func.CallOp, callee: func.FuncOp) -> None:
    body = callee.body.block
    mapping: dict[SSAValue, SSAValue] = dict(zip(body.args, call.arguments, strict=True))
    ip = InsertPoint.before(call)
    ret = body.last_op
    assert isinstance(ret, func.ReturnOp)
    for op in body.ops:
        if op is ret:
            break
        Rewriter.insert_op(op.clone(value_mapper=mapping), ip)
    results = [mapping.get(v, v) for v in ret.arguments]
    for old, new in zip(call.results, results, strict=True):
        old.replace_all_uses_with(new)
    Rewriter.erase_op(call)


def _inline_cfg(call: func.CallOp, callee: func.FuncOp, kernel: func.FuncOp) -> None:
    """Inline a multi-block callee at a call in a block of the kernel's body region."""
    block = call.parent_block()
    assert block is not None
    region = kernel.body
    # The ops after the call move to a continuation block taking the call's results.
    cont = Block(arg_types=[r.type for r in call.results])
    region.insert_block_after(cont, block)
    ops = list(block.ops)
    for op in ops[ops.index(call) + 1 :]:
        op.detach()
        cont.add_op(op)
    for old, new in zip(call.results, cont.args, strict=True):
        old.replace_all_uses_with(new)
    copy = callee.body.clone()
    blocks = list(copy.blocks)
    for b in blocks:
        copy.detach_block(b)
    region.insert_block_after(blocks, block)
    for b in blocks:
        ret = b.last_op
        if isinstance(ret, func.ReturnOp):
            Rewriter.replace_op(ret, cf.BranchOp(cont, *ret.arguments))
    Rewriter.insert_op(cf.BranchOp(blocks[0], *call.arguments), InsertPoint.before(call))
    Rewriter.erase_op(call)


def _inline_calls(kernel: func.FuncOp, module: ModuleOp, with_barriers: set[str]) -> None:
    funcs = _functions(module)
    while True:
        calls = [c for c in _calls(kernel) if c.callee.string_value() in with_barriers]
        if not calls:
            return
        for call in calls:
            callee = funcs[call.callee.string_value()]
            name = callee.sym_name.data
            if not callee.body.blocks:
                raise XmuxError(f"{PASS}: @{name} reaches a barrier but has no body")
            if len(callee.body.blocks) == 1:
                _inline_single_block(call, callee)
            elif call.parent_block() in list(kernel.body.blocks):
                _inline_cfg(call, callee, kernel)
            else:
                raise NotSupportedError(
                    f"{PASS}: cannot inline @{name} (several blocks, reaches a barrier) into "
                    f"structured control flow of kernel @{kernel.sym_name.data}; call it from "
                    "the kernel's top level or write it with scf ops"
                )


def _called(module: ModuleOp) -> set[str]:
    return {c.callee.string_value() for f in _functions(module).values() for c in _calls(f)}


_ID_OPS = (mux.WorkGroupBarrierOp, mux.SubGroupBarrierOp)


def has_barrier_id(op: Operation) -> bool:
    """Ops that carry a barrier id: control barriers and work-group collectives."""
    return isinstance(op, _ID_OPS) or (
        isinstance(op, mux.GroupCollectiveOp) and op.group_scope == "work_group"
    )


def number_barriers(kernel: func.FuncOp) -> int:
    """Give the kernel's barrier-like ops ids 1, 2, ... in walk order; return the count."""
    n = 0
    for op in kernel.walk():
        if has_barrier_id(op):
            n += 1
            op.properties["id"] = IntegerAttr(n, i32)
    return n


@dataclass(frozen=True)
class PrepareBarriersPass(ModulePass):
    """Inline callees that reach barriers into kernels and give each barrier a unique id."""

    name = "prepare-barriers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with_barriers = barrier_functions(op)
        kernels = attrs.entry_points(op)
        _check_recursion(op, with_barriers)
        if with_barriers:
            called_before = _called(op)
            for kernel in kernels:
                _inline_calls(kernel, op, with_barriers)
            self._remove_dead(op, with_barriers & called_before)
        for kernel in kernels:
            number_barriers(kernel)

    @staticmethod
    def _remove_dead(module: ModuleOp, with_barriers: set[str]) -> None:
        """Drop functions reaching barriers that were called and are not any more."""
        while True:
            funcs = _functions(module)
            called = _called(module)
            dead = [
                f
                for name, f in funcs.items()
                if name not in called
                and not attrs.is_kernel(f)
                and name in with_barriers
            ]
            if not dead:
                return
            for f in dead:
                Rewriter.erase_op(f)
