"""add-kernel-wrapper, add-entry-hook, replace-local-module-scope-variables (programmatic).

- the packed-argument struct's LLVM layout equals the runtime's ctypes mirror (runtime/abi.py);
- the local-memory struct's LLVM layout puts every field where the pass says, aligned;
- the entry hook, interpreted (xDSL interpreter + a small model of the llvm memory ops), visits
  every work-group exactly once over all slices with the right ids and remainder sizes;
- the passes in pipeline order (with work-item-loops / define-mux-builtins when present) give
  verified IR with one exported hook per kernel.
"""

from __future__ import annotations

import ctypes
import importlib
import itertools
from typing import Any

import llvmlite.binding as llvm_binding
import pytest
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, llvm, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    Float16Type,
    IndexType,
    MemRefType,
    ModuleOp,
    UnrankedMemRefType,
    VectorType,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    impl_external,
    register_impls,
)
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.passes import ModulePass

from xmux.dialects import attrs
from xmux.dialects.mux import Mux
from xmux.errors import NotSupportedError, XmuxError
from xmux.runtime import abi
from xmux.transforms.add_entry_hook import AddEntryHook
from xmux.transforms.add_kernel_wrapper import (
    AddKernelWrapper,
    descriptor_type,
    kernel_arg_types,
    lowered_arg_type,
    packed_struct_type,
)
from xmux.transforms.replace_local_module_scope_variables import (
    ReplaceLocalModuleScopeVariables,
)

llvm_binding.initialize_native_target()
_TD = llvm_binding.Target.from_default_triple().create_target_machine().target_data


def _llvm_layout(t: llvm.LLVMStructType) -> tuple[list[int], int]:
    """(field offsets, ABI size) of an llvm struct type under the host's data layout."""
    mod = llvm_binding.parse_assembly(f"@g = global {convert_type(t)} zeroinitializer")
    ty = mod.get_global_variable("g").global_value_type
    n = len(t.types.data)
    return [_TD.get_element_offset(ty, i) for i in range(n)], _TD.get_abi_size(ty)


def _parse(text: str) -> ModuleOp:
    ctx = Context()
    for d in (arith.Arith, builtin.Builtin, func.Func, llvm.LLVM, memref.MemRef, scf.Scf):
        ctx.load_dialect(d)
    return Parser(ctx, text).parse_module()


# ---------------------------------------------------------------------------------------
# Packed-argument layout
# ---------------------------------------------------------------------------------------


def test_lowered_arg_types() -> None:
    assert lowered_arg_type(i1) == i8
    assert lowered_arg_type(IndexType()) == i64
    for t in (i8, i16, i32, i64, Float16Type(), f32, f64, VectorType(f32, [4])):
        assert lowered_arg_type(t) == t
    m = MemRefType(f32, [4, DYNAMIC_INDEX])
    assert lowered_arg_type(m) == descriptor_type(m)
    assert [str(x) for x in descriptor_type(m).types.data] == [
        "!llvm.ptr", "!llvm.ptr", "i64", "!llvm.array<2 x i64>", "!llvm.array<2 x i64>"
    ]
    assert len(descriptor_type(MemRefType(f32, [])).types.data) == 3


def test_lowered_arg_type_rejects_unsupported() -> None:
    unsigned = builtin.IntegerType(32, builtin.Signedness.UNSIGNED)
    for t in (UnrankedMemRefType.from_type(f32), unsigned, VectorType(i1, [4])):
        with pytest.raises(NotSupportedError, match="cannot be passed in the packed arguments"):
            lowered_arg_type(t)


_MLIR_SCALARS = {"i1": i1, "i8": i8, "i16": i16, "i32": i32, "i64": i64, "index": IndexType(),
                 "f16": Float16Type(), "f32": f32, "f64": f64}


@pytest.mark.parametrize(
    "args",
    [
        ["i8", ("f32", 1), "i64"],
        ["i1", "f16", ("f64", 2), "i16", "f32", ("i32", 0), "index"],
        [("f32", 3), ("i8", 1), "i8", "f64", "i1", "i32", ("f32", 1)],
        ["f16", "i8", "i16"],
    ],
)
def test_packed_struct_matches_runtime_ctypes(args: list[Any]) -> None:
    """LLVM's layout of the packed struct == the ctypes struct the launcher fills."""
    mlir_types: list[Any] = []
    layout: list[tuple[str, str, int]] = []
    for i, a in enumerate(args):
        if isinstance(a, tuple):
            name, rank = a
            mlir_types.append(MemRefType(_MLIR_SCALARS[name], [DYNAMIC_INDEX] * rank))
            layout.append((f"a{i}", "memref", rank))
        else:
            mlir_types.append(_MLIR_SCALARS[a])
            layout.append((f"a{i}", abi.MLIR_TO_DTYPE[a], 0))
    offsets, size = _llvm_layout(packed_struct_type(mlir_types))
    cstruct = abi.packed_args_ctype(tuple(layout))
    assert offsets == [getattr(cstruct, f"a{i}").offset for i in range(len(args))]
    assert size == ctypes.sizeof(cstruct)


