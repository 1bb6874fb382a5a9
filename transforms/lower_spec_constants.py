"""lower-spec-constants: sycl-post-link's SpecConstantsPass, at dialect level.

Re-creates the pass of DPC++'s "Specialization constants" design.

Replaces the markers ``spec.get_scalar`` / ``spec.get_composite`` and the module-level
``spec.specialization_id`` defaults, in one of two modes:

* ``mode=native`` (default): each marker becomes a tree of ``spec.constant spec_id(N) =
  default`` leaves and ``spec.constant_composite`` nodes, one per composite level including
  the outermost (the reference's ``__spirv_SpecConstant`` / ``__spirv_SpecConstantComposite``
  form). ``convert-spec-to-llvm`` turns that form into code for the host JIT.
* ``mode=emulated``: each marker becomes ``llvm.getelementptr`` + ``llvm.load`` of its type
  from the runtime buffer at the constant's offset (an ``i1`` is loaded as ``i8`` and
  truncated, a ``vector<Nxi1>`` as ``vector<Nxi8>``; a ``packed`` struct, whose layout is not
  LLVM's, leaf by leaf and put together with ``llvm.insertvalue``). The buffer is the
  marker's buffer operand if it has one, else an ``!llvm.ptr``
  argument appended to every function that reads a constant without one and to all their
  callers (call sites pass it on); an entry point that gets it records the argument's index in
  ``spec.buffer_arg``, and the runtime fills it. Host code cannot set values: its
  ``mux.launch``es of such kernels pass the address of ``@"xmux.spec_constants.defaults"``,
  a constant global holding the default blob. The loads carry ``spec.buffer_load`` so that
  ``convert-spec-to-llvm`` can hoist them out of the work-item loops.

ID assignment (both modes): symbolic ids in order of first use (module order, pre-order); a
scalar gets one numeric id, a composite one per scalar leaf, depth first, and one per undef
struct member (``#spec.undef``: an explicit padding member; it gets no descriptor and, native,
an ``llvm.mlir.undef`` element instead of a ``spec.constant``); a repeated symbolic id reuses
its ids (it must keep its type and default). Layout: constants in ascending id order,
each taking its store size (a vector without its tail padding); in emulated mode each is
aligned to its type (natural C layout, vectors aligned to their size rounded up to a power of
two); ``abi/spec_types.py`` documents the model.

Records (both modes), inserted at the top of the module: one ``spec.property`` per symbolic id
(type and ``(leaf id, offset, size)`` descriptors) and one ``spec.default_values`` blob. Option
``padding`` picks the descriptor form:

* ``dpcpp`` (default): what sycl-post-link emits. A padding descriptor (id ``padding`` =
  0xFFFFFFFF) only for a struct's tail padding (inner gaps follow from the offsets); in
  emulated mode the gap before the next constant is appended to the previous one (at its end)
  and the blob aligned; native sycl-post-link packs the blob without gaps. Emulated mode keeps
  per-leaf records (sycl-post-link writes one ``(id, 0, sizeof)`` per constant there);
* ``gaps``: xmux's self-describing form: a padding descriptor for every gap inside a value (a
  vector's tail padding included) and the gap before the next constant, in both modes, so the
  descriptors tile the buffer.

Either way a constant's offset is the sum of the sizes of the constants before it, a size
being the larger of its store size and the end of its last descriptor. Entry points get
``spec.used_constants``: the symbolic ids read by the kernel or functions it calls, in order of
first use among those functions (module order), the order of the kernel's own module when
sycl-post-link splits per kernel (``Program.kernel_property_sets``).

Expects: markers verified (default symbol of the marker's type). Guarantees: no markers and no
``spec.specialization_id`` left. Errors name the marker's symbolic id.

Before::

    spec.specialization_id @id_int = 42 : i32
    spec.specialization_id @id_A = [1 : i32, [3.0 : f32, 4.0 : f32]]
        : !llvm.struct<(i32, struct<(f32, f32)>)>
    func.func @k() attributes {mux.kernel = "entry_point"} {
      %x = spec.get_scalar "id_int", @id_int : i32
      %a = spec.get_composite "id_A", @id_A : !llvm.struct<(i32, struct<(f32, f32)>)>
      ...

After (native)::

    spec.property "id_int" : i32 = [(0, 0, 4)]
    spec.property "id_A" : !llvm.struct<(i32, !llvm.struct<(f32, f32)>)>
        = [(1, 0, 4), (2, 4, 4), (3, 8, 4)]
    spec.default_values "0x2A0000000100000000004040000080400"
    func.func @k() attributes {mux.kernel = "entry_point",
                               spec.used_constants = ["id_int", "id_A"]} {
      %x = spec.constant spec_id(0) = 42 : i32
      %0 = spec.constant spec_id(1) = 1 : i32
      %1 = spec.constant spec_id(2) = 3.000000e+00 : f32
      %2 = spec.constant spec_id(3) = 4.000000e+00 : f32
      %3 = spec.constant_composite %1, %2 : !llvm.struct<(f32, f32)>
      %a = spec.constant_composite %0, %3 : !llvm.struct<(i32, !llvm.struct<(f32, f32)>)>

After (emulated)::

    func.func @k(%spec_buffer: !llvm.ptr) attributes {..., spec.buffer_arg = 0 : i64} {
      %0 = llvm.getelementptr %spec_buffer[0] : (!llvm.ptr) -> !llvm.ptr, i8
      %x = llvm.load %0 {alignment = 4 : i64} : !llvm.ptr -> i32
      %1 = llvm.getelementptr %spec_buffer[4] : (!llvm.ptr) -> !llvm.ptr, i8
      %a = llvm.load %1 {alignment = 4 : i64} : !llvm.ptr -> !llvm.struct<(...)>
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    TensorType,
    VectorType,
    i1,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from xmux.abi import spec_types as rt
from xmux.abi.errors import NotSupportedError, XmuxError
from xmux.dialects import attrs, mux, spec

MODES = ("native", "emulated")
PADDING = rt.PADDING_FORMS
#: emulated mode: the default blob, for kernel launches from host code
DEFAULTS_GLOBAL = "xmux.spec_constants.defaults"
PTR = llvm.LLVMPointerType()


@dataclass
class _Constant:
    symbolic_id: str
    type: Attribute
    model: rt.SpecType
    default: spec.SpecializationIdOp
    first_id: int
    #: struct members whose default is undef (explicit padding: an id, no leaf)
    undef: frozenset[rt.Path] = frozenset()
    offset: int = 0
    descriptors: list[tuple[int, int, int]] = field(default_factory=list)


def _where(marker: spec.GetSpecConstantOp) -> str:
    return f"{marker.name} \"{marker.symbolic_id.data}\""


def _assign_ids(
    markers: list[spec.GetSpecConstantOp], defaults: dict[str, spec.SpecializationIdOp]
) -> dict[str, _Constant]:
    consts: dict[str, _Constant] = {}
    next_id = 0
    for m in markers:
        sid = m.symbolic_id.data
        dname = m.default_value.string_value()
        d = defaults.get(dname)
        if d is None:
            raise XmuxError(f"{_where(m)}: no spec.specialization_id @{dname} in the module")
        t = m.result.type
        c = consts.get(sid)
        if c is None:
            try:
                model = spec.spec_type(t, d.is_packed)
            except VerifyException as e:
                raise XmuxError(f"{_where(m)}: {e}") from None
            try:
                undef = spec.undef_paths(t, d.value)
            except VerifyException as e:
                raise XmuxError(f"{_where(m)}: @{dname}: {e}") from None
            c = _Constant(sid, t, model, d, next_id, undef)
            consts[sid] = c
            next_id = rt.descriptors(model, next_id, undef=c.undef)[1]
        elif c.type != t:
            raise XmuxError(f"{_where(m)}: read as {t} here but as {c.type} before")
        elif c.default is not d:
            raise XmuxError(
                f"{_where(m)}: default @{dname} here but @{c.default.sym_name.data} before"
            )
    return consts


def _layout(consts: dict[str, _Constant], mode: str, padding: str) -> bytes:
    """Offsets, descriptors and the default blob; ascending ids (``spec_types.layout``)."""
    placed, size = rt.layout([(c.model, c.undef) for c in consts.values()], mode, padding)
    blob = bytearray(size)
    for c, p in zip(consts.values(), placed, strict=True):
        assert p.first_id == c.first_id
        c.offset, c.descriptors = p.offset, p.descriptors
        n = rt.store_size(c.model)
        blob[p.offset : p.offset + n] = spec.default_bytes(
            c.type, c.default.value, c.default.is_packed
        )[:n]
    return bytes(blob)


def _native_tree(
    t: Attribute,
    path: rt.Path,
    c: _Constant,
    leaves: Iterator[Attribute],
    ids: Iterator[int],
    ops: list[Operation],
) -> SSAValue:
    if path in c.undef:  # an explicit padding member: its id is taken, its value undefined
        next(ids)
        op: Operation = llvm.UndefOp(t)
    elif spec.is_scalar_type(t):
        op = spec.SpecConstantOp(next(ids), next(leaves))  # type: ignore[arg-type]
    else:
        elems = [
            _native_tree(et, (*path, i), c, leaves, ids, ops)
            for i, et in enumerate(spec.element_types(t))
        ]
        op = spec.ConstantCompositeOp(elems, t)
    ops.append(op)
    return op.results[0]


def _lower_native(m: spec.GetSpecConstantOp, c: _Constant) -> None:
    ops: list[Operation] = []
    leaves = iter(spec.default_leaves(c.type, c.default.value))
    result = _native_tree(c.type, (), c, leaves, itertools.count(c.first_id), ops)
    _replace(m, ops, result)


def _assemble(
    t: Attribute,
    model: rt.SpecType,
    buffer: SSAValue,
    offset: int,
    path: rt.Path,
    undef: frozenset[rt.Path],
    ops: list[Operation],
) -> SSAValue:
    """A value whose memory layout is not LLVM's (a packed struct), loaded leaf by leaf and
    put together; undef members stay undef."""
    if spec.is_scalar_type(t):
        gep = llvm.GEPOp(buffer, [offset], i8)
        load = llvm.LoadOp(gep, i8 if t == i1 else t, alignment=1)
        attrs.set_spec_buffer_load(load)
        ops += [gep, load]
        if t != i1:
            return load.dereferenced_value
        trunc = arith.TruncIOp(load.dereferenced_value, i1)
        ops.append(trunc)
        return trunc.result
    agg: Operation = llvm.UndefOp(t)
    ops.append(agg)
    elems = zip(rt.children(model), spec.element_types(t), strict=True)
    for i, ((off, sub), et) in enumerate(elems):
        if (*path, i) in undef:
            continue
        e = _assemble(et, sub, buffer, offset + off, (*path, i), undef, ops)
        if isinstance(t, VectorType):
            idx = llvm.ConstantOp(IntegerAttr(i, i32), i32)
            ops.append(idx)
            agg = llvm.InsertElementOp(agg.results[0], e, idx.result)
        else:
            agg = llvm.InsertValueOp(DenseArrayBase.from_list(i64, [i]), agg.results[0], e)
        ops.append(agg)
    return agg.results[0]


def _lower_emulated(m: spec.GetSpecConstantOp, c: _Constant, buffer: SSAValue) -> None:
    if isinstance(c.model, rt.Struct) and c.model.packed:
        ops: list[Operation] = []
        result = _assemble(c.type, c.model, buffer, c.offset, (), c.undef, ops)
        _replace(m, ops, result)
        return
    gep = llvm.GEPOp(buffer, [c.offset], i8)
    # bools take a byte each: an i1 (or vector of i1) is loaded as bytes and truncated
    t = c.type
    bools = t == i1 or (isinstance(t, VectorType) and t.element_type == i1)
    loaded = (VectorType(i8, t.get_shape()) if isinstance(t, VectorType) else i8) if bools else t
    load = llvm.LoadOp(gep, loaded, alignment=rt.align_of(c.model))
    attrs.set_spec_buffer_load(load)  # invariant: convert-spec-to-llvm hoists it
    ops = [gep, load]
    if bools:  # arith.trunci takes no vectors in xDSL
        trunc = llvm.TruncOp if isinstance(t, VectorType) else arith.TruncIOp
        ops.append(trunc(load.dereferenced_value, t))
    _replace(m, ops, ops[-1].results[0])


def _replace(m: Operation, ops: list[Operation], result: SSAValue) -> None:
    Rewriter.insert_op(ops, InsertPoint.before(m))
    result.name_hint = m.results[0].name_hint
    m.results[0].replace_all_uses_with(result)
    m.detach()
    m.erase()


def _enclosing_function(op: Operation) -> Operation | None:
    p = op.parent_op()
    while p is not None and not isinstance(p, (func.FuncOp, llvm.FuncOp)):
        p = p.parent_op()
    return p


def _call_graph(module: ModuleOp) -> dict[str, set[str]]:
    """callee names per function name (func.call only)."""
    graph: dict[str, set[str]] = {}
    for f in module.ops:
        if isinstance(f, func.FuncOp):
            graph[f.sym_name.data] = {
                c.callee.string_value() for c in f.walk() if isinstance(c, func.CallOp)
            }
    return graph


def _closure(seed: dict[str, set[str]], graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Propagate per-function sets from callees to callers until nothing changes."""
    out = {f: set(seed.get(f, ())) for f in graph}
    changed = True
    while changed:
        changed = False
        for f, callees in graph.items():
            for g in callees:
                extra = out.get(g, set()) - out[f]
                if extra:
                    out[f] |= extra
                    changed = True
    return out


