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

Expects: entry points marked ``mux.kernel = "entry_point"``, returning nothing, with no
control barrier or collective (``mux.is_barrier_like``) in them or in the functions they
call: those are "not supported by this pipeline yet". Guarantees: the kernel keeps its name
and arguments; its body is the loop nest followed by ``func.return``. Kernels that already
contain ``mux.set_local_id`` are work-group functions already and are left alone, so the
pass can run twice.

The loop-nest builder (``WorkItemLoopBuilder``) works on any list of ops so that barrier
regions can each get their own nest.

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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref, scf
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.dialects import attrs, mux
from xmux.errors import NotSupportedError, XmuxError

BODY_SUFFIX = ".mux-wi-body"


def _pass_error(kernel: func.FuncOp, message: str) -> XmuxError:
    return XmuxError(f"work-item-loops: kernel @{kernel.sym_name.data}: {message}")


# ---------------------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------------------


def _callees(op: Operation, symbols: dict[str, func.FuncOp]) -> Iterable[func.FuncOp]:
    for inner in op.walk():
        if isinstance(inner, func.CallOp):
            callee = symbols.get(inner.callee.string_value())
            if callee is not None:
                yield callee


def check_barrier_free(kernel: func.FuncOp, symbols: dict[str, func.FuncOp]) -> None:
    """Reject control barriers and collectives in the kernel or anything it calls."""
    seen: set[str] = set()
    stack = [kernel]
    while stack:
        f = stack.pop()
        if f.sym_name.data in seen:
            continue
        seen.add(f.sym_name.data)
        for op in f.walk():
            if mux.is_barrier_like(op):
                where = "" if f is kernel else f" (in @{f.sym_name.data}, called from it)"
                raise NotSupportedError(
                    f"work-item-loops: '{op.name}' in kernel @{kernel.sym_name.data}{where} "
                    "is not supported by this pipeline yet"
                )
        stack.extend(_callees(f, symbols))


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
        if not dims:
            return None, ip.block
        outer: Operation | None = None
        for i, d in enumerate(dims):
            body = Block(arg_types=[IndexType()])
            body.add_ops([mux.SetLocalIdOp(d, body.args[0]), scf.YieldOp()])
            body.args[0].name_hint = "xyz"[d]
            loop = scf.ForOp(self.zero, self.sizes[d], self.one, [], body)
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


def apply_work_item_loops(kernel: func.FuncOp) -> None:
    """Wrap the body of one (barrier-free) entry point in its work-item loop nest."""
    if not kernel.body.blocks:
        raise _pass_error(kernel, "an entry point needs a body")
    if kernel.function_type.outputs.data:
        results = ", ".join(str(t) for t in kernel.function_type.outputs.data)
        raise _pass_error(kernel, f"a kernel must return nothing, it returns {results}")
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


@dataclass(frozen=True)
class WorkItemLoopsPass(ModulePass):
    """Wrap each entry-point kernel body in a loop nest over the work-group's work-items."""

    name = "work-item-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        symbols = {f.sym_name.data: f for f in op.ops if isinstance(f, func.FuncOp)}
        # A kernel that already sets local ids is a work-group function: leave it.
        kernels = [
            k
            for k in attrs.entry_points(op)
            if not any(isinstance(o, mux.SetLocalIdOp) for o in k.walk())
        ]
        for kernel in kernels:
            check_barrier_free(kernel, symbols)
        for kernel in kernels:
            apply_work_item_loops(kernel)