def test_descriptor_matches_lowering_types() -> None:
    types = pytest.importorskip("xmux.lowering.to_llvm.types")
    for rank in range(4):
        memref_type = MemRefType(f32, [DYNAMIC_INDEX] * rank)
        assert descriptor_type(memref_type) == types.descriptor_type(rank)


def test_kernel_arg_types_strips_scheduling_params() -> None:
    m = _parse(
        'func.func @k(%a: memref<?xf32>, %n: i32, %wi: !llvm.ptr, %wg: !llvm.ptr, %s: !llvm.ptr)'
        ' attributes {mux.kernel = "entry_point", mux.scheduling_params} { func.return }\n'
        'func.func @h(%p: !llvm.ptr) attributes {mux.kernel = "entry_point"} { func.return }'
    )
    k, h = list(m.ops)
    assert kernel_arg_types(k) == (MemRefType(f32, [DYNAMIC_INDEX]), i32)
    assert kernel_arg_types(h) == (llvm.LLVMPointerType(),)


def test_wrapper_loads_the_packed_struct_in_order() -> None:
    m = _parse(
        'func.func @k(%a: memref<?x?xf64>, %f: i1, %n: index, %wi: !llvm.ptr, %wg: !llvm.ptr,'
        ' %s: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.scheduling_params}'
        ' { func.return }'
    )
    AddKernelWrapper().apply(Context(), m)
    m.verify()
    wrapper = next(f for f in m.ops if f.sym_name.data == "k.mux-kernel-wrapper")
    geps = [op for op in wrapper.walk() if isinstance(op, llvm.GEPOp)]
    expected = packed_struct_type(kernel_arg_types(next(iter(m.ops))))
    assert [g.elem_type for g in geps] == [expected] * 3
    assert [list(g.rawConstantIndices.iter_values()) for g in geps] == [[0, 0], [0, 1], [0, 2]]
    call = next(op for op in wrapper.walk() if isinstance(op, func.CallOp))
    assert call.callee.root_reference.data == "k"
    assert list(call.arguments)[-3:] == list(wrapper.body.block.args)[1:]


def test_wrapper_error_names_the_kernel() -> None:
    m = _parse('func.func @bad(%a: memref<*xf32>) attributes {mux.kernel = "entry_point"}'
               ' { func.return }')
    with pytest.raises(NotSupportedError, match="kernel 'bad'.*memref<\\*xf32>"):
        AddKernelWrapper().apply(Context(), m)


# ---------------------------------------------------------------------------------------
# Local-memory struct layout
# ---------------------------------------------------------------------------------------

_LOCALS = [
    ("a", "memref<13xf32, 3>", 13 * 4, 16),
    ("b", "memref<5xi1, 3>", 5, 16),
    ("c", "memref<3x7xf64, 3>", 21 * 8, 16),
    ("d", "memref<2xvector<8xf32>, 3>", 2 * 32, 32),
    ("e", "memref<4xindex, 3>", 32, 16),
    ("f", "memref<9xi16, 3>", 18, 128),
]


def test_local_struct_layout_matches_llvm() -> None:
    globals_ = "\n".join(
        f'"memref.global"() <{{sym_name = "{n}", sym_visibility = "private", type = {t}, '
        f"initial_value{', alignment = 128 : i64' if align == 128 else ''}}}> : () -> ()"
        for n, t, _, align in _LOCALS
    )
    uses = "\n".join(f"  %{n} = memref.get_global @{n} : {t}" for n, t, _, _ in _LOCALS)
    m = _parse(f'{globals_}\nfunc.func @k() attributes {{mux.kernel = "entry_point"}} {{\n'
               f"{uses}\n  func.return\n}}")
    ReplaceLocalModuleScopeVariables().apply(Context(), m)
    m.verify()
    assert not [op for op in m.walk() if isinstance(op, (memref.GlobalOp, memref.GetGlobalOp))]
    k = next(iter(m.ops))
    alloca = next(op for op in k.walk() if isinstance(op, llvm.AllocaOp))
    struct_gep = next(
        op for op in k.walk()
        if isinstance(op, llvm.GEPOp) and isinstance(op.elem_type, llvm.LLVMStructType)
    )
    offsets, size = _llvm_layout(struct_gep.elem_type)
    assert alloca.alignment.value.data == 128
    # the struct sits between two guards (replace_local_module_scope_variables.guard_bytes)
    from xmux.transforms.replace_local_module_scope_variables import guard_bytes

    usage = size + (-size % 128)
    assert alloca.elem_type.size.data == usage + 2 * guard_bytes(usage, 128)
    assert attrs.get_local_mem_usage(k) == size + (-size % 128)
    views = {
        op.results[0].name_hint: op
        for op in k.walk()
        if isinstance(op, builtin.UnrealizedConversionCastOp)
    }
    field_of = {}
    for n, _, nbytes, align in _LOCALS:
        desc = views[n].inputs[0].op
        while not isinstance(desc, llvm.UndefOp):  # walk the insertvalue chain to the GEP
            if list(desc.position.iter_values()) == [0]:
                gep = desc.value.op
            desc = desc.container.op
        index = list(gep.rawConstantIndices.iter_values())[1]
        off = offsets[index]
        assert off % align == 0, (n, off, align)
        field_of[n] = (off, off + nbytes)
    spans = sorted(field_of.values())
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans)), spans
    assert spans[-1][1] <= size


