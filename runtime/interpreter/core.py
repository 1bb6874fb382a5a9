"""The interpreter proper: xDSL's ``Interpreter`` with a flat environment and cached block
plans, one instance per work-item (its SSA values, call stack and ids).

xDSL's ``run_ssacfg_region`` pushes a ``ScopedDict`` per block and looks every op's
implementation up again; kernels run the same blocks millions of times, so the subclass
keeps one ``dict`` per call frame (SSA dominance makes shadowing unnecessary) and a
per-block plan ``(op, functions, impl, operands, results)`` shared by all work-items of a
launch. Implementations stay ordinary ``@impl`` functions of ``InterpreterFunctions``
classes (xDSL's own scf/cf ones are reused), and errors they raise pass through unwrapped:
xDSL's ``emit_error`` would bury an ``XmuxError`` in a diagnostic of the whole module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects import func, scf
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    OpImplResult,
    ReturnedValues,
    _InterpreterFunctionImpls,
)
from xdsl.ir import Block, Operation, Region
from xdsl.printer import Printer
from xdsl.traits import IsTerminator

from xmux.abi.errors import NotSupportedError


class _Impls(_InterpreterFunctionImpls):
    """Implementations without xDSL's error wrapping (our errors name kernel, op and
    work-item themselves)."""

    def run(self, interpreter: Interpreter, op: Operation, args: tuple[Any, ...]) -> OpImplResult:
        entry = self._impl_dict.get(type(op))
        if entry is None:
            raise NotSupportedError(f"interpreter: no implementation for op '{op.name}'")
        ft, impl = entry
        return impl(ft, interpreter, op, args)


#: terminators that return their operands to the region's op (handled inline)
_YIELDS = (scf.YieldOp, func.ReturnOp)

Plan = tuple[tuple[Operation, InterpreterFunctions, Any, tuple[int, ...], tuple[int, ...],
                   bool], ...]


@dataclass
class Shared:
    """What every work-item of a run shares: implementations, block plans, callee cache."""

    impls: _Impls
    module: Any = None
    #: block plans and region entries by ``id`` (the IR is kept alive in ``keep``)
    plans: dict[int, Plan] = field(default_factory=dict)
    regions: dict[int, Any] = field(default_factory=dict)
    #: coroutine plans (``coroutines.gen_plan``) and the ids of synchronising ops
    gplans: dict[int, Any] = field(default_factory=dict)
    sync: set[int] | None = None
    keep: list[Any] = field(default_factory=list)
    callees: dict[Operation, func.FuncOp] = field(default_factory=dict)
    #: non-local ``memref.global`` / ``llvm.mlir.global`` buffers (one per run)
    globals: dict[str, Any] = field(default_factory=dict)
    #: specialization constants set by the caller: symbolic id -> value
    spec_constants: dict[str, Any] = field(default_factory=dict)
    races: bool = False
    symbols: dict[str, Operation] = field(default_factory=dict)

    def symbol(self, name: str) -> Operation | None:
        if not self.symbols:
            for op in self.module.ops:
                sym = op.properties.get("sym_name") or op.attributes.get("sym_name")
                if sym is not None:
                    self.symbols[sym.data] = op
        return self.symbols.get(name)

    def entry(self, region: Region) -> tuple[tuple[int, ...], Plan] | None:
        """(argument keys, plan) of a region's first block (None: no block)."""
        key = id(region)
        hit = self.regions.get(key, self)
        if hit is self:
            block = region.first_block
            hit = self.regions[key] = (
                None if block is None else (tuple(id(a) for a in block.args), self.plan(block))
            )
        return hit  # type: ignore[return-value]

    def plan(self, block: Block) -> Plan:
        """Per op: (op, functions, implementation, operand keys, result keys, terminator).
        Values are keyed by ``id`` (xDSL's ``SSAValue.__hash__`` is a Python call); a
        non-terminator's ``@impl`` wrapper is unwrapped so no ``OpImplResult`` is built."""
        plan = self.plans.get(id(block))
        if plan is None:
            self.keep.append(block)
            rows = []
            for op in block.ops:
                entry = self.impls._impl_dict.get(type(op))
                if entry is None:
                    raise NotSupportedError(
                        f"interpreter: no implementation for op '{op.name}' ({op_text(op)})"
                    )
                ft, fn = entry
                term = op.has_trait(IsTerminator)
                if isinstance(op, _YIELDS):
                    rows.append((op, ft, None, tuple(id(o) for o in op.operands), (), True))
                    continue
                if not term and "func" in fn.__code__.co_freevars:
                    fn = fn.__closure__[fn.__code__.co_freevars.index("func")].cell_contents
                else:
                    term = True  # a wrapper returning OpImplResult
                rows.append((op, ft, fn, tuple(id(o) for o in op.operands),
                             tuple(id(r) for r in op.results), term))
            plan = self.plans[id(block)] = tuple(rows)
        return plan