def _add_buffer_args(module: ModuleOp, needs: set[str]) -> dict[str, SSAValue]:
    """Append the buffer argument to the functions in ``needs``; pass it on at call sites."""
    funcs = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
    buffers: dict[str, SSAValue] = {}
    for name in sorted(needs):
        f = funcs[name]
        if not f.body.blocks:
            continue
        block = f.body.blocks[0]
        arg = block.insert_arg(PTR, len(block.args))
        arg.name_hint = "spec_buffer"
        ft = f.function_type
        f.function_type = FunctionType.from_lists([*ft.inputs.data, PTR], ft.outputs.data)
        buffers[name] = arg
        if attrs.is_entry_point(f):
            attrs.set_spec_buffer_arg(f, len(block.args) - 1)
    for name in needs:
        for call in [c for c in funcs[name].walk() if isinstance(c, func.CallOp)]:
            callee = call.callee.string_value()
            if callee in buffers:
                new = func.CallOp(
                    call.callee, [*call.arguments, buffers[name]], list(call.result_types)
                )
                new.attributes |= call.attributes
                Rewriter.replace_op(call, new)
    return buffers


def _pass_defaults_to_host_launches(
    module: ModuleOp, kernels: set[str], blob: bytes
) -> list[Operation]:
    """Host code (``mux.launch`` in xmux-run's @main) has no values to set: launches of kernels
    that take the buffer pass the address of a constant global holding the default blob."""
    launches = [
        o
        for o in module.walk()
        if isinstance(o, mux.LaunchOp) and o.kernel.string_value() in kernels
    ]
    if not launches:
        return []
    t = llvm.LLVMArrayType(len(blob), i8)
    init = DenseIntOrFPElementsAttr.from_list(
        TensorType(i8, [len(blob)]), [b - 256 if b > 127 else b for b in blob]
    )
    glob = llvm.GlobalOp(
        t, DEFAULTS_GLOBAL, "internal", constant=True, value=init, alignment=rt.BUFFER_ALIGNMENT
    )
    for launch in launches:
        addr = llvm.AddressOfOp(DEFAULTS_GLOBAL, PTR)
        new = mux.LaunchOp(
            launch.kernel,
            [*launch.args, addr.result],
            launch.global_size,
            launch.local_size,
            launch.global_offset,
        )
        new.attributes |= launch.attributes
        Rewriter.insert_op(addr, InsertPoint.before(launch))
        Rewriter.replace_op(launch, new)
    return [glob]