def test_local_initializer_is_an_error() -> None:
    m = _parse(
        '"memref.global"() <{sym_name = "x", sym_visibility = "private", '
        "type = memref<2xf32, 3>, initial_value = dense<1.0> : tensor<2xf32>}> : () -> ()\n"
        'func.func @k() attributes {mux.kernel = "entry_point"} {\n'
        "  %x = memref.get_global @x : memref<2xf32, 3>\n  func.return\n}"
    )
    with pytest.raises(XmuxError, match="@x .*initial value"):
        ReplaceLocalModuleScopeVariables().apply(Context(), m)


# ---------------------------------------------------------------------------------------
# The entry hook, interpreted
# ---------------------------------------------------------------------------------------


class _Ptr:
    """A pointer into a flat Python list of i64 cells (the structs are arrays of i64)."""

    def __init__(self, cells: list[int], index: int = 0) -> None:
        self.cells, self.index = cells, index


@register_impls
class _HookModel(InterpreterFunctions):
    """Just enough of llvm/arith for the hook: i64-array structs, unsigned ops, wrapper calls."""

    def __init__(self) -> None:
        self.calls: list[dict[str, tuple[int, ...]]] = []
        #: integer "addresses" a schedule field may hold, and the cells they point to
        self.addresses: dict[int, _Ptr] = {}
        #: the wrapper call after which the cancel word (at address 1) is set
        self.cancel_after: int | None = None

    @impl(llvm.PtrToIntOp)
    def run_ptrtoint(self, interp: Interpreter, op: llvm.PtrToIntOp, args: PythonValues):
        return (args[0],)  # stays opaque: only inttoptr takes it back

    @impl(llvm.IntToPtrOp)
    def run_inttoptr(self, interp: Interpreter, op: llvm.IntToPtrOp, args: PythonValues):
        return (args[0] if isinstance(args[0], _Ptr) else self.addresses[args[0]],)

    @impl(llvm.AllocaOp)
    def run_alloca(self, interp: Interpreter, op: llvm.AllocaOp, args: PythonValues):
        return (_Ptr([-1] * op.elem_type.size.data),)

    @impl(llvm.GEPOp)
    def run_gep(self, interp: Interpreter, op: llvm.GEPOp, args: PythonValues):
        idx = list(op.rawConstantIndices.iter_values())
        assert idx[0] == 0 and len(idx) == 2 and isinstance(op.elem_type, llvm.LLVMArrayType)
        assert 0 <= idx[1] < op.elem_type.size.data
        return (_Ptr(args[0].cells, args[0].index + idx[1]),)

    @impl(llvm.LoadOp)
    def run_load(self, interp: Interpreter, op: llvm.LoadOp, args: PythonValues):
        value = args[0].cells[args[0].index]
        assert value >= 0, "load of an unset field"
        return (value,)

    @impl(llvm.StoreOp)
    def run_store(self, interp: Interpreter, op: llvm.StoreOp, args: PythonValues):
        args[1].cells[args[1].index] = args[0]
        return ()

    @impl(arith.DivUIOp)
    def run_divui(self, interp: Interpreter, op: arith.DivUIOp, args: PythonValues):
        return (args[0] // args[1],)

    @impl(arith.RemUIOp)
    def run_remui(self, interp: Interpreter, op: arith.RemUIOp, args: PythonValues):
        return (args[0] % args[1],)

    @impl(arith.MinUIOp)
    def run_minui(self, interp: Interpreter, op: arith.MinUIOp, args: PythonValues):
        return (min(args[0], args[1]),)

    @impl_external("k.mux-kernel-wrapper")
    def run_wrapper(self, interp: Interpreter, op: func.FuncOp, args: PythonValues):
        wg = args[2].cells
        self.calls.append(
            {
                "group": tuple(wg[attrs.WG_GROUP_ID : attrs.WG_GROUP_ID + 3]),
                "num_groups": tuple(wg[attrs.WG_NUM_GROUPS : attrs.WG_NUM_GROUPS + 3]),
                "local": tuple(wg[attrs.WG_LOCAL_SIZE : attrs.WG_LOCAL_SIZE + 3]),
            }
        )
        if self.cancel_after is not None and len(self.calls) == self.cancel_after:
            self.addresses[1].cells[0] = 1
        return ()


def _hook_module(reqd: tuple[int, int, int] | None = None) -> ModuleOp:
    reqd_attr = f", mux.reqd_work_group_size = array<i64: {reqd[0]}, {reqd[1]}, {reqd[2]}>" \
        if reqd else ""
    m = _parse(
        'func.func private @"k.mux-kernel-wrapper"(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)'
        f' attributes {{mux.kernel = "entry_point", mux.base_name = "k"{reqd_attr}}}'
    )
    AddEntryHook().apply(Context(), m)
    m.verify()
    return m


def _run_hook(
    m: ModuleOp, g: tuple[int, ...], local: tuple[int, ...], slices: int,
    cancel_after: int | None = None,
) -> list[dict]:
    """The wrapper calls of ``slices`` slices; with ``cancel_after`` the schedule's cancel
    field holds an address whose word the ``cancel_after``-th call sets."""
    model = _HookModel()
    if cancel_after is not None:
        model.addresses[1] = _Ptr([0])
        model.cancel_after = cancel_after
    interp = Interpreter(m)
    for fns in (ArithFunctions(), FuncFunctions(), ScfFunctions(), model):
        interp.register_implementations(fns, override=True)
    pad = 3 - len(g)
    g3, l3 = tuple(g) + (1,) * pad, tuple(local) + (1,) * pad
    for s in range(slices):
        sched = [0] * attrs.SCHED_NUM_FIELDS
        sched[attrs.SCHED_GLOBAL_SIZE : attrs.SCHED_GLOBAL_SIZE + 3] = g3
        sched[attrs.SCHED_LOCAL_SIZE : attrs.SCHED_LOCAL_SIZE + 3] = l3
        sched[attrs.SCHED_SLICE], sched[attrs.SCHED_TOTAL_SLICES] = s, slices
        sched[attrs.SCHED_WORK_DIM] = len(g)
        sched[attrs.SCHED_CANCEL] = 0 if cancel_after is None else 1
        before = len(model.calls)
        interp.call_op("k.mux-entry-hook", (_Ptr([]), _Ptr(sched)))
        for c in model.calls[before:]:
            c["slice"] = s
    return model.calls


@pytest.mark.parametrize(
    "g,local,slices",
    [
        ((1,), (1,), 1),
        ((10,), (4,), 3),  # remainder group of 2
        ((7, 5), (2, 3), 4),  # remainders in x and y
        ((8, 6, 5), (4, 3, 2), 7),  # 3-D, more slices than evenly divide
        ((3, 3, 3), (3, 3, 3), 5),  # fewer groups than slices
        ((17,), (5,), 1),
    ],
)
def test_entry_hook_visits_every_group_once(g, local, slices) -> None:
    calls = _run_hook(_hook_module(), g, local, slices)
    pad = 3 - len(g)
    g3, l3 = tuple(g) + (1,) * pad, tuple(local) + (1,) * pad
    ng = tuple(-(-a // b) for a, b in zip(g3, l3, strict=True))
    expected = list(itertools.product(*(range(n) for n in reversed(ng))))
    expected = [tuple(reversed(e)) for e in expected]  # x fastest
    assert [c["group"] for c in calls] == expected  # each once, in linear (x-fastest) order
    total = len(expected)
    for c in calls:
        assert c["num_groups"] == ng
        assert c["local"] == tuple(
            min(l3[d], g3[d] - c["group"][d] * l3[d]) for d in range(3)
        )
        lin = c["group"][0] + ng[0] * (c["group"][1] + ng[1] * c["group"][2])
        s = c["slice"]
        assert s * total // slices <= lin < (s + 1) * total // slices


@pytest.mark.parametrize("slices", [1, 3])
def test_entry_hook_skips_the_groups_after_a_cancel(slices) -> None:
    """The groups not yet started when the cancel word is set are skipped, in every slice
    (runtime/interrupt.py: Ctrl-C, a failed check); with no cancel address (0) all run."""
    calls = _run_hook(_hook_module(), (12,), (1,), slices, cancel_after=5)
    assert [c["group"][0] for c in calls] == [0, 1, 2, 3, 4]
    assert len(_run_hook(_hook_module(), (12,), (1,), slices)) == 12


class _FirstGroup(Exception):
    def __init__(self, group: int) -> None:
        self.group = group


@register_impls
class _NoOverflow(InterpreterFunctions):
    """Multiplications must stay below 2^63; the first wrapper call reports its group."""

    @impl(arith.MuliOp)
    def run_muli(self, interp: Interpreter, op: arith.MuliOp, args: PythonValues):
        assert args[0] * args[1] < 2**63, f"64-bit overflow in {args[0]} * {args[1]}"
        return (args[0] * args[1],)

    @impl_external("k.mux-kernel-wrapper")
    def run_wrapper(self, interp: Interpreter, op: func.FuncOp, args: PythonValues):
        wg = args[2].cells
        ng = wg[attrs.WG_NUM_GROUPS : attrs.WG_NUM_GROUPS + 3]
        gid = wg[attrs.WG_GROUP_ID : attrs.WG_GROUP_ID + 3]
        raise _FirstGroup(gid[0] + ng[0] * (gid[1] + ng[1] * gid[2]))


def test_entry_hook_slice_bounds_do_not_overflow() -> None:
    """2^60 groups over ~2^24 slices: s*G would overflow 64 bits, s*(G/T) + s*(G%T)/T not."""
    interp = Interpreter(_hook_module())
    for fns in (ArithFunctions(), FuncFunctions(), ScfFunctions(), _HookModel(), _NoOverflow()):
        interp.register_implementations(fns, override=True)
    g, slices = (2**40, 2**20, 1), 2**24 - 3
    last = slices - 1
    sched = [0] * attrs.SCHED_NUM_FIELDS
    sched[attrs.SCHED_GLOBAL_SIZE : attrs.SCHED_GLOBAL_SIZE + 3] = g
    sched[attrs.SCHED_LOCAL_SIZE : attrs.SCHED_LOCAL_SIZE + 3] = (1, 1, 1)
    sched[attrs.SCHED_SLICE], sched[attrs.SCHED_TOTAL_SLICES] = last, slices
    with pytest.raises(_FirstGroup) as info:  # stops at the slice's first group
        interp.call_op("k.mux-entry-hook", (_Ptr([]), _Ptr(sched)))
    assert info.value.group == last * (g[0] * g[1]) // slices


def test_entry_hook_reqd_size_uses_constants() -> None:
    m = _hook_module(reqd=(4, 2, 1))
    hook = next(f for f in m.ops if f.sym_name.data == "k.mux-entry-hook")
    loads = [op for op in hook.walk()
             if isinstance(op, llvm.LoadOp) and op.ordering.value.data == 0]
    # global sizes, slice, total_slices, the cancel address; no enqueued local size (the one
    # atomic load is the cancel word's, per group)
    assert len(loads) == 6
    calls = _run_hook(m, (10, 4), (4, 2), 2)
    assert [c["local"] for c in calls] == [(4, 2, 1), (4, 2, 1), (2, 2, 1)] * 2


def test_entry_hook_requires_the_wrapper_signature() -> None:
    m = _parse('func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"}'
               " { func.return }")
    with pytest.raises(XmuxError, match="entry point 'k'.*run add-kernel-wrapper first"):
        AddEntryHook().apply(Context(), m)


# ---------------------------------------------------------------------------------------
# Pipeline order
# ---------------------------------------------------------------------------------------

PIPELINE_SRC = """
"memref.global"() <{sym_name = "tile", sym_visibility = "private",
                    type = memref<4x4xf32, 3>, initial_value}> : () -> ()
func.func private @helper(%i: index, %j: index) -> f32 {
  %t = memref.get_global @tile : memref<4x4xf32, 3>
  %v = memref.load %t[%j, %i] : memref<4x4xf32, 3>
  func.return %v : f32
}
func.func @transpose(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %s: f32)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 4, 1>} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %lx = mux.get_local_id 0 : index
  %ly = mux.get_local_id 1 : index
  %t = memref.get_global @tile : memref<4x4xf32, 3>
  %v = memref.load %a[%y, %x] : memref<?x?xf32>
  memref.store %v, %t[%ly, %lx] : memref<4x4xf32, 3>
  %w = func.call @helper(%lx, %ly) : (index, index) -> f32
  %r = arith.mulf %w, %s : f32
  memref.store %r, %b[%y, %x] : memref<?x?xf32>
  func.return
}
func.func @scale(%a: memref<?xf32>, %n: i32) attributes {mux.kernel = "entry_point"} {
  %x = mux.get_global_id 0 : index
  %v = memref.load %a[%x] : memref<?xf32>
  memref.store %v, %a[%x] : memref<?xf32>
  func.return
}
"""


def _optional_pass(module: str) -> ModulePass | None:
    """A pass of another module if it exists yet (work-item-loops, define-mux-builtins)."""
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError:
        return None
    cls = next(
        c for c in vars(mod).values()
        if isinstance(c, type) and issubclass(c, ModulePass) and c.__module__ == mod.__name__
    )
    return cls()


def test_passes_in_pipeline_order() -> None:
    passes = [
        _optional_pass("xmux.transforms.work_item_loops"),
        ReplaceLocalModuleScopeVariables(),
        _optional_pass("xmux.transforms.define_mux_builtins"),
        AddKernelWrapper(),
        AddEntryHook(),
    ]
    ctx = Context()
    for d in (arith.Arith, builtin.Builtin, func.Func, llvm.LLVM, memref.MemRef, scf.Scf, Mux):
        ctx.load_dialect(d)
    m = Parser(ctx, PIPELINE_SRC).parse_module()
    names = [p.name for p in passes if p is not None]
    for p in passes:
        if p is not None:
            p.apply(ctx, m)
            m.verify()
    funcs = {f.sym_name.data: f for f in m.ops if isinstance(f, func.FuncOp)}
    assert [n for n, f in funcs.items() if attrs.is_entry_point(f)] == [
        "transpose.mux-entry-hook",
        "scale.mux-entry-hook",
    ]
    for k in ("transpose", "scale"):
        hook = funcs[f"{k}.mux-entry-hook"]
        assert [str(t) for t in hook.function_type.inputs.data] == ["!llvm.ptr"] * 2
        assert attrs.get_base_name(hook) == k and attrs.get_orig_fn(hook) == k
        assert not attrs.is_entry_point(funcs[k]) and not attrs.is_entry_point(
            funcs[f"{k}.mux-kernel-wrapper"]
        )
    # local memory: once per group in the kernel, passed to the helper
    assert attrs.get_local_mem_usage(funcs["transpose"]) == 64
    assert attrs.get_local_mem_usage(funcs["transpose.mux-entry-hook"]) == 64
    assert attrs.get_reqd_work_group_size(funcs["transpose.mux-entry-hook"]) == (4, 4, 1)
    allocas = [op for op in funcs["transpose"].walk() if isinstance(op, llvm.AllocaOp)]
    assert len(allocas) == 1 and allocas[0].parent_op() is funcs["transpose"]
    assert not [op for op in m.walk() if isinstance(op, memref.GlobalOp)]
    helper_inputs = funcs["helper"].function_type.inputs.data
    assert helper_inputs[2] == llvm.LLVMPointerType()
    if "work-item-loops" in names:
        loops = [op for op in funcs["transpose"].walk() if isinstance(op, scf.ForOp)]
        assert loops and all(allocas[0].is_before_in_block(lp) for lp in loops
                             if lp.parent_block() is allocas[0].parent_block())
    if "define-mux-builtins" in names:
        assert not [op for op in m.walk() if op.name.startswith("mux.")]


# ---------------------------------------------------------------------------------------
# End to end: lower, JIT, call the entry hook with ctypes-built packed arguments
# ---------------------------------------------------------------------------------------


def _jit_module(src: str):  # -> xmux.runtime.jit.JitModule
    """Run the kernel pipeline + convert-to-llvm on ``src`` and JIT it (skip if not built)."""
    wil = _optional_pass("xmux.transforms.work_item_loops")
    dmb = _optional_pass("xmux.transforms.define_mux_builtins")
    to_llvm = _optional_pass("xmux.lowering.convert_to_llvm")
    emit = pytest.importorskip("xmux.runtime.emit")
    jit = pytest.importorskip("xmux.runtime.jit")
    if wil is None or dmb is None or to_llvm is None:
        pytest.skip("work-item-loops / define-mux-builtins / convert-to-llvm not available")
    ctx = Context()
    for d in (arith.Arith, builtin.Builtin, func.Func, llvm.LLVM, memref.MemRef, scf.Scf, Mux):
        ctx.load_dialect(d)
    m = Parser(ctx, src).parse_module()
    for p in (wil, ReplaceLocalModuleScopeVariables(), dmb, AddKernelWrapper(), AddEntryHook(),
              to_llvm):
        p.apply(ctx, m)
        m.verify()
    return jit.compile_ir(emit.emit_text(m), cache_dir=None)


def _ctype(t: Attribute) -> Any:
    """ctypes type of an llvm-dialect type (independent of runtime/abi.py)."""
    if isinstance(t, llvm.LLVMStructType):
        fields = [(f"f{i}", _ctype(x)) for i, x in enumerate(t.types.data)]
        return type("S", (ctypes.Structure,), {"_fields_": fields})
    if isinstance(t, llvm.LLVMArrayType):
        return _ctype(t.type) * t.size.data
    if isinstance(t, llvm.LLVMPointerType):
        return ctypes.c_void_p
    simple = {"i8": ctypes.c_int8, "i16": ctypes.c_int16, "i32": ctypes.c_int32,
              "i64": ctypes.c_int64, "f16": ctypes.c_uint16, "f32": ctypes.c_float,
              "f64": ctypes.c_double}
    return simple[str(t)]


def _packed(arg_types: list[Attribute], values: list[Any]) -> tuple[Any, list[Any]]:
    """A packed-argument struct; numpy arrays become descriptors, (array, base) pairs too."""
    struct = _ctype(packed_struct_type(arg_types))()
    keep: list[Any] = []
    for i, (t, v) in enumerate(zip(arg_types, values, strict=True)):
        if isinstance(t, MemRefType):
            arr, base = v if isinstance(v, tuple) else (v, v)
            keep += [arr, base]
            d = getattr(struct, f"f{i}")
            d.f0 = d.f1 = base.ctypes.data
            d.f2 = (arr.ctypes.data - base.ctypes.data) // arr.itemsize
            for k in range(arr.ndim):
                d.f3[k] = arr.shape[k]
                d.f4[k] = arr.strides[k] // arr.itemsize
        else:
            setattr(struct, f"f{i}", v)
    return struct, keep


def _launch(jm: Any, kernel: str, struct: Any, g: tuple[int, ...], local: tuple[int, ...],
            slices: int, threads: int = 1) -> None:
    from concurrent.futures import ThreadPoolExecutor

    hook = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(
        jm.address(f"{kernel}.mux-entry-hook")
    )
    pad = 3 - len(g)
    scheds = []
    for s in range(slices):
        sched = (ctypes.c_int64 * attrs.SCHED_NUM_FIELDS)()
        for d, (gs, ls) in enumerate(zip(g + (1,) * pad, local + (1,) * pad, strict=True)):
            sched[attrs.SCHED_GLOBAL_SIZE + d] = gs
            sched[attrs.SCHED_LOCAL_SIZE + d] = ls
        sched[attrs.SCHED_SLICE], sched[attrs.SCHED_TOTAL_SLICES] = s, slices
        sched[attrs.SCHED_WORK_DIM] = len(g)
        scheds.append(sched)
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda s: hook(ctypes.addressof(struct), ctypes.addressof(s)), scheds))


IDS_SRC = """
func.func @ids(%grp: memref<?x?x?xi64>, %lsz: memref<?x?x?xi64>, %ngr: memref<?x?x?xi64>)
    attributes {mux.kernel = "entry_point"} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %z = mux.get_global_id 2 : index
  %g0 = mux.get_group_id 0 : i64
  %g1 = mux.get_group_id 1 : i64
  %g2 = mux.get_group_id 2 : i64
  %l0 = mux.get_local_size 0 : i64
  %l1 = mux.get_local_size 1 : i64
  %l2 = mux.get_local_size 2 : i64
  %n0 = mux.get_num_groups 0 : i64
  %n1 = mux.get_num_groups 1 : i64
  %n2 = mux.get_num_groups 2 : i64
  %c100 = arith.constant 100 : i64
  %c10000 = arith.constant 10000 : i64
  %ga = arith.muli %g1, %c100 : i64
  %gb = arith.muli %g2, %c10000 : i64
  %gs = arith.addi %g0, %ga : i64
  %gv = arith.addi %gs, %gb : i64
  %la = arith.muli %l1, %c100 : i64
  %lb = arith.muli %l2, %c10000 : i64
  %ls = arith.addi %l0, %la : i64
  %lv = arith.addi %ls, %lb : i64
  %na = arith.muli %n1, %c100 : i64
  %nb = arith.muli %n2, %c10000 : i64
  %ns = arith.addi %n0, %na : i64
  %nv = arith.addi %ns, %nb : i64
  memref.store %gv, %grp[%z, %y, %x] : memref<?x?x?xi64>
  memref.store %lv, %lsz[%z, %y, %x] : memref<?x?x?xi64>
  memref.store %nv, %ngr[%z, %y, %x] : memref<?x?x?xi64>
  func.return
}
"""


@pytest.mark.parametrize(
    "g,local,slices,threads",
    [((7, 5, 3), (4, 2, 2), 1, 1), ((7, 5, 3), (4, 2, 2), 5, 3), ((9,), (4,), 4, 2),
     ((6, 4), (3, 4), 3, 1)],
)
def test_jit_entry_hook_groups_and_remainders(g, local, slices, threads, monkeypatch) -> None:
    import numpy as np

    monkeypatch.setenv("XMUX_CACHE", "0")
    jm = _jit_module(IDS_SRC)
    pad = 3 - len(g)
    g3, l3 = g + (1,) * pad, local + (1,) * pad
    outs = [np.full(tuple(reversed(g3)), -1, dtype=np.int64) for _ in range(3)]
    t = MemRefType(i64, [DYNAMIC_INDEX] * 3)
    struct, keep = _packed([t, t, t], outs)
    _launch(jm, "ids", struct, g, local, slices, threads)
    z, y, x = np.meshgrid(*(np.arange(n) for n in reversed(g3)), indexing="ij")
    gid = [x // l3[0], y // l3[1], z // l3[2]]
    lsz = [np.minimum(l3[d], g3[d] - gid[d] * l3[d]) for d in range(3)]
    ngr = [-(-g3[d] // l3[d]) for d in range(3)]
    np.testing.assert_array_equal(outs[0], gid[0] + 100 * gid[1] + 10000 * gid[2])
    np.testing.assert_array_equal(outs[1], lsz[0] + 100 * lsz[1] + 10000 * lsz[2])
    np.testing.assert_array_equal(outs[2], np.full_like(outs[2], ngr[0] + 100 * ngr[1]
                                                        + 10000 * ngr[2]))


SCALARS_SRC = """
func.func @scalars(%out: memref<9xf64>, %b: i1, %c: i8, %s: i16, %w: i32, %q: i64, %n: index,
                   %h: f16, %f: f32, %d: f64) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %b32 = arith.extui %b : i1 to i32
  %vb = arith.sitofp %b32 : i32 to f64
  %vc = arith.sitofp %c : i8 to f64
  %vs = arith.sitofp %s : i16 to f64
  %vw = arith.sitofp %w : i32 to f64
  %vq = arith.sitofp %q : i64 to f64
  %n64 = arith.index_cast %n : index to i64
  %vn = arith.sitofp %n64 : i64 to f64
  %vh = arith.extf %h : f16 to f64
  %vf = arith.extf %f : f32 to f64
  memref.store %vb, %out[%c0] : memref<9xf64>
  memref.store %vc, %out[%c1] : memref<9xf64>
  memref.store %vs, %out[%c2] : memref<9xf64>
  memref.store %vw, %out[%c3] : memref<9xf64>
  memref.store %vq, %out[%c4] : memref<9xf64>
  memref.store %vn, %out[%c5] : memref<9xf64>
  memref.store %vh, %out[%c6] : memref<9xf64>
  memref.store %vf, %out[%c7] : memref<9xf64>
  memref.store %d, %out[%c8] : memref<9xf64>
  func.return
}
"""


def test_jit_scalar_arguments_of_every_width(monkeypatch) -> None:
    import numpy as np

    monkeypatch.setenv("XMUX_CACHE", "0")
    jm = _jit_module(SCALARS_SRC)
    out = np.zeros(9)
    types = [MemRefType(f64, [9]), i1, i8, i16, i32, i64, IndexType(), Float16Type(), f32, f64]
    half = int(np.float16(-2.5).view(np.uint16))
    values = [out, 1, -7, -30000, 2**31 - 5, -(2**40) - 3, 2**33 + 1, half, 0.375, -1e300]
    struct, keep = _packed(types, values)
    _launch(jm, "scalars", struct, (1,), (1,), 1)
    np.testing.assert_array_equal(
        out, [1, -7, -30000, 2**31 - 5, -(2**40) - 3, 2**33 + 1, -2.5, 0.375, -1e300]
    )


STRIDED_SRC = """
func.func @add1(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %b: memref<?x?xf32>,
                %r0: memref<f32>) attributes {mux.kernel = "entry_point"} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %v = memref.load %a[%y, %x] : memref<?x?xf32, strided<[?, ?], offset: ?>>
  %k = memref.load %r0[] : memref<f32>
  %w = arith.addf %v, %k : f32
  memref.store %w, %b[%y, %x] : memref<?x?xf32>
  func.return
}
"""


def test_jit_strided_offset_and_rank0_memrefs(monkeypatch) -> None:
    import numpy as np

    monkeypatch.setenv("XMUX_CACHE", "0")
    jm = _jit_module(STRIDED_SRC)
    base = np.arange(20 * 30, dtype=np.float32).reshape(20, 30)
    view = base[3::2, 1::3]  # offset 91 elements, strides (60, 3)
    out = np.zeros(view.shape, dtype=np.float32)
    k = np.array(0.5, dtype=np.float32)
    t = MemRefType(f32, [DYNAMIC_INDEX] * 2)
    types = [MemRefType(f32, [DYNAMIC_INDEX] * 2,
                        builtin.StridedLayoutAttr([None, None], None)), t, MemRefType(f32, [])]
    struct, keep = _packed(types, [(view, base), out, k])
    assert struct.f0.f2 == 91 and list(struct.f0.f4) == [60, 3]
    _launch(jm, "add1", struct, (view.shape[1], view.shape[0]), (4, 3), 2, 2)
    np.testing.assert_array_equal(out, view + 0.5)


LOCAL_SRC = """
"memref.global"() <{sym_name = "tile", sym_visibility = "private",
                    type = memref<4x8xf32, 3>, initial_value}> : () -> ()
"memref.global"() <{sym_name = "count", sym_visibility = "private",
                    type = memref<i32, 3>, initial_value}> : () -> ()
func.func private @scaled(%i: index, %j: index, %s: f32) -> f32 {
  %t = memref.get_global @tile : memref<4x8xf32, 3>
  %v = memref.load %t[%j, %i] : memref<4x8xf32, 3>
  %r = arith.mulf %v, %s : f32
  func.return %r : f32
}
func.func private @via(%i: index, %j: index, %s: f32) -> f32 {
  %r = func.call @scaled(%i, %j, %s) : (index, index, f32) -> f32
  func.return %r : f32
}
func.func @stage(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %s: f32)
    attributes {mux.kernel = "entry_point"} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %lx = mux.get_local_id 0 : index
  %ly = mux.get_local_id 1 : index
  %t = memref.get_global @tile : memref<4x8xf32, 3>
  %v = memref.load %a[%y, %x] : memref<?x?xf32>
  memref.store %v, %t[%ly, %lx] : memref<4x8xf32, 3>
  %w = func.call @via(%lx, %ly, %s) : (index, index, f32) -> f32
  memref.store %w, %b[%y, %x] : memref<?x?xf32>
  func.return
}
func.func @count_items(%out: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %g = mux.get_group_id 0 : index
  %l = mux.get_local_id 0 : index
  %c = memref.get_global @count : memref<i32, 3>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : i32
  %first = arith.cmpi eq, %l, %c0 : index
  scf.if %first {
    %z = arith.constant 0 : i32
    memref.store %z, %c[] : memref<i32, 3>
  }
  %n = memref.load %c[] : memref<i32, 3>
  %m = arith.addi %n, %c1 : i32
  memref.store %m, %c[] : memref<i32, 3>
  memref.store %m, %out[%g] : memref<?xi32>
  func.return
}
"""


def test_jit_local_memory_per_group(monkeypatch) -> None:
    """Local memory through helpers, per work-group, with slices on several threads.

    @count_items counts its work-items in a local counter that work-item 0 resets: the count
    a group ends with is its actual size only if the counter is private to the group's run
    (one struct per work-group function call, not shared between threads).
    """
    import numpy as np

    monkeypatch.setenv("XMUX_CACHE", "0")
    jm = _jit_module(LOCAL_SRC)
    a = np.random.default_rng(0).random((11, 21), dtype=np.float32)
    b = np.zeros_like(a)
    t = MemRefType(f32, [DYNAMIC_INDEX] * 2)
    struct, keep = _packed([t, t, f32], [a, b, 3.0])
    _launch(jm, "stage", struct, (21, 11), (8, 4), 7, 4)
    np.testing.assert_array_equal(b, a * np.float32(3.0))

    n, ls = 1000, 7
    out = np.zeros(-(-n // ls), dtype=np.int32)
    struct, keep = _packed([MemRefType(i32, [DYNAMIC_INDEX])], [out])
    _launch(jm, "count_items", struct, (n,), (ls,), 13, 4)
    expected = np.full_like(out, ls)
    expected[-1] = n - ls * (len(out) - 1)
    np.testing.assert_array_equal(out, expected)
