"""work-item-loops: turn each entry-point kernel into a work-group function.

Re-creates the WorkItemLoopsPass (barrier-free form): the kernel body, written for one
work-item, is wrapped in an ``scf.for`` nest over the work-items of the group, so that one
call of the kernel runs a whole work-group.

* Bounds: the *actual* local size of the group (``mux.get_local_size d``), or constants
  when the kernel has ``mux.reqd_work_group_size``. Dimensions whose size is known to be 1
  (required size 1, or ``d >= mux.max_work_dim``) get no loop, only ``set_local_id d, 0``.
* Order: outermost dimension first per ``mux.work_item_order`` (default x innermost).
* Each loop level starts with ``mux.set_local_id d, %iv`` for the dimension it iterates;
  the innermost loop carries ``mux.work_item_loop``.
* Static private allocations at the top level of the body (``memref.alloca`` of static
  shape, ``llvm.alloca`` of constant size) are hoisted above the nest: each work-item runs
  to completion before the next starts, so one allocation serves all of them and the stack
  does not grow per iteration.
* A multi-block (CFG) body cannot be the body of an ``scf.for``: it is outlined into a
  private function ``@<kernel>.mux-wi-body`` with the kernel's arguments, called from the
  innermost loop (LLVM inlines it back). (``scf.execute_region`` would do too, but xDSL
  0.74 prints a result-less ``scf.execute_region`` without its terminators and
  convert-scf-to-cf does not lower it.)

Barriers (``mux.work_group_barrier``) split the kernel into barrier regions
(the stages of ``transforms/wi_loops/`` have the details):

* **Structured fission** when every op containing a barrier is an ``scf.for``/``scf.while``/
  ``scf.if`` whose control is uniform (work-group values: kernel arguments, constants,
  uniform queries and pure ops of them, lifted loops' induction variables and uniform
  iteration values; or any value when the lifted region runs a barrier unconditionally, which
  OpenCL then requires to be uniform). Each barrier region gets its own loop nest, barriers
  become ``mux.mem_barrier`` fences between the nests, the control flow around them runs once
  per group. Values crossing regions are re-computed when cheap (id arithmetic, casts,
  uniform values) or kept in per-work-item arrays (structure of arrays, indexed by the
  linear work-item index of the nest).
  An ``scf.if`` marked ``mux.single_work_item`` (the combining step of a lowered work-group
  collective, condition ``local linear id == 0``) at the top level of a barrier region gets
  no loop: its body runs once per group as work-item 0 (``mux.set_local_id d, 0`` before it,
  per-work-item values it uses read at index 0), splitting its region in three when other
  ops share it.
* **Region dispatch** otherwise (CFG bodies, barriers under control flow that is not provably
  uniform, e.g. a guarded barrier in a loop whose trip count varies per work-item): the body
  becomes one function per entry, ``@<kernel>.mux-region-<r>(args, lin, state, storage...)
  -> i32``, starting at the kernel entry (r = 0) or after barrier *r* and returning the
  number of the next barrier reached (or the exit); the kernel loops ``while some work-item
  is pending: run every work-item waiting at the lowest barrier through that entry's
  function``. Values live across barriers (or around a loop back edge) are re-computed or
  stored per work-item.
  There, a ``mux.single_work_item`` ``scf.if`` stays as it is (tested per work-item).
* A barrier under ``scf.if``/``scf.while``/``scf.for`` control that provably differs between
  work-items (``local id == x``, a loop bound that is the local id plus a uniform value) is
  an error naming the kernel and barrier. A barrier marked ``mux.sub_group_scope``
  (lower-sub-group-collectives at sub-group size N > 1) need only be uniform within each
  sub-group: control on local id y (z) is accepted when N divides the required size x
  (x·y), and such control is never "uniform by the barrier rule", so it takes region
  dispatch, which moves each sub-group barrier by barrier. ``mux.sub_group_barrier`` left
  for this pass is a fence (sub-groups of one work-item). Work-group collectives must be
  lowered before this pass (``lower-work-group-collectives``), calls reaching barriers
  inlined (``prepare-barriers``).
* Kernels without barriers keep exactly the single loop nest described above.
* ``dump-plan=true`` prints each barrier kernel's storage plan (``wi_loops/storage.py``:
  which value lives in which per-work-item array, what is re-computed, each region edge's
  copies and whether coalescing removed them) to stderr; ``dump-plan=dot`` prints it as one
  Graphviz graph (``wi_loops/plan_graph.py``: barrier regions as nodes, barriers and control
  flow as edges, values crossing them with their storage; ``xmux-opt --view-plan out.svg``
  renders it); ``check-plan=true`` checks that
  every per-work-item array is written before it is read on every path
  (``wi_loops/check.py``) and makes the kernel check it at run time too (a shadow byte per
  slot, ``wi_loops/shadow.py``); the checking mode (``XMUX_CHECKS=1``) turns it on.

Vector + scalar tail scheduling (the reference's "vector + scalar loop" mode), with the
options ``vector-width=W`` (W > 1; default 0 = off) and ``force-no-tail``: every innermost
work-item loop (x with the default order), of every barrier region, becomes a main part
``for xb in [0, (ls / W) * W) step W { for xi in [0, W) { x = xb + xi; body } }`` whose inner
loop (constant trip count W, ``xmux.loop_vectorize_width = W``) LLVM vectorizes exactly W
wide with no remainder of its own, then a scalar tail ``for x in [(ls / W) * W, ls)``
(``xmux.loop_vectorize_width = 1``). "Vector only", no tail loop at all, when
``reqd_work_group_size`` in that dimension is a multiple of W, or with ``force-no-tail``
(then the launcher rejects groups whose size there is not a multiple of W, naming the
kernel; a required size that is not a multiple is an error here). The kernel records
``mux.vector_schedule = array<i64: W, dim, tail>`` for the launcher
(``KernelInfo.vector_width/vector_dim/vector_tail``). Off by default: LLVM's own
vectorization of the plain loop was as fast or faster on the bench kernels.

Expects: entry points marked ``mux.kernel = "entry_point"``, returning nothing. Guarantees:
the kernel keeps its name and arguments; its body is the loop nest(s) followed by
``func.return``. Kernels that already contain ``mux.set_local_id`` are work-group functions
already and are left alone, so the pass can run twice.

Before / after (order xyz, no required size)::

    func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
      %i = mux.get_global_id 0 : index
      ...
      func.return
    }
    // ==>
    func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %ls0 = mux.get_local_size 0 : index
      %ls1 = mux.get_local_size 1 : index
      %ls2 = mux.get_local_size 2 : index
      scf.for %z = %c0 to %ls2 step %c1 {
        mux.set_local_id 2, %z : index
        scf.for %y = %c0 to %ls1 step %c1 {
          mux.set_local_id 1, %y : index
          scf.for %x = %c0 to %ls0 step %c1 {
            mux.set_local_id 0, %x : index
            %i = mux.get_global_id 0 : index
            ...
          } {mux.work_item_loop}
        }
      }
      func.return
    }
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref, scf
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import NotSupportedError, XmuxError
from xmux.dialects import attrs, mux
from xmux.transforms.insert_bounds_checks import Sites, declare_check_fn
from xmux.transforms.uniformity import (
    UniformValues,
    is_control_barrier,
    local_id_offset,
    provably_divergent,
)
from xmux.transforms.wi_loops import (
    Dispatch,
    Fission,
    Nest,
    NestFactory,
    Unstructured,
    check_storage,
    lifts_for_barriers,
    plan_graph,
)
from xmux.transforms.wi_loops.shadow import add_shadow_checks

BODY_SUFFIX = ".mux-wi-body"


def _pass_error(kernel: func.FuncOp, message: str) -> XmuxError:
    return XmuxError(f"work-item-loops: kernel @{kernel.sym_name.data}: {message}").at(kernel)


# ---------------------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------------------


def _callees(op: Operation, symbols: dict[str, func.FuncOp]) -> Iterable[func.FuncOp]:
    for inner in op.walk():
        if isinstance(inner, func.CallOp):
            callee = symbols.get(inner.callee.string_value())
            if callee is not None:
                yield callee


def _reachable(kernel: func.FuncOp, symbols: dict[str, func.FuncOp]) -> list[func.FuncOp]:
    seen: dict[str, func.FuncOp] = {}
    stack = [kernel]
    while stack:
        f = stack.pop()
        if f.sym_name.data in seen:
            continue
        seen[f.sym_name.data] = f
        stack.extend(_callees(f, symbols))
    return list(seen.values())


def check_supported(kernel: func.FuncOp, symbols: dict[str, func.FuncOp]) -> None:
    """Turn sub-group barriers into fences (sub-groups of one work-item); reject
    collectives (lowered by earlier passes) and barriers reached through calls."""
    for f in _reachable(kernel, symbols):
        where = "" if f is kernel else f" (in @{f.sym_name.data}, called from it)"
        for op in list(f.walk()):
            if isinstance(op, mux.SubGroupBarrierOp):
                Rewriter.replace_op(op, mux.MemBarrierOp(op.scope.data, op.semantics_value()))
            elif isinstance(op, mux.GroupCollectiveOp) and mux.is_barrier_like(op):
                raise NotSupportedError(
                    f"work-item-loops: '{op.name}' in kernel @{kernel.sym_name.data}{where} "
                    f"must be lowered before this pass (lower-{op.group_scope.replace('_', '-')}"
                    "-collectives)"
                )
            elif is_control_barrier(op) and f is not kernel:
                raise NotSupportedError(
                    f"work-item-loops: '{op.name}' in kernel @{kernel.sym_name.data}{where}: "
                    "run prepare-barriers first (it inlines functions that reach barriers)"
                )


def _sub_group_uniform_dims(kernel: func.FuncOp) -> set[int]:
    """Dimensions whose local id is the same across each sub-group (N consecutive
    work-items in local linear order): y when N divides the required size x, z when it
    divides x·y."""
    n = attrs.get_reqd_sub_group_size(kernel) or 1
    reqd = attrs.get_reqd_work_group_size(kernel)
    if n == 1 or reqd is None:
        return set()
    return {d for d, span in ((1, reqd[0]), (2, reqd[0] * reqd[1])) if span % n == 0}


def check_divergent_barriers(kernel: func.FuncOp, builder: WorkItemLoopBuilder) -> None:
    """A barrier directly inside control flow that provably differs between work-items (so
    the work-items that enter it all execute the barrier, and not all of them enter) is an
    error. Barriers nested deeper may legally be skipped by everybody: they are left to the
    region dispatch, which cannot hang on them."""
    group_unit = {d for d in range(3) if builder.is_unit_dim(d)}
    sub_group_unit = group_unit | _sub_group_uniform_dims(kernel)
    uniform = UniformValues(kernel.args)
    for barrier in kernel.walk():
        if not is_control_barrier(barrier):
            continue
        # a barrier standing in for a sub-group one needs uniformity per sub-group only
        unit = sub_group_unit if attrs.is_sub_group_scope(barrier) else group_unit
        anc = barrier.parent_op()
        why = None
        if isinstance(anc, scf.IfOp) and provably_divergent(anc.cond, uniform, unit):
            why = "an scf.if whose condition compares the local id"
        elif isinstance(anc, scf.WhileOp):
            cond = anc.before_region.block.last_op
            if isinstance(cond, scf.ConditionOp) and provably_divergent(
                cond.condition, uniform, unit
            ):
                why = "an scf.while whose condition compares the local id"
        elif isinstance(anc, scf.ForOp):
            lb_id = local_id_offset(anc.lb, uniform, unit)
            ub_id = local_id_offset(anc.ub, uniform, unit)
            if (lb_id and uniform(anc.ub)) or (ub_id and uniform(anc.lb)):
                why = "an scf.for whose trip count depends on the local id"
        if why is not None:
            assert isinstance(barrier, mux.WorkGroupBarrierOp)
            raise XmuxError(
                f"work-item-loops: kernel @{kernel.sym_name.data}: barrier "
                f"'{barrier.name}' (id {barrier.barrier_id}) is directly inside {why}, so "
                "the work-items of a group do not all reach it (divergent barrier)"
            )


# ---------------------------------------------------------------------------------------
# The loop-nest builder
# ---------------------------------------------------------------------------------------


@dataclass
class WorkItemLoopBuilder:
    """Builds work-item loop nests for one kernel.

    ``prologue(ip)`` emits the shared bounds once (constants, local sizes, the ids of
    dimensions without a loop) at ``ip``; ``wrap(ops)`` then moves a contiguous run of ops
    of one block into a fresh nest placed where they were. Call ``wrap`` once per region.
    """

    order: tuple[int, int, int]
    """Dimensions, outermost loop first."""
    reqd_size: tuple[int, int, int] | None = None
    max_work_dim: int | None = None
    zero: SSAValue | None = field(default=None, init=False)
    one: SSAValue | None = field(default=None, init=False)
    sizes: dict[int, SSAValue] = field(default_factory=dict, init=False)
    """Loop bound per dimension that gets a loop."""
    last_ivs: list[SSAValue] = field(default_factory=list, init=False)
    """Induction variables of the last nest built, outermost first."""

    @staticmethod
    def for_kernel(kernel: func.FuncOp) -> WorkItemLoopBuilder:
        try:
            order = attrs.get_work_item_order(kernel)
            reqd = attrs.get_reqd_work_group_size(kernel)
            max_dim = attrs.get_max_work_dim(kernel)
        except ValueError as e:  # the message names the kernel
            raise XmuxError(f"work-item-loops: {e}") from None
        if max_dim is not None and not 1 <= max_dim <= 3:
            raise _pass_error(kernel, f"max_work_dim must be 1, 2 or 3, got {max_dim}")
        return WorkItemLoopBuilder(order, reqd, max_dim)

    def is_unit_dim(self, dim: int) -> bool:
        """True when the local size of ``dim`` is known to be 1 (no loop needed)."""
        if self.max_work_dim is not None and dim >= self.max_work_dim:
            return True
        return self.reqd_size is not None and self.reqd_size[dim] == 1

    @property
    def loop_dims(self) -> list[int]:
        """Dimensions that get a loop, outermost first."""
        return [d for d in self.order if not self.is_unit_dim(d)]

    def prologue(self, ip: InsertPoint) -> None:
        ops: list[Operation] = []
        zero = arith.ConstantOp.from_int_and_width(0, IndexType())
        one = arith.ConstantOp.from_int_and_width(1, IndexType())
        ops += [zero, one]
        self.zero, self.one = zero.result, one.result
        for d in range(3):
            if self.is_unit_dim(d):
                ops.append(mux.SetLocalIdOp(d, self.zero))
            elif self.reqd_size is not None:
                size = arith.ConstantOp.from_int_and_width(self.reqd_size[d], IndexType())
                ops.append(size)
                self.sizes[d] = size.result
            else:
                size = mux.GetLocalSizeOp(d, IndexType())
                ops.append(size)
                self.sizes[d] = size.result
        Rewriter.insert_op(ops, ip)

    def build_nest(self, ip: InsertPoint) -> tuple[Operation | None, Block]:
        """Insert an empty nest at ``ip``; return (outermost loop, innermost body block).

        The body block ends with ``scf.yield``; insert work before it. With no loop
        dimension at all (a 1x1x1 group), there is no nest: returns (None, ip's block)
        and the caller's ops stay where they are.
        """
        assert self.zero is not None and self.one is not None, "prologue() first"
        dims = self.loop_dims
        self.last_ivs = []
        if not dims:
            return None, ip.block
        outer: Operation | None = None
        for i, d in enumerate(dims):
            body = Block(arg_types=[IndexType()])
            body.add_ops([mux.SetLocalIdOp(d, body.args[0]), scf.YieldOp()])
            body.args[0].name_hint = "xyz"[d]
            loop = scf.ForOp(self.zero, self.sizes[d], self.one, [], body)
            self.last_ivs.append(body.args[0])
            if i == len(dims) - 1:
                attrs.mark_work_item_loop(loop)
            Rewriter.insert_op(loop, ip)
            if outer is None:
                outer = loop
            ip = InsertPoint.before(body.last_op)  # type: ignore[arg-type]
        return outer, ip.block

    def wrap(self, ops: Sequence[Operation]) -> Operation | None:
        """Move ``ops`` (consecutive, in one block, results used only among themselves)
        into a new nest placed where they were; return the outermost loop."""
        if not ops:
            raise ValueError("wrap() needs at least one op")
        outer, body = self.build_nest(InsertPoint.before(ops[0]))
        if outer is None:
            return None
        yield_op = body.last_op
        assert yield_op is not None
        for op in ops:
            op.detach()
            Rewriter.insert_op(op, InsertPoint.before(yield_op))
        return outer


class KernelNests(NestFactory):
    """Full work-item nests of a kernel for barrier regions; per-work-item storage sized by
    the group's actual size (product of the loop dimensions' sizes)."""

    def __init__(self, builder: WorkItemLoopBuilder, anchor: Operation) -> None:
        self.b = builder
        self.anchor = anchor
        assert builder.one is not None
        size: SSAValue = builder.one
        ops: list[Operation] = []
        for i, d in enumerate(builder.loop_dims):
            if i == 0:
                size = builder.sizes[d]
            else:
                mul = arith.MuliOp(size, builder.sizes[d])
                ops.append(mul)
                size = mul.result
        if ops:
            self.insert_storage(ops)
        self._size = size

    def insert_storage(self, ops: Sequence[Operation]) -> None:
        Rewriter.insert_op(ops, InsertPoint.after(self.anchor))
        self.anchor = ops[-1]

    def group_size(self) -> SSAValue:
        return self._size

    def new_array(self, element: Attribute) -> SSAValue:
        arr = super().new_array(element)
        attrs.mark_per_work_item(arr.owner)  # type: ignore[arg-type]
        return arr

    def zero(self) -> SSAValue:
        assert self.b.zero is not None
        return self.b.zero

    def open_nest(self, ip: InsertPoint) -> Nest:
        outer, body = self.b.build_nest(ip)
        if outer is None:
            return Nest(None, ip, self.zero)
        ivs = list(self.b.last_ivs)
        yield_op = body.last_op
        assert yield_op is not None
        header = body.first_op
        assert header is not None

        def make_lin() -> SSAValue:
            # at the top of the innermost body, after its set_local_id header
            lin = ivs[0]
            ops: list[Operation] = []
            for d, iv in zip(self.b.loop_dims[1:], ivs[1:], strict=True):
                mul = arith.MuliOp(lin, self.b.sizes[d])
                add = arith.AddiOp(mul.result, iv)
                ops += [mul, add]
                lin = add.result
            if ops:
                Rewriter.insert_op(ops, InsertPoint.after(header))
                lin.name_hint = "lin"
            return lin

        return Nest(outer, InsertPoint.before(yield_op), make_lin, ivs[-1])

    def open_single(self, ip: InsertPoint) -> Nest:
        # work-item 0 at the group level: queries inside see local id (0, 0, 0); the
        # nests after it set their own ids again
        zero = self.zero()
        Rewriter.insert_op([mux.SetLocalIdOp(d, zero) for d in self.b.loop_dims], ip)
        return Nest(None, ip, self.zero)


def _prologue(builder: WorkItemLoopBuilder, entry: Block) -> KernelNests:
    first = entry.first_op
    assert first is not None
    builder.prologue(InsertPoint.at_start(entry))
    anchor = first.prev_op
    assert anchor is not None
    return KernelNests(builder, anchor)


def apply_with_barriers(kernel: func.FuncOp, dump_plan: bool | str = False,
                        check_barriers: bool = False) -> str:
    """Work-group function of a kernel with barriers; returns "structured" or "dispatch".
    ``dump_plan`` (true / "text") prints the storage plan (or that region dispatch runs it)
    to stderr; "dot" adds the kernel's graph to the pass's (``wi_loops/plan_graph.py``);
    ``check_barriers`` adds the checking mode's divergent-barrier check
    (``wi_loops/divergence.py``)."""
    builder = WorkItemLoopBuilder.for_kernel(kernel)
    check_divergent_barriers(kernel, builder)
    mode = plan_mode(dump_plan)
    name = kernel.sym_name.data
    why = "a CFG body"
    if len(kernel.body.blocks) == 1:
        entry = kernel.body.block
        terminator = entry.last_op
        if not isinstance(terminator, func.ReturnOp):
            raise _pass_error(kernel, "the body must end in func.return")
        ops = [op for op in entry.ops if op is not terminator]
        fission = Fission(entry, ops, lifts_for_barriers(entry), single_work_item=True)
        try:
            plan = fission.analyze()
        except Unstructured as e:
            fission = None
            why = str(e)
            if mode == "text":
                _dump(f"work-item-loops plan @{name}: region dispatch ({e})")
        if fission is not None:
            if mode == "text":
                _dump(plan.dump(name))
            elif mode == "dot":  # drawn before emission rewrites the ops the plan names
                plan_graph.add(plan_graph.structured_graph(name, plan))
            factory = _prologue(builder, entry)
            module = kernel.parent_op()
            check = None
            if check_barriers and isinstance(module, ModuleOp):
                check = (Sites(module), kernel.sym_name.data)
            fission.emit(factory, InsertPoint.before(ops[0]), check)
            if check is not None and check[0].count:
                declare_check_fn(module)  # type: ignore[arg-type]
            assert fission.regions is not None
            for op in reversed(fission.regions.ops):  # with the ops normalisation added
                op.detach()
                op.erase()
            return "structured"
    if mode == "text" and len(kernel.body.blocks) != 1:
        _dump(f"work-item-loops plan @{name}: region dispatch ({why})")
    dispatch = Dispatch(kernel)
    dispatch.build_regions()
    if mode == "dot":  # the region function, before emission copies it per entry
        plan_graph.add(plan_graph.dispatch_graph(name, dispatch, why))
    inputs = kernel.function_type.inputs.data
    entry = Block(arg_types=inputs)
    fn_entry = dispatch.fn.body.blocks.first  # type: ignore[union-attr]
    assert fn_entry is not None
    for new, old in zip(entry.args, fn_entry.args, strict=False):
        new.name_hint = old.name_hint
    ret = func.ReturnOp()
    entry.add_op(ret)
    kernel.body.add_block(entry)
    factory = _prologue(builder, entry)
    module = kernel.parent_op()
    check = None
    if check_barriers and isinstance(module, ModuleOp):
        check = (Sites(module), kernel.sym_name.data)
    dispatch.emit(factory, InsertPoint.before(ret), check)
    if check is not None and check[0].count:
        declare_check_fn(module)  # type: ignore[arg-type]
    return "dispatch"


def _dump(text: str) -> None:
    print(text, file=sys.stderr)


def plan_mode(value: bool | str) -> str | None:
    """``dump-plan``'s value: true or "text" (the text dump), "dot" (a Graphviz graph,
    ``wi_loops/plan_graph.py``), false (none)."""
    if value is True or value in ("true", "text"):
        return "text"
    if value == "dot":
        return "dot"
    if value is False or value in ("false", ""):
        return None
    raise XmuxError(f"work-item-loops: dump-plan must be true, text or dot, got {value!r}")


# ---------------------------------------------------------------------------------------
# The pass
# ---------------------------------------------------------------------------------------


def _static_allocas(ops: Sequence[Operation]) -> list[Operation]:
    """Static private allocations among ``ops`` (with the constant sizing an
    ``llvm.alloca``), in order: they can move above the loop nest."""
    candidates = set(ops)
    hoisted: list[Operation] = []
    for op in ops:
        if isinstance(op, memref.AllocaOp):
            if not op.dynamic_sizes and not op.symbol_operands:
                hoisted.append(op)
        elif isinstance(op, llvm.AllocaOp):
            size = op.size.owner
            if isinstance(size, arith.ConstantOp | llvm.ConstantOp) and size in candidates:
                if size not in hoisted:
                    hoisted.append(size)
                hoisted.append(op)
    return hoisted


def _outline_body(kernel: func.FuncOp) -> None:
    """Move a multi-block body into ``@<k>.mux-wi-body``; leave a call + return behind."""
    name = kernel.sym_name.data + BODY_SUFFIX
    region = Region()
    kernel.body.move_blocks(region)
    inputs = kernel.function_type.inputs.data
    outlined = func.FuncOp(name, (inputs, ()), region, visibility="private")
    Rewriter.insert_op(outlined, InsertPoint.after(kernel))
    entry = Block(arg_types=inputs)
    old_entry = region.blocks.first
    assert old_entry is not None
    for new, old in zip(entry.args, old_entry.args, strict=True):
        new.name_hint = old.name_hint
    entry.add_ops([func.CallOp(name, list(entry.args), []), func.ReturnOp()])
    kernel.body.add_block(entry)


def _check_signature(kernel: func.FuncOp) -> None:
    if not kernel.body.blocks:
        raise _pass_error(kernel, "an entry point needs a body")
    if kernel.function_type.outputs.data:
        results = ", ".join(str(t) for t in kernel.function_type.outputs.data)
        raise _pass_error(kernel, f"a kernel must return nothing, it returns {results}")


def apply_work_item_loops(kernel: func.FuncOp) -> None:
    """Wrap the body of one (barrier-free) entry point in its work-item loop nest."""
    _check_signature(kernel)
    builder = WorkItemLoopBuilder.for_kernel(kernel)
    if len(kernel.body.blocks) > 1:
        _outline_body(kernel)
    entry = kernel.body.block
    terminator = entry.last_op
    if not isinstance(terminator, func.ReturnOp):
        raise _pass_error(kernel, "the body must end in func.return")
    work = [op for op in entry.ops if op is not terminator]
    hoisted = _static_allocas(work)
    work = [op for op in work if op not in hoisted]
    builder.prologue(InsertPoint.at_start(entry))
    after_prologue = InsertPoint.before(work[0] if work else terminator)
    for op in hoisted:
        op.detach()
        Rewriter.insert_op(op, after_prologue)
    if work:
        builder.wrap(work)
    else:
        builder.build_nest(InsertPoint.before(terminator))


# ---------------------------------------------------------------------------------------
# Vector + scalar tail scheduling
# ---------------------------------------------------------------------------------------


def _index_constant(value: int) -> arith.ConstantOp:
    return arith.ConstantOp.from_int_and_width(value, IndexType())


def _constant_value(value: SSAValue) -> int | None:
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value.type, IndexType):
        return op.value.value.data  # type: ignore[union-attr]
    return None


def split_vector_tail(loop: scf.ForOp, width: int, tail: bool) -> None:
    """Schedule a work-item loop ``[0, ub)`` ``width`` work-items at a time.

    Main part: ``for xb in [0, main) step W { for xi in [0, W) { x = xb + xi; body } }``
    with ``main = (ub / W) * W``; the inner loop (constant trip count W) keeps the
    work-item-loop mark and asks LLVM to vectorize it exactly W wide, so the vector code has
    no remainder of its own. Tail: ``for x in [main, ub) { body }`` (a copy), marked not to
    vectorize. Without ``tail`` (force-no-tail: the launcher guarantees ub % W == 0) or
    when ub is a constant multiple of W, no tail loop exists; with a constant ub < W the
    loop is all tail (kept, marked not to vectorize)."""
    assert width > 1
    ub = loop.ub
    const_ub = _constant_value(ub)
    if const_ub is not None and const_ub < width and tail:
        attrs.set_loop_vectorize_width(loop, 1)  # a constant size below W: all tail
        return
    ops: list[Operation] = []
    c_width = _index_constant(width)
    ops.append(c_width)
    main: SSAValue
    if const_ub is not None:
        main_count = const_ub // width * width if tail else const_ub
        has_tail = tail and main_count != const_ub
        if main_count == const_ub:
            main = ub
        else:
            c_main = _index_constant(main_count)
            ops.append(c_main)
            main = c_main.result
    else:  # known at run time only
        has_tail = tail
        if tail:
            quot = arith.DivUIOp(ub, c_width)
            mul = arith.MuliOp(quot, c_width)
            ops += [quot, mul]
            main = mul.result
            main.name_hint = "main"
        else:
            main = ub
    Rewriter.insert_op(ops, InsertPoint.before(loop))
    old_body = loop.body.block
    old_x = old_body.args[0]
    if has_tail:
        tail_loop = scf.ForOp(main, ub, loop.step, [], loop.body.clone())
        tail_loop.attributes.update(loop.attributes)
        attrs.set_loop_vectorize_width(tail_loop, 1)
        Rewriter.insert_op(tail_loop, InsertPoint.after(loop))
    # the inner loop takes the old body over, with x = xb + xi
    inner_block = Block(arg_types=[IndexType()])
    xi = inner_block.args[0]
    xi.name_hint = "xi"
    outer_block = Block(arg_types=[IndexType()])
    xb = outer_block.args[0]
    xb.name_hint = "xb"
    x = arith.AddiOp(xb, xi)
    x.result.name_hint = old_x.name_hint
    inner_block.add_op(x)
    for op in list(old_body.ops):
        op.detach()
        inner_block.add_op(op)
    old_x.replace_all_uses_with(x.result)
    zero = loop.lb
    inner = scf.ForOp(zero, c_width.result, loop.step, [], inner_block)
    inner.attributes.update(loop.attributes)
    attrs.set_loop_vectorize_width(inner, width)
    outer_block.add_ops([inner, scf.YieldOp()])
    outer = scf.ForOp(loop.lb, main, c_width.result, [], outer_block)
    # LLVM may unroll the inner loop fully (then the SLP vectorizer packs it): the loop over
    # blocks must not be vectorized again on top of that
    attrs.set_loop_vectorize_width(outer, 1)
    Rewriter.replace_op(loop, outer)


def _vector_dim(builder: WorkItemLoopBuilder) -> int | None:
    dims = builder.loop_dims
    return dims[-1] if dims else None


def schedule_vector_width(
    kernel: func.FuncOp, builder: WorkItemLoopBuilder, width: int, force_no_tail: bool
) -> None:
    """Split every innermost work-item loop of ``kernel`` into a W-wide main part and a
    scalar tail (``split_vector_tail``); record the schedule on the kernel
    (``mux.vector_schedule``) for the launcher."""
    dim = _vector_dim(builder)
    if width <= 1 or dim is None:
        return
    reqd = builder.reqd_size
    tail = not force_no_tail and not (reqd is not None and reqd[dim] % width == 0)
    if force_no_tail and reqd is not None and reqd[dim] % width:
        raise _pass_error(
            kernel,
            f"force-no-tail needs a work-group size that is a multiple of the vector width "
            f"{width} in dimension {dim}, but reqd_work_group_size is {list(reqd)}",
        )
    loops = [o for o in kernel.walk() if isinstance(o, scf.ForOp) and attrs.is_work_item_loop(o)]
    for loop in loops:
        split_vector_tail(loop, width, tail)
    attrs.set_vector_schedule(kernel, attrs.VectorSchedule(width, dim, tail))


@dataclass(frozen=True)
class WorkItemLoopsPass(ModulePass):
    """Wrap each entry-point kernel body in a loop nest over the work-group's work-items.

    ``vector-width=W`` (W > 1) runs the innermost work-item dimension W work-items at a time
    plus a scalar tail (``split_vector_tail``); ``force-no-tail`` drops the tail (the
    launcher then rejects group sizes that are not a multiple of W). ``dump-plan`` prints
    each barrier kernel's storage plan to stderr; ``check-plan`` checks that every
    per-work-item array is written before it is read on every path
    (``wi_loops/check.py``)."""

    name = "work-item-loops"

    vector_width: int = 0
    """0 or 1: one scalar work-item loop (LLVM picks the vectorization)."""
    force_no_tail: bool = False
    #: true / "text": the storage plan as text on stderr; "dot": as a Graphviz graph
    dump_plan: bool | str = False
    check_plan: bool = False
    #: the checking mode's divergent-barrier check: work-items that disagree on the control
    #: of a barrier made uniform by the barrier rule are reported at run time
    check_barriers: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        w = self.vector_width
        if w < 0 or (w > 1 and w & (w - 1)):
            raise XmuxError(
                f"work-item-loops: vector-width must be 0, 1 or a power of two, got {w}"
            )
        dot = plan_mode(self.dump_plan) == "dot"  # also rejects a bad value up front
        symbols = {f.sym_name.data: f for f in op.ops if isinstance(f, func.FuncOp)}
        # A kernel that already sets local ids is a work-group function: leave it.
        kernels = [
            k
            for k in attrs.entry_points(op)
            if not any(isinstance(o, mux.SetLocalIdOp) for o in k.walk())
        ]
        for kernel in kernels:
            check_supported(kernel, symbols)
        with plan_graph.collecting() as clusters:
            self._apply_kernels(kernels)
        if dot:
            plan_graph.output(plan_graph.digraph(clusters))

    def _apply_kernels(self, kernels: list[func.FuncOp]) -> None:
        for kernel in kernels:
            if any(is_control_barrier(o) for o in kernel.walk()):
                _check_signature(kernel)
                apply_with_barriers(kernel, self.dump_plan, self.check_barriers)
                if self.check_plan:
                    check_storage(kernel)
                    add_shadow_checks(kernel)
            else:
                apply_work_item_loops(kernel)
            if self.vector_width > 1:
                builder = WorkItemLoopBuilder.for_kernel(kernel)
                schedule_vector_width(kernel, builder, self.vector_width, self.force_no_tail)
