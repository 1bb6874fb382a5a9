"""The machinery of convert-to-llvm: a procedural, per-function conversion.

Each ``func.func`` (or ``llvm.func`` still holding non-llvm ops) is rebuilt as an ``llvm.func``
whose body is a flat list of blocks: source values map to converted values (``vmap``), source
blocks to new blocks (``bmap``); structured ops (scf) emit their own blocks and branches while
their regions are lowered in place. Per-dialect handlers (``to_llvm/<dialect>.py``) are
registered by op name in ``HANDLERS`` and get the ``FunctionLowerer`` to read operands and emit
llvm ops. Working procedurally (rather than with rewrite patterns) keeps block-structured
lowering and the work-item-loop annotation simple: while a work-item loop body is lowered, its
access-group id is on ``groups`` and every memory access emitted gets it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from xdsl.dialects import builtin, llvm
from xdsl.dialects.builtin import (
    UNKNOWN_LOC,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    UnknownLoc,
    UnregisteredOp,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xmux.abi.errors import NotSupportedError, XmuxError
from xmux.dialects import attrs, llvmx
from xmux.dialects import llvm as llvm_ext
from xmux.lowering.locations import is_debug
from xmux.lowering.to_llvm.types import convert_type

Handler = Callable[["FunctionLowerer", Operation], None]

#: Terminators of structured regions, handled by the op owning the region.
STRUCTURED_TERMINATORS = frozenset(
    {"scf.yield", "scf.condition", "scf.reduce", "memref.alloca_scope.return"}
)


def op_name(op: Operation) -> str:
    """The op's name, also for unregistered ops (e.g. the ``index`` dialect xDSL lacks)."""
    if isinstance(op, UnregisteredOp):
        return op.op_name.data
    return op.name


def is_memory_access(op: Operation) -> bool:
    """Ops whose memory accesses join the access group of an enclosing work-item loop.

    Calls are included so that LLVM's inliner propagates the group to the callee's accesses.
    """
    if isinstance(op, (llvm.LoadOp, llvm.StoreOp, llvm.CallOp)):
        return True
    if isinstance(op, llvm.CallIntrinsicOp):
        return op.intrin.data.startswith(
            ("llvm.memcpy", "llvm.memmove", "llvm.memset", "llvm.masked.")
        )
    return op.name in ("llvm.atomicrmw", "llvm.cmpxchg")


class ModuleLowerer:
    """Module-wide state: handlers, declarations to add, access-group ids, string globals."""

    def __init__(
        self,
        module: builtin.ModuleOp,
        handlers: dict[str, Handler],
        shared_memory: bool = False,
    ):
        self.module = module
        self.handlers = handlers
        #: work-group local memory (memory space 3) is a GPU's shared memory: its globals
        #: live in LLVM address space 3 (the NVPTX target); otherwise they are an error
        self.shared_memory = shared_memory
        self.symbols: dict[str, Operation] = {}
        for op in module.ops:
            name = op.properties.get("sym_name") or op.attributes.get("sym_name")
            if isinstance(name, StringAttr):
                self.symbols[name.data] = op
        self.new_symbols: list[Operation] = []
        self._next_group = 1 + max(
            [g for op in module.walk() for g in attrs.get_loop_parallel(op)]
            + [g for op in module.walk() for g in attrs.get_access_groups(op)]
            + [0]
        )
        self._strings: dict[str, str] = {}
        #: debug builds: lowered ops keep their source op's location, values their names
        self.debug = is_debug(module)

    def new_access_group(self) -> int:
        gid = self._next_group
        self._next_group += 1
        return gid

    def declare(self, name: str, inputs: Sequence[Attribute], output: Attribute | None) -> str:
        """Make sure an external function ``name`` exists (libm, malloc, ...); returns name."""
        if name not in self.symbols:
            decl = llvm.FuncOp(
                name,
                llvm.LLVMFunctionType(list(inputs), output),
                linkage=llvm.LinkageAttr("external"),
            )
            self.symbols[name] = decl
            self.new_symbols.append(decl)
        return name

    def string_global(self, text: str) -> str:
        """A private constant NUL-terminated string global; returns its symbol name."""
        if text in self._strings:
            return self._strings[text]
        name = f"xmux.str.{len(self._strings)}"
        while name in self.symbols:
            name += "_"
        data = text + "\0"
        glob = llvm.GlobalOp(
            llvm.LLVMArrayType(len(data.encode()), IntegerType(8)),
            name,
            "internal",
            constant=True,
            value=StringAttr(data),
        )
        self.symbols[name] = glob
        self.new_symbols.append(glob)
        self._strings[text] = name
        return name