@dataclass(eq=False)
class XInterpreter(Interpreter):
    """One work-item's (or the host program's) interpreter."""

    shared: Shared | None = None
    #: SSA values of the current call frame, keyed by ``id(value)``
    env: dict[int, Any] = field(default_factory=dict)
    #: the ``workgroup.WorkItem`` / ``workgroup.Launch`` running (None for the host program);
    #: untyped here: workgroup.py builds on this module
    wi: Any = None
    launch: Any = None
    #: the op being interpreted (for error messages)
    op: Operation | None = None
    #: func.call ops of the current call chain (barrier identity, error messages)
    stack: list[Operation] = field(default_factory=list)
    #: the successor of the last block that branched (``run_block``)
    branch: Any = None
    #: buffers only fake addresses point to (llvm.alloca): alive as long as the work-item
    keep: list[Any] = field(default_factory=list)

    # -- environment: one flat dict per call frame --------------------------------------
    def get_values(self, values) -> tuple[Any, ...]:
        env = self.env
        return tuple(env[id(v)] for v in values)

    def set_values(self, pairs) -> None:
        env = self.env
        for k, v in pairs:
            env[id(k)] = v

    def push_scope(self, name: str | None = None) -> None:
        pass

    def pop_scope(self) -> None:
        pass

    def run_ssacfg_region(
        self, region: Region, args: tuple[Any, ...], name: str = "unknown"
    ) -> tuple[Any, ...]:
        shared = self.shared
        assert shared is not None
        entry = shared.entry(region)
        if entry is None:
            return ()
        argkeys, plan = entry
        while True:
            out = self.run_block(argkeys, plan, args)
            if out is not None:
                return out
            block, args = self.branch  # type: ignore[misc]
            argkeys, plan = tuple(id(a) for a in block.args), shared.plan(block)

    def run_block(
        self, argkeys: tuple[int, ...], plan: Plan, args: tuple[Any, ...]
    ) -> tuple[Any, ...] | None:
        """Run one block: the values it returns to the region's op, or None after a branch
        (the successor and its arguments in ``self.branch``)."""
        env = self.env
        for k, v in zip(argkeys, args, strict=True):
            env[k] = v
        for op, ft, fn, okeys, rkeys, term in plan:
            self.op = op
            if fn is None:  # scf.yield / func.return: leave the region
                return tuple([env[k] for k in okeys])
            vals = fn(ft, self, op, tuple([env[k] for k in okeys]))
            if term:
                tv = vals.terminator_value
                if tv is not None:
                    if tv.__class__ is ReturnedValues:
                        return tv.values
                    self.branch = tv
                    return None
                vals = vals.values
            if rkeys:
                if len(rkeys) == 1:
                    env[rkeys[0]] = vals[0]
                else:
                    for k, v in zip(rkeys, vals, strict=True):
                        env[k] = v
        return ()

    def call_function(self, callee: func.FuncOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """Run ``callee``'s body in a fresh frame."""
        saved = self.env
        self.env = {}
        try:
            return self.run_ssacfg_region(callee.body, args, callee.sym_name.data)
        finally:
            self.env = saved

    def callee(self, op: func.CallOp) -> func.FuncOp:
        shared = self.shared
        assert shared is not None
        f = shared.callees.get(op)
        if f is None:
            target = self.get_op_for_symbol(op.callee)
            if not isinstance(target, func.FuncOp):
                raise NotSupportedError(
                    f"interpreter: call of @{op.callee.string_value()}, which is not a func.func"
                )
            f = shared.callees[op] = target
        return f

    # -- module-level state ---------------------------------------------------------------
    def global_memref(self, op) -> Any:
        """The buffer of ``memref.get_global``: per work-group in memory space 3."""
        from xdsl.dialects import memref

        from xmux.runtime.interpreter import memory

        name = op.name_.string_value()
        shared = self.shared
        assert shared is not None
        g = shared.symbol(name)
        if not isinstance(g, memref.GlobalOp):
            raise NotSupportedError(f"memref.get_global @{name}: no such memref.global")
        if memory.memory_space(g.type) == memory.LOCAL_SPACE:
            if self.wi is None:
                raise NotSupportedError(
                    f"work-group local @{name} used outside a kernel at {self.where()}"
                )
            group = self.wi.group
            m = group.locals.get(name)
            if m is None:
                m = group.locals[name] = memory.new_memref(
                    g.type, (), f"work-group local @{name}", local=True, races=shared.races
                )
            return m
        m = shared.globals.get(name)
        if m is None:
            m = shared.globals[name] = memory.global_initial(g, f"global @{name}")
        return m

    def llvm_global_address(self, name: str) -> int:
        from xdsl.dialects import llvm

        from xmux.runtime.interpreter import memory
        from xmux.runtime.interpreter.values import storage_dtype

        shared = self.shared
        assert shared is not None
        key = "llvm:" + name
        m = shared.globals.get(key)
        if m is None:
            g = shared.symbol(name)
            if not isinstance(g, llvm.GlobalOp):
                raise NotSupportedError(f"llvm.mlir.addressof @{name}: no such llvm.mlir.global")
            t = g.global_type
            if not (hasattr(t, "width") or hasattr(t, "bitwidth")):
                raise NotSupportedError(f"llvm.mlir.global @{name} of type {t}")
            dtype = storage_dtype(t)
            alloc = memory.Allocation.new(dtype.itemsize, f"global @{name}")
            value = getattr(g, "value", None)
            if value is not None and hasattr(value, "value"):
                alloc.view(dtype, 0)[0] = value.value.data
            m = shared.globals[key] = alloc
        return m.address

    def spec_value(self, op) -> Any:
        """A specialization constant: the caller's value, else the default."""
        from xmux.dialects import spec
        from xmux.runtime import spec_constants as sc
        from xmux.runtime.interpreter.misc import from_spec_value

        shared = self.shared
        assert shared is not None
        sym = op.symbolic_id.data
        t = op.result.type
        st = spec.spec_type(t)
        if sym in shared.spec_constants:
            raw = sc.encode(st, shared.spec_constants[sym], f"specialization constant '{sym}'")
        else:
            d = shared.symbol(op.default_value.string_value())
            if not isinstance(d, spec.SpecializationIdOp):
                raise NotSupportedError(f"{op.name} \"{sym}\": no default @"
                                        f"{op.default_value.string_value()}")
            raw = spec.default_bytes(t, d.value)
        return from_spec_value(sc.decode(st, raw), t)

    # -- error messages ---------------------------------------------------------------------
    def where(self, op: Operation | None = None) -> str:
        """"kernel 'k', work-item … of group …, op '…'" for error messages."""
        op = op or self.op
        parts = []
        if self.launch is not None:
            parts.append(f"kernel '{self.launch.name}'")
        if self.wi is not None:
            parts.append(self.wi.describe())
        if op is not None:
            parts.append(f"op '{op.name}' ({op_text(op)})")
        return ", ".join(parts) if parts else "host program"


def op_text(op: Operation, limit: int = 160) -> str:
    """The op's text in one line (regions elided), for error messages."""
    import io

    out = io.StringIO()
    if op.regions:
        text = f"{op.name} ..."
    else:
        Printer(stream=out).print_op(op)
        text = " ".join(out.getvalue().split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def enclosing_function(op: Operation) -> func.FuncOp | None:
    p = op.parent_op()
    while p is not None and not isinstance(p, func.FuncOp):
        p = p.parent_op()
    return p