@dataclass(frozen=True)
class LowerSpecConstants(ModulePass):
    """Lower specialization-constant markers to ``spec.constant`` trees or buffer loads."""

    name = "lower-spec-constants"

    mode: str = "native"
    padding: str = "dpcpp"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.mode not in MODES:
            raise XmuxError(
                f"lower-spec-constants: mode must be native or emulated, got {self.mode!r}"
            )
        if self.padding not in PADDING:
            raise XmuxError(
                f"lower-spec-constants: padding must be dpcpp or gaps, got {self.padding!r}"
            )
        markers = [o for o in op.walk() if isinstance(o, spec.GetSpecConstantOp)]
        homes = {m: _enclosing_function(m) for m in markers}
        defaults = {o.sym_name.data: o for o in op.ops if isinstance(o, spec.SpecializationIdOp)}
        props, blob_op = spec.records(op)
        records_extra: list[Operation] = []
        if markers and (props or blob_op):
            raise XmuxError(
                "lower-spec-constants: the module already has specialization-constant records "
                f"(spec.property / spec.default_values) and new markers ({_where(markers[0])})"
            )
        consts = _assign_ids(markers, defaults)
        blob = _layout(consts, self.mode, self.padding)

        # functions reading a constant without a buffer operand (emulated: they get one)
        graph = _call_graph(op)
        implicit: set[str] = set()
        for m in markers:
            f = homes[m]
            fname = f.sym_name.data if f is not None else None
            if self.mode == "emulated" and m.buffer is None:
                if not isinstance(f, func.FuncOp):
                    raise NotSupportedError(
                        f"{_where(m)}: emulated mode needs the marker in a func.func or an "
                        "explicit buffer operand"
                    )
                implicit.add(fname)  # type: ignore[arg-type]
        # per kernel, in order of first use within the functions it reaches: the order of its
        # own module when sycl-post-link splits per kernel (its per-kernel property sets)
        reach = _closure({f: {f} for f in graph}, graph)
        for f in attrs.entry_points(op):
            mine: list[str] = []
            for m in markers:
                g = homes[m]
                sid = m.symbolic_id.data
                name = f.sym_name.data
                if g is not None and g.sym_name.data in reach.get(name, {name}) and sid not in mine:
                    mine.append(sid)
            attrs.set_spec_constants_used(f, mine)

        if self.mode == "native":
            for m in markers:
                _lower_native(m, consts[m.symbolic_id.data])
        else:
            needs = {f for f, s in _closure({f: {f} for f in implicit}, graph).items() if s}
            kernels = {f.sym_name.data for f in attrs.entry_points(op)} & needs
            records_extra = _pass_defaults_to_host_launches(op, kernels, blob)
            buffers = _add_buffer_args(op, needs)
            for m in markers:
                buf = m.buffer
                if buf is None:
                    f = _enclosing_function(m)
                    buf = buffers[f.sym_name.data]  # type: ignore[union-attr]
                _lower_emulated(m, consts[m.symbolic_id.data], buf)

        for d in defaults.values():
            d.detach()
            d.erase()
        if consts:
            records: list[Operation] = [
                spec.PropertyOp(c.symbolic_id, c.type, c.descriptors, c.default.is_packed)
                for c in consts.values()
            ]
            records.append(spec.DefaultValuesOp(blob))
            records += records_extra
            block = op.body.blocks[0]
            if block.first_op is None:
                block.add_ops(records)
            else:
                Rewriter.insert_op(records, InsertPoint.before(block.first_op))