class FunctionLowerer:
    """Converts the body of one function into the body of a new ``llvm.func``."""

    def __init__(self, mod: ModuleLowerer, func_name: str, region: Region):
        self.mod = mod
        self.func_name = func_name
        self.region = region
        self.block: Block = Block()
        self.entry: Block | None = None
        self.vmap: dict[SSAValue, SSAValue] = {}
        self.bmap: dict[Block, Block] = {}
        self.groups: list[int] = []
        self._untagged = 0
        # Source memrefs private to one work-item iteration (allocas inside a work-item loop
        # and views of them): their accesses must not claim to be parallel.
        self.private: set[SSAValue] = set()
        self.debug = mod.debug
        #: debug builds: the location of the op being lowered (given to what it becomes)
        self.loc: Attribute = UNKNOWN_LOC
        #: debug builds: the location of the structured terminator (scf.yield) that
        #: ``lower_ops`` handed back last: ``build_loop``'s latch takes it
        self.term_loc: Attribute | None = None

    # -- errors ---------------------------------------------------------------------------

    def error(self, op: Operation, msg: str) -> XmuxError:
        return NotSupportedError(
            f"convert-to-llvm: '{op_name(op)}' in @{self.func_name}: {msg}").at(op)

    # -- values and blocks ---------------------------------------------------------------

    def get(self, v: SSAValue) -> SSAValue:
        try:
            return self.vmap[v]
        except KeyError:
            raise XmuxError(
                f"convert-to-llvm: in @{self.func_name}, a value of type {v.type} is used "
                "before its definition was converted"
            ) from None

    def get_all(self, vs: Sequence[SSAValue]) -> list[SSAValue]:
        return [self.get(v) for v in vs]

    def set(self, src: SSAValue, new: SSAValue) -> None:
        self.vmap[src] = new

    def set_results(self, op: Operation, values: Sequence[SSAValue]) -> None:
        for r, v in zip(op.results, values, strict=True):
            self.vmap[r] = v

    def new_block(self, types: Sequence[Attribute] = ()) -> Block:
        """A block to be placed later with ``start``."""
        return Block(arg_types=list(types))

    def start(self, block: Block) -> None:
        """Append ``block`` to the function and emit into it from now on."""
        self.region.add_block(block)
        self.block = block

    # -- emission ------------------------------------------------------------------------

    def emit(self, op: Operation) -> Operation:
        if self.debug and isinstance(op.location, UnknownLoc):
            op.location = self.loc  # type: ignore[assignment]
        self.block.add_op(op)
        if self.groups and not self._untagged and is_memory_access(op):
            attrs.set_access_groups(op, list(self.groups))
        return op

    def emit_value(self, op: Operation) -> SSAValue:
        self.emit(op)
        return op.results[0]

    @contextmanager
    def untagged(self, cond: bool = True) -> Iterator[None]:
        """Memory accesses emitted inside are not part of any work-item access group."""
        self._untagged += int(cond)
        try:
            yield
        finally:
            self._untagged -= int(cond)

    def const(self, value: int, type: Attribute = i64) -> SSAValue:
        if isinstance(type, IntegerType) and type.width.data == 1:
            value = 1 if value else 0
        return self.emit_value(llvm.ConstantOp(IntegerAttr(value, type), type))

    def fconst(self, value: float, type: Attribute) -> SSAValue:
        return self.emit_value(llvm.ConstantOp(FloatAttr(value, type), type))  # type: ignore[arg-type]

    def entry_alloca(self, elem_type: Attribute, count: int = 1, alignment: int = 16) -> SSAValue:
        """A static ``llvm.alloca`` at the top of the entry block (so SROA/mem2reg see it)."""
        assert self.entry is not None
        size = llvm.ConstantOp(IntegerAttr(count, i64), i64)
        alloca = llvm.AllocaOp(size, elem_type, alignment=alignment)
        if self.debug:
            size.location = alloca.location = self.loc  # type: ignore[assignment]
        first = self.entry.first_op
        if first is None:
            self.entry.add_ops([size, alloca])
        else:
            self.entry.insert_ops_before([size, alloca], first)
        return alloca.results[0]

    def call(
        self, name: str, args: Sequence[SSAValue], result: Attribute | None
    ) -> SSAValue | None:
        op = llvm.CallOp(name, *args, return_type=result)
        self.emit(op)
        return op.returned

    def intrinsic(
        self,
        name: str,
        args: Sequence[SSAValue],
        result: Attribute | None,
        fastmath: llvm.FastMathAttr | None = None,
    ) -> SSAValue | None:
        """``llvm.call_intrinsic`` of a fully mangled name (``llvm.sqrt.v4f32``)."""
        op = llvm.CallIntrinsicOp(name, list(args), [] if result is None else [result])
        if fastmath is not None and fastmath.data:
            op.fastmathFlags = fastmath
        self.emit(op)
        return op.ress

    # -- lowering ops and regions --------------------------------------------------------

    def lower_op(self, op: Operation) -> None:
        if not self.debug:
            self._lower_op(op)
            return
        outer = self.loc
        if not isinstance(op.location, UnknownLoc):
            self.loc = op.location
        try:
            self._lower_op(op)
        finally:
            self.loc = outer
        for r in op.results:  # the value the result became carries its name (not the steps)
            new = self.vmap.get(r)
            if new is not None and r.name_hint and not new.name_hint:
                new.name_hint = r.name_hint

    def _lower_op(self, op: Operation) -> None:
        name = op_name(op)
        handler = self.mod.handlers.get(name)
        if handler is not None:
            handler(self, op)
        elif name.startswith("llvm."):
            self.copy_llvm_op(op)
        else:
            hint = " (run the kernel pipeline first)" if name.startswith("mux.") else ""
            raise self.error(op, f"no lowering to the llvm dialect{hint}")

    def lower_ops(self, block: Block, args: Sequence[SSAValue] = ()) -> Operation | None:
        """Lower ``block``'s ops in place, its arguments bound to ``args``; the terminator of a
        structured region (scf.yield, scf.condition) is returned for the caller to handle."""
        for a, v in zip(block.args, args, strict=True):
            self.vmap[a] = v
            if self.debug and a.name_hint and not v.name_hint:
                v.name_hint = a.name_hint  # a loop's induction variable, iteration values
        for op in block.ops:
            if op is block.last_op and op.name in STRUCTURED_TERMINATORS:
                if self.debug and not isinstance(op.location, UnknownLoc):
                    self.term_loc = op.location
                return op
            self.lower_op(op)
        return None

    def copy_llvm_op(self, op: Operation) -> None:
        """An llvm op from an earlier pass: copy with remapped operands and successors.

        Its memory accesses (scheduling structs) are left out of access groups on purpose.
        """
        if op.regions:
            raise self.error(op, "llvm ops with regions are not expected inside functions")
        cls, props = type(op), dict(op.properties)
        if cls in llvm_ext.UPSTREAM_CLASSES:  # xDSL's class: the upstream-printing one
            cls, props = llvm_ext.UPSTREAM_CLASSES[cls], llvm_ext.upstream_properties(cls, props)
        new = cls.create(
            operands=self.get_all(op.operands),
            result_types=[convert_type(r.type) for r in op.results],
            properties=props,
            attributes=dict(op.attributes),
            successors=[self.bmap[s] for s in op.successors],
        )
        if self.debug:
            new.location = op.location
        self.block.add_op(new)
        self.set_results(op, new.results)

    def lower_function_body(self, body: Region, arg_types: Sequence[Attribute]) -> None:
        """Lower a function region with blocks mapped 1:1 (cf-style branches keep working);
        the entry block gets the converted signature's ``arg_types``."""
        src_blocks = list(body.blocks)
        for i, b in enumerate(src_blocks):
            types = arg_types if i == 0 else [convert_type(a.type) for a in b.args]
            self.bmap[b] = self.new_block(types)
        self.entry = self.bmap[src_blocks[0]]
        for b in src_blocks:
            nb = self.bmap[b]
            self.start(nb)
            for a, v in zip(b.args, nb.args, strict=True):
                self.vmap[a] = v
                if self.debug and a.name_hint:
                    v.name_hint = a.name_hint
            for op in b.ops:
                self.lower_op(op)

    # -- helpers shared by several dialects ---------------------------------------------

    def build_loop(
        self,
        lb: SSAValue,
        ub: SSAValue,
        step: SSAValue,
        inits: Sequence[SSAValue],
        body: Callable[[SSAValue, list[SSAValue]], list[SSAValue]],
        *,
        unsigned: bool = False,
        parallel_group: int | None = None,
        vectorize_width: int | None = None,
    ) -> list[SSAValue]:
        """Emit ``for (iv = lb; iv < ub; iv += step)`` with loop-carried ``inits``.

        ``body(iv, carried)`` emits the body and returns the next carried values. With
        ``parallel_group`` the body's accesses join that access group and the latch branch is
        marked parallel; ``vectorize_width`` goes on the latch as the loop's vectorization
        hint. Returns the values carried out of the loop.
        """
        header = self.new_block([lb.type, *(v.type for v in inits)])
        body_block = self.new_block()
        exit_block = self.new_block()
        self.emit(llvm.BrOp(header, lb, *inits))
        self.start(header)
        iv, carried = header.args[0], list(header.args[1:])
        pred = "ult" if unsigned else "slt"
        cond = self.emit_value(
            llvm.ICmpOp(iv, ub, IntegerAttr(llvm.ICmpPredicateFlag(pred).to_int(), i64))
        )
        self.emit(llvm.CondBrOp(cond, body_block, [], exit_block, []))
        self.start(body_block)
        if parallel_group is not None:
            self.groups.append(parallel_group)
        outer_loc = self.loc
        try:
            self.term_loc = None
            nexts = body(iv, carried)
            if self.debug and self.term_loc is not None:
                self.loc = self.term_loc  # the latch is the body's scf.yield
            nxt = self.emit_value(llvm_ext.AddOp(iv, step))
            latch = self.emit(llvm.BrOp(header, nxt, *nexts))
        finally:
            self.loc = outer_loc
            if parallel_group is not None:
                self.groups.pop()
        if parallel_group is not None or vectorize_width is not None:
            attrs.set_loop_annotation(latch, parallel_group, vectorize_width)
        self.start(exit_block)
        return carried

    def map_lanes(
        self,
        result_type: Attribute,
        operands: Sequence[SSAValue],
        scalar: Callable[[list[SSAValue]], SSAValue],
    ) -> SSAValue:
        """Apply ``scalar`` lane by lane (ops that xDSL's llvm dialect has only for scalars).

        Vector operands are split with ``llvm.extractelement``; scalar operands are passed
        unchanged to every lane.
        """
        assert isinstance(result_type, VectorType)
        acc = self.emit_value(llvm.UndefOp(result_type))
        for lane in range(result_type.get_shape()[0]):
            pos = self.const(lane)
            args = [
                self.emit_value(llvmx.ExtractElementOp(v, pos))
                if isinstance(v.type, VectorType)
                else v
                for v in operands
            ]
            acc = self.emit_value(llvm.InsertElementOp(acc, scalar(args), pos))
        return acc
