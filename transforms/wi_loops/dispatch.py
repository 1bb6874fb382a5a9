"""Region dispatch: the fallback of work-item loops for any control flow.

The kernel body becomes a function @<k>.mux-regions(args, lin, state, storage...) -> i32
whose entry block switches on `state` to the kernel's entry (0) or to the continuation of
barrier i (i = 1..n); each barrier returns i, each return returns EXIT = n + 1. It is then
copied once per entry, the switch folded to a branch (@<k>.mux-region-<r>). The work-group
function runs, while some work-item is not at EXIT, every work-item whose state is the
smallest one pending (all of them, in a legal program), through the copy for that entry,
then fences:

    state[*] = 0; cur = 0
    while cur != EXIT:
      switch cur: case r: for each work-item w: if state[w] == r: state[w] = region_r(.., w)
      fence; cur = min(state[*])

Divergent barriers (undefined in OpenCL) therefore cannot hang the group: work-items are
run barrier by barrier in id order. Values whose definition does not dominate a use in the
region function (live across a barrier, or reaching a use around a loop back edge: the
reference's external and internal uses) are re-computed before the use when they are short
pure chains over kernel arguments and work-item queries, else stored in per-work-item
arrays right after their definition and loaded right before such uses. Module globals
(work-group local memory) are fetched by the kernel and passed in.

Used by ``work-item-loops`` when region formation raises ``Unstructured`` (CFG bodies,
barriers under control that is not provably uniform): it never guesses, every shape that
fission cannot prove correct comes here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, cf, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    DenseIntElementsAttr,
    IndexType,
    MemRefType,
    NoneAttr,
    StringAttr,
    VectorType,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl.dominance import DominanceInfo
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import NotSupportedError
from xmux.dialects import attrs, mux
from xmux.transforms.insert_bounds_checks import Sites, report_ops
from xmux.transforms.uniformity import is_control_barrier, is_pure
from xmux.transforms.wi_loops.divergence import MESSAGE
from xmux.transforms.wi_loops.nests import NestFactory, byte_size, debug_build, storable
from xmux.transforms.wi_loops.storage import MAX_REMAT

REGIONS_SUFFIX = ".mux-regions"


def _move_after(block: Block, op: Operation, region: Region) -> Block:
    """Split ``block`` after ``op``: the ops after it move to a new block (returned)."""
    cont = Block()
    region.insert_block_after(cont, block)
    ops = list(block.ops)
    for o in ops[ops.index(op) + 1 :]:
        o.detach()
        cont.add_op(o)
    return cont


def _take_blocks(src: Region, dst: Region, after: Block) -> list[Block]:
    blocks = list(src.blocks)
    for b in blocks:
        src.detach_block(b)
    dst.insert_block_after(blocks, after)
    return blocks


def _lower_structured(op: Operation, region: Region) -> None:
    """Lower one scf op (in a block of ``region``) to blocks and branches."""

    block = op.parent_block()
    assert block is not None
    cont = _move_after(block, op, region)
    for r in op.results:
        cont.insert_arg(r.type, len(cont.args))
    for r, a in zip(op.results, cont.args, strict=True):
        r.replace_all_uses_with(a)
    ip = InsertPoint.before(op)
    if isinstance(op, scf.ForOp):
        body = op.body.block
        header = Block(arg_types=[a.type for a in body.args])
        region.insert_block_after(header, block)
        _take_blocks(op.body, region, header)
        cmp = arith.CmpiOp(header.args[0], op.ub, "slt")
        header.add_ops(
            [cmp, cf.ConditionalBranchOp(cmp, body, header.args, cont, header.args[1:])]
        )
        yld = body.last_op
        assert yld is not None
        nxt = arith.AddiOp(body.args[0], op.step)
        Rewriter.insert_op(nxt, InsertPoint.before(yld))
        Rewriter.replace_op(yld, cf.BranchOp(header, nxt.result, *yld.operands))
        Rewriter.insert_op(cf.BranchOp(header, op.lb, *op.iter_args), ip)
    elif isinstance(op, scf.IfOp):
        then = _take_blocks(op.true_region, region, block)[0]
        other = cont
        if op.false_region.blocks:
            other = _take_blocks(op.false_region, region, then)[0]
        for b in (then, other):
            if b is not cont and isinstance(b.last_op, scf.YieldOp):
                Rewriter.replace_op(b.last_op, cf.BranchOp(cont, *b.last_op.operands))
        Rewriter.insert_op(cf.ConditionalBranchOp(op.cond, then, [], other, []), ip)
    elif isinstance(op, scf.WhileOp):
        before = _take_blocks(op.before_region, region, block)[0]
        after = _take_blocks(op.after_region, region, before)[0]
        cond, yld = before.last_op, after.last_op
        assert isinstance(cond, scf.ConditionOp) and yld is not None
        args = list(cond.args)
        Rewriter.replace_op(
            cond, cf.ConditionalBranchOp(cond.condition, after, args, cont, args)
        )
        Rewriter.replace_op(yld, cf.BranchOp(before, *yld.operands))
        Rewriter.insert_op(cf.BranchOp(before, *op.arguments), ip)
    elif isinstance(op, scf.ExecuteRegionOp):
        blocks = _take_blocks(op.region, region, block)
        for b in blocks:
            if isinstance(b.last_op, scf.YieldOp):
                Rewriter.replace_op(b.last_op, cf.BranchOp(cont, *b.last_op.operands))
        Rewriter.insert_op(cf.BranchOp(blocks[0]), ip)
    else:
        raise NotSupportedError(
            f"work-item-loops: a barrier inside '{op.name}' is not supported (use scf.for, "
            "scf.while, scf.if, scf.execute_region or cf branches)"
        )
    Rewriter.erase_op(op)


def lower_barrier_control_flow(region: Region) -> None:
    """Turn every structured op that contains a barrier into blocks of ``region``."""
    while True:
        target = next(
            (
                op
                for b in region.blocks
                for op in b.ops
                if op.regions and any(is_control_barrier(o) for o in op.walk())
            ),
            None,
        )
        if target is None:
            return
        _lower_structured(target, region)


def split_at_barriers(region: Region) -> list[mux.WorkGroupBarrierOp]:
    """End a block after every barrier (``cf.br`` to the rest); return the barriers in
    block order (their continuation ids are 1, 2, ...)."""

    out: list[mux.WorkGroupBarrierOp] = []
    for block in list(region.blocks):
        cur = block
        while True:
            barrier = next((o for o in cur.ops if is_control_barrier(o)), None)
            if barrier is None:
                break
            assert isinstance(barrier, mux.WorkGroupBarrierOp)
            out.append(barrier)
            nxt = _move_after(cur, barrier, region)
            Rewriter.insert_op(cf.BranchOp(nxt), InsertPoint.after(barrier))
            cur = nxt
    return out


def _ancestor_in_region(op: Operation, region: Region) -> Operation:
    cur = op
    while True:
        b = cur.parent_block()
        assert b is not None
        if b.parent is region:
            return cur
        parent = b.parent_op()
        assert parent is not None
        cur = parent


@dataclass
class Dispatch:
    """Builds the region function of a kernel and the work-group dispatch loop."""

    kernel: Operation  # func.func
    barriers: list[mux.WorkGroupBarrierOp] = field(default_factory=list)
    fn: Operation | None = None
    storage: list[tuple[str, Attribute, MemRefType | None, int]] = field(default_factory=list)
    """Extra region-function arguments: (kind, type, private type, private stride)."""

    @property
    def exit_id(self) -> int:
        return len(self.barriers) + 1

    def build_regions(self) -> None:
        """Move the kernel body into ``@<k>.mux-regions`` (the kernel is left bodiless)."""

        kernel = self.kernel
        assert isinstance(kernel, func.FuncOp)
        region = Region()
        kernel.body.move_blocks(region)
        lower_barrier_control_flow(region)
        self.barriers = split_at_barriers(region)
        orig = region.blocks.first
        assert orig is not None
        inputs = list(kernel.function_type.inputs.data)
        entry = Block(arg_types=[*inputs, IndexType(), i32])
        for new, old in zip(entry.args, orig.args, strict=False):
            new.name_hint = old.name_hint
            old.replace_all_uses_with(new)
        entry.args[len(inputs)].name_hint = "lin"
        entry.args[len(inputs) + 1].name_hint = "state"
        while orig.args:
            orig.erase_arg(orig.args[-1])
        region.insert_block_before(entry, orig)
        conts: list[Block] = []
        #: debug builds: each barrier's continuation block, location and return
        self._conts: list[tuple[Block, Attribute, Operation]] = []
        for i, barrier in enumerate(self.barriers, start=1):
            br = barrier.next_op
            assert isinstance(br, cf.BranchOp)
            conts.append(br.successor)
            c = arith.ConstantOp.from_int_and_width(i, i32)
            Rewriter.insert_op(c, InsertPoint.before(br))
            ret = func.ReturnOp(c)
            ret.location = barrier.location
            self._conts.append((br.successor, barrier.location, ret))
            Rewriter.replace_op(br, ret)
            Rewriter.erase_op(barrier)
        for b in region.blocks:
            ret = b.last_op
            if isinstance(ret, func.ReturnOp) and not ret.arguments:
                c = arith.ConstantOp.from_int_and_width(self.exit_id, i32)
                Rewriter.insert_op(c, InsertPoint.before(ret))
                Rewriter.replace_op(ret, func.ReturnOp(c))
        cases = DenseIntElementsAttr.from_list(
            VectorType(i32, [len(conts)]), list(range(1, len(conts) + 1))
        )
        entry.add_op(
            cf.SwitchOp(entry.args[len(inputs) + 1], orig, [], cases, conts, [[] for _ in conts])
        )
        name = kernel.sym_name.data + REGIONS_SUFFIX
        self.fn = func.FuncOp(
            name, (list(entry.arg_types), [i32]), region, visibility="private"
        )
        Rewriter.insert_op(self.fn, InsertPoint.after(kernel))
        self._globals_as_args(region, entry)
        self._live_values(region, entry, DominanceInfo(region), len(inputs))

    def _globals_as_args(self, region: Region, entry: Block) -> None:
        """Module globals (work-group local memory above all) are fetched by the kernel and
        passed in: the region function stays free of ``memref.get_global``."""
        args: dict[str, SSAValue] = {}
        for op in list(region.walk()):
            if not isinstance(op, memref.GetGlobalOp):
                continue
            name = op.name_.root_reference.data
            if name not in args:
                args[name] = self._add_arg(entry, "global:" + name, op.memref.type)
                args[name].name_hint = name
            op.memref.replace_all_uses_with(args[name])
            Rewriter.erase_op(op)

    def _add_arg(self, entry: Block, kind: str, t: Attribute, private=None, stride=0):
        arg = entry.insert_arg(t, len(entry.args))
        self.storage.append((kind, t, private, stride))
        return arg

    def _live_values(self, region: Region, entry: Block, dom, n_inputs: int) -> None:

        lin = entry.args[n_inputs]

        def dominates(v: SSAValue, at: Operation) -> bool:
            owner = v.owner
            d = owner if isinstance(owner, Block) else owner.parent_block()
            u = at.parent_block()
            assert d is not None and u is not None
            if d is not u:
                return dom.dominates(d, u)
            if isinstance(owner, Block):
                return True
            return u.get_operation_index(owner) < u.get_operation_index(at)

        def remat_ok(v: SSAValue, depth: int = 0) -> bool:
            op = v.owner
            if isinstance(op, Block):
                return op is entry
            if depth > MAX_REMAT or not is_pure(op):
                return False
            return all(remat_ok(o, depth + 1) for o in op.operands)

        def remat(v: SSAValue, at: Operation) -> SSAValue:
            op = v.owner
            if isinstance(op, Block) or dominates(v, at):
                return v
            mapping = {o: remat(o, at) for o in op.operands}
            clone = op.clone(value_mapper=mapping)
            Rewriter.insert_op(clone, InsertPoint.before(at))
            return clone.results[op.results.index(v)]  # type: ignore[arg-type]

        first = entry.last_op
        assert first is not None
        debug = debug_build(self.kernel)
        values: list[SSAValue] = []
        for b in list(region.blocks):
            if b is not entry:
                values.extend(b.args)
            for o in list(b.ops):
                values.extend(o.results)
        def described_at(v: SSAValue) -> list[tuple[Block, Attribute]]:
            """Debug builds: the continuations where named ``v`` is described (``v``
            dominates their barrier: every work-item there has defined it)."""
            if not debug or not v.name_hint:
                return []
            return [(cont, loc) for cont, loc, ret in self._conts
                    if not (isinstance(v.owner, Block) and v.owner is cont)
                    and dominates(v, ret)]

        for v in values:
            uses = [(u, _ancestor_in_region(u.operation, region)) for u in list(v.uses)]
            far = [(u, at) for u, at in uses if not dominates(v, at)]
            described = described_at(v)
            owner = v.owner
            if (
                isinstance(owner, memref.AllocaOp)
                and not owner.dynamic_sizes
                and not owner.symbol_operands
            ):
                t = owner.memref.type
                assert isinstance(t, MemRefType)
                if not far:  # keep the stack static: allocate at the entry
                    owner.detach()
                    Rewriter.insert_op(owner, InsertPoint.before(first))
                    continue
                nbytes = byte_size(t)
                if nbytes is None or not isinstance(t.layout, NoneAttr):
                    raise NotSupportedError(
                        f"work-item-loops: private {t} in kernel @{self._name} is used across "
                        "a barrier; only static allocations of integers and floats with the "
                        "identity layout can be kept per work-item"
                    )
                stride = (nbytes + 15) // 16 * 16
                buf_t = MemRefType(i8, [DYNAMIC_INDEX], memory_space=t.memory_space)
                buf = self._add_arg(entry, "private", buf_t, t, stride)
                c = arith.ConstantOp.from_int_and_width(stride, IndexType())
                shift = arith.MuliOp(lin, c.result)
                view = memref.ViewOp(buf, shift.result, [], t)
                Rewriter.insert_op([c, shift, view], InsertPoint.before(first))
                owner.memref.replace_all_uses_with(view.result)
                Rewriter.erase_op(owner)
                continue
            if not far and not described:
                continue
            if remat_ok(v):
                for u, at in far:
                    u.operation.operands[u.index] = remat(v, at)
                for cont, _ in described:  # re-computed at the top of the continuation
                    at = cont.first_op
                    assert at is not None and isinstance(owner, Operation)
                    clone = owner.clone(value_mapper={o: remat(o, at) for o in owner.operands})
                    Rewriter.insert_op(clone, InsertPoint.before(at))
                continue
            if not far and not storable(v.type):
                continue  # debug builds: not described
            if not storable(v.type):
                what = f"'{owner.name}'" if isinstance(owner, Operation) else "a block argument"
                raise NotSupportedError(
                    f"work-item-loops: {what} value of type {v.type} in kernel @{self._name} "
                    "is live across a barrier and cannot be kept per work-item"
                )
            arr = self._add_arg(entry, "slot", MemRefType(v.type, [DYNAMIC_INDEX]))
            store = memref.StoreOp.get(v, arr, [lin])
            if isinstance(owner, Block):
                Rewriter.insert_op(store, InsertPoint.at_start(owner))
            else:
                Rewriter.insert_op(store, InsertPoint.after(owner))
            if debug and isinstance(owner, Operation):
                store.location = owner.location
            for u, at in far:
                load = memref.LoadOp.get(arr, [lin])
                Rewriter.insert_op(load, InsertPoint.before(at))
                u.operation.operands[u.index] = load.res
                if debug:  # the variable, read for this work-item, at the line reading it
                    load.res.name_hint = v.name_hint
                    load.location = u.operation.location
            for cont, loc in described:  # read for the work-item where it resumes
                load = memref.LoadOp.get(arr, [lin])
                load.location = loc
                load.res.name_hint = v.name_hint
                Rewriter.insert_op(load, InsertPoint.at_start(cont))
        fn = self.fn
        assert isinstance(fn, func.FuncOp)
        fn.function_type = func.FunctionType.from_lists(list(entry.arg_types), [i32])

    def _copies(self) -> list[str]:
        assert self.fn is not None
        names = _entry_copies(self.fn, self._name)
        self.fn = None
        return names

    @property
    def _name(self) -> str:
        return self.kernel.sym_name.data  # type: ignore[attr-defined]

    def emit(self, factory: NestFactory, ip: InsertPoint,
             check: tuple[Sites, str] | None = None) -> None:
        """The dispatch loop at ``ip`` of the (now empty) kernel body's entry block;
        ``check`` (the checking mode's sites and the kernel's name): after each round, every
        work-item whose state differs from work-item 0's is reported as a divergent barrier
        (``_check_states``)."""

        kernel = self.kernel
        assert isinstance(kernel, func.FuncOp) and self.fn is not None
        args = list(kernel.body.block.args)
        extras: list[SSAValue] = []
        for kind, t, private, stride in self.storage:
            if kind.startswith("global:"):
                get = memref.GetGlobalOp(kind.split(":", 1)[1], t)
                factory.insert_storage([get])
                extras.append(get.memref)
            elif kind == "slot":
                assert isinstance(t, MemRefType)
                extras.append(factory.new_array(t.element_type))
            else:
                assert private is not None
                c = arith.ConstantOp.from_int_and_width(stride, IndexType())
                total = arith.MuliOp(factory.group_size(), c.result)
                buf = memref.AllocaOp.get(
                    i8, alignment=64, shape=[DYNAMIC_INDEX], dynamic_sizes=[total.result],
                    memory_space=private.memory_space,
                )
                attrs.mark_per_work_item(buf)
                factory.insert_storage([c, total, buf])
                extras.append(buf.memref)
        state = factory.new_array(i32)
        zero32 = arith.ConstantOp.from_int_and_width(0, i32)
        exit_c = arith.ConstantOp.from_int_and_width(self.exit_id, i32)
        Rewriter.insert_op([zero32, exit_c], ip)
        init = factory.open_nest(ip)
        Rewriter.insert_op(memref.StoreOp.get(zero32, state, [init.lin]), init.ip)
        before = Block(arg_types=[i32])
        go = arith.CmpiOp(before.args[0], exit_c, "ne")
        before.add_ops([go, scf.ConditionOp(go, before.args[0])])
        after = Block(arg_types=[i32])
        cur = after.args[0]
        cur.name_hint = "cur"
        loop = scf.WhileOp([zero32], [i32], Region(before), Region(after))
        Rewriter.insert_op(loop, ip)
        aip = InsertPoint.at_end(after)
        # One copy of the region function per entry (its switch folded to a branch), one
        # work-item loop per entry selected at group level: the entry is known in each
        # loop, so LLVM inlines and optimizes each region on its own.
        cases: list[Region] = []
        for r, fn in enumerate(self._copies()):
            case = Block()
            yld = scf.YieldOp()
            case.add_op(yld)
            nest = factory.open_nest(InsertPoint.before(yld))
            st = memref.LoadOp.get(state, [nest.lin])
            run = arith.CmpiOp(st.res, cur, "eq")
            then = Block()
            call = func.CallOp(fn, [*args, nest.lin, cur, *extras], [i32])
            then.add_ops(
                [call, memref.StoreOp.get(call.res[0], state, [nest.lin]), scf.YieldOp()]
            )
            Rewriter.insert_op([st, run, scf.IfOp(run, [], Region(then))], nest.ip)
            cases.append(Region(case))
            del r
        default = Block()
        default.add_op(scf.YieldOp())
        which = arith.IndexCastOp(cur, IndexType())
        switch = scf.IndexSwitchOp(
            which,
            DenseArrayBase.from_list(i64, list(range(len(cases)))),
            Region(default),
            cases,
            [],
        )
        Rewriter.insert_op([which, switch], aip)
        Rewriter.insert_op(_fence(self.barriers), aip)
        if check is not None:
            self._check_states(factory, aip, state, *check)
        # next = min(state): the barrier every pending work-item waits at (all the same
        # in a legal program)
        body = Block(arg_types=[IndexType(), i32])
        x = memref.LoadOp.get(state, [body.args[0]])
        m = arith.MinUIOp(body.args[1], x.res)
        body.add_ops([x, m, scf.YieldOp(m)])
        one = arith.ConstantOp.from_int_and_width(1, IndexType())
        mn = scf.ForOp(factory.zero(), factory.group_size(), one, [exit_c], body)
        Rewriter.insert_op([one, mn, scf.YieldOp(mn.results[0])], aip)


    def _check_states(self, factory: NestFactory, ip: InsertPoint, state: SSAValue,
                      sites: Sites, kernel: str) -> None:
        """After a round every work-item of a legal program waits at the same barrier, or
        all have returned: one that is elsewhere than work-item 0 is a barrier reached by
        only some of them. Reported with both states (barrier i is state i + 1, returned is
        the last), the work-group and the work-item (``runtime/checks.py``)."""
        states = ", ".join(
            [f"{i + 1} = barrier {b.id.value.data}" if hasattr(b, "id") else f"{i + 1} = "
             f"barrier {i}" for i, b in enumerate(self.barriers)]
            + [f"{self.exit_id} = returned"]
        )
        site = sites.message(
            f"kernel @{kernel}: {MESSAGE}: the work-items of a work-group stop at different "
            f"barriers, so only some of them reach one (region dispatch; states: {states})"
        )
        nest = factory.open_nest(ip)
        zero = arith.ConstantOp.from_int_and_width(0, IndexType())
        first = memref.LoadOp.get(state, [zero.result])
        mine = memref.LoadOp.get(state, [nest.lin])
        differs = arith.CmpiOp(mine.res, first.res, "ne")
        then = Block()
        then.add_ops([*report_ops(site, [first.res, mine.res], []), scf.YieldOp()])
        Rewriter.insert_op(
            [zero, first, mine, differs, scf.IfOp(differs.result, [], Region(then))], nest.ip
        )


def _drop_unreachable(region: Region) -> None:
    """Erase the blocks the entry cannot reach (what other entries needed)."""
    entry = region.blocks.first
    assert entry is not None
    seen = {entry}
    stack = [entry]
    while stack:
        b = stack.pop()
        for succ in b.last_op.successors if b.last_op is not None else ():
            if succ not in seen:
                seen.add(succ)
                stack.append(succ)
    dead = [region.detach_block(b) for b in list(region.blocks) if b not in seen]
    for b in dead:
        for op in b.ops:
            op.drop_all_references()
    for b in dead:
        b.erase(safe_erase=False)


def _entry_copies(fn: Operation, kernel_name: str) -> list[str]:
    """``@<k>.mux-region-<r>`` for r = 0 (kernel entry) and each barrier: the region
    function with its entry switch replaced by a branch to that region's start."""

    assert isinstance(fn, func.FuncOp)
    switch = fn.body.blocks.first.last_op  # type: ignore[union-attr]
    assert isinstance(switch, cf.SwitchOp)
    targets = [switch.default_block, *switch.case_blocks]
    names: list[str] = []
    anchor: Operation = fn
    for r, target in enumerate(targets):
        block_map: dict[Block, Block] = {}
        copy = fn.clone(block_mapper=block_map)
        copy.sym_name = StringAttr(f"{kernel_name}.mux-region-{r}")
        entry = copy.body.blocks.first
        assert entry is not None
        Rewriter.replace_op(entry.last_op, cf.BranchOp(block_map[target]))  # type: ignore
        _drop_unreachable(copy.body)
        Rewriter.insert_op(copy, InsertPoint.after(anchor))
        anchor = copy
        names.append(copy.sym_name.data)
    Rewriter.erase_op(fn)
    return names


def _fence(barriers: list[mux.WorkGroupBarrierOp]) -> mux.MemBarrierOp:
    """One fence as strong as every barrier's memory part."""
    scopes = [b.scope_value() for b in barriers]
    semantics = 0
    for b in barriers:
        semantics |= b.semantics_value()
    ordering = semantics & 0x1F
    if ordering:
        semantics = (semantics & ~0x1F) | (0x10 if ordering & 0x10 else 0x8)
    return mux.MemBarrierOp(min(scopes) if scopes else 2, semantics)
