"""add-entry-hook: the exported per-slice function that runs the work-groups of one slice.

For each entry point (the kernel wrapper ``@"k.mux-kernel-wrapper"(%packed, %wi, %wg, %sched)``
made by add-kernel-wrapper) the pass adds ``@"k.mux-entry-hook"(%packed, %sched)`` (both
``!llvm.ptr``), the symbol the runtime calls once per slice. It is named after the original
kernel's symbol (``mux.orig_fn`` of the wrapper), which is unique in the module and what the
launcher knows (``KernelInfo.symbol``); ``mux.base_name`` is carried as an attribute.
The hook:

1. allocas the work-item info and work-group info structs (``attrs.WI_INFO_TYPE``,
   ``attrs.WG_INFO_TYPE``) once;
2. reads the global size and the enqueued local size from the schedule info (the local size is
   a constant with ``mux.reqd_work_group_size``); the runtime pads unused dimensions with global
   size 1 and local size 1, so all three dimensions are used alike;
3. num_groups[d] = ceil(global[d] / local[d]) stored in the work-group info; G = ng0·ng1·ng2;
4. this slice runs linear groups [s·G/T, (s+1)·G/T) (s = slice, T = total_slices), computed as
   s·(G/T) + s·(G%T)/T so that nothing overflows 64 bits while T < 2^31;
5. per linear group ``lin`` (x fastest): g0 = lin % ng0, g1 = (lin / ng0) % ng1,
   g2 = lin / (ng0·ng1); actual local size[d] = min(local[d], global[d] − g[d]·local[d]) (the
   OpenCL 2.0 non-uniform remainder group); both stored in the work-group info, then the
   wrapper is called. With ``group_band`` = W > 0 (``pipelines.cpu()`` uses ``GROUP_BAND``)
   the plane of groups runs in *band order* instead: bands of W group columns, each band
   row after row (W groups along x, then the next y; the last band ``ng0 mod W`` wide), so
   the groups one thread runs in a row share their x range: a 2-D kernel whose group column
   reads a strip of an array (matmul's B columns) finds it in the core's cache for the whole
   band instead of streaming all of it once per row of groups (naive matmul 2048² on one
   Zen 4 core, aligned arrays: 33 → 58 GFLOP/s). Only kernels that query 2 or more dimensions and
   ``sweeps_memory`` (a loop of unknown or more than 16 trips loading where its induction
   variable points) get it: streaming kernels run faster along whole rows (conv3x3 was 1.5×
   slower banded), and a 1-D launch (ng1 = 1) runs in the same order either way. The map is
   a bijection of [0, G), so a slice still runs a contiguous run of groups;
6. unless the launch was cancelled: before each group the hook reads (atomically) the i64 at
   the address in the schedule info's ``SCHED_CANCEL`` field and skips the group when it is
   non-zero (``runtime/interrupt.py``: Ctrl-C stops a launch between work-groups); an address
   of 0 means no cancellation (the hook then reads the field itself).

**Local-memory arguments** (kernel arguments of memref type in memory space 3): the launcher
passes only their shape (a descriptor with null pointers). The hook copies the packed
arguments into an ``alloca`` once, ``llvm.alloca``s each local argument's buffer
(size · element size bytes, 64-byte aligned; static dimensions as constants) and rewrites
its descriptor there (pointers, offset 0, contiguous strides); the wrapper gets the copy. So
every slice, i.e. every thread, has its own buffers, reused by the groups it runs one after
another: one buffer per work-group execution. ``build_entry_hook`` needs the kernel's argument
types for this (the pass finds the kernel through ``mux.orig_fn``).

**Privatized atomics**: where privatize-global-atomics added ``@"<k>.mux-privatized"``, the
pass adds ``@"<k>.mux-kernel-wrapper.mux-privatized"`` calling it, and the hook runs the
slice's groups through it on slice-local copies of the privatized arrays when run-time
checks pass (``emit_privatized_slice``: size, work, no overlap with another memref argument),
else through the ordinary wrapper; see ``transforms/privatize_global_atomics.py``.

The group loop is a plain ``scf.for`` (not a work-item loop). The hook becomes the entry point
(``mux.kernel = "entry_point"``, ``mux.base_name``, ``mux.orig_fn`` = the original kernel, the
kernel attributes copied over), so the lowering keeps it exported; the wrapper becomes a
``sub_kernel`` and can be inlined.

Expects: add-kernel-wrapper has run (entry points take four ``!llvm.ptr``). Entry points that
are already hooks are left alone.

Before::

    func.func @"k.mux-kernel-wrapper"(%packed: !llvm.ptr, %wi: !llvm.ptr, %wg: !llvm.ptr,
        %sched: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.base_name = "k", ...}

After::

    func.func @"k.mux-kernel-wrapper"(...) attributes {mux.kernel = "sub_kernel", ...}
    func.func @"k.mux-entry-hook"(%packed: !llvm.ptr, %sched: !llvm.ptr)
        attributes {mux.kernel = "entry_point", mux.base_name = "k", mux.orig_fn = @k} {
      %wi = llvm.alloca %c1 x !llvm.array<3 x i64> ...
      %wg = llvm.alloca %c1 x !llvm.array<9 x i64> ...
      ... loads of global/local sizes, num_groups stores, slice range ...
      %cancel_word = ... the address in sched_info[12], or &sched_info[12] when it is 0 ...
      scf.for %lin = %first to %last step %c1 {
        %cancelled = llvm.load %cancel_word atomic monotonic {alignment = 8 : i64} ...
        %run = arith.cmpi eq, %cancelled, %c0 : i64
        scf.if %run {
          ... group ids and actual local sizes stored into %wg ...
          func.call @"k.mux-kernel-wrapper"(%packed, %wi, %wg, %sched) : (...) -> ()
        }
      }
      func.return
    }
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref, scf, vector
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    i1,
    i8,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import XmuxError
from xmux.dialects import attrs, llvmx
from xmux.dialects.memref_atomic import ORDERING, SLICE_PRIVATE
from xmux.transforms.add_kernel_wrapper import (
    PTR,
    WRAPPER_SUFFIX,
    copy_kernel_attrs,
    kernel_arg_types,
    packed_struct_type,
)
from xmux.transforms.privatize_global_atomics import (
    FLUSH_OPS,
    MAX_PRIVATE_BYTES,
    PRIVATIZED_SUFFIX,
    identity,
    privatizable_args,
)
from xmux.transforms.replace_local_module_scope_variables import (
    element_storage,
    is_local_memref,
)
from xmux.transforms.work_item_loop_vectorize_hints import static_trip_count

ENTRY_HOOK_SUFFIX = ".mux-entry-hook"
#: ``pipelines.cpu()``'s band width in group columns (naive matmul, 16×16 groups, one Zen 4
#: core: W = 4 to 16 within 3% of each other at 1024² and 2048², W = 1 10% slower; wider
#: bands need more cache for their strips)
GROUP_BAND = 8
#: loops of at most this many trips do not count as sweeps (conv3x3's taps)
SWEEP_MIN_TRIPS = 16
INDEX = IndexType()
LOCAL_ARG_ALIGN = 64


class _Emitter:
    """Appends ops to a block and returns their single result (a tiny builder)."""

    def __init__(self, block: Block) -> None:
        self.block = block

    def __call__(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def const(self, value: int, typ: Attribute = i64) -> SSAValue:
        return self(arith.ConstantOp(IntegerAttr(value, typ)))

    def field_ptr(self, base: SSAValue, struct: Attribute, index: int) -> SSAValue:
        return self(llvm.GEPOp(base, [0, index], struct, inbounds=True))

    def load_field(self, base: SSAValue, struct: Attribute, index: int) -> SSAValue:
        return self(llvm.LoadOp(self.field_ptr(base, struct, index), i64))

    def store_field(self, value: SSAValue, base: SSAValue, struct: Attribute, index: int) -> None:
        self(llvm.StoreOp(value, self.field_ptr(base, struct, index)))


#: LLVM's AtomicOrdering::Monotonic (``llvm.load``'s ``ordering``)
_MONOTONIC = 2


def _cancel_word(e: _Emitter, sched: SSAValue) -> SSAValue:
    """The i64 the group loop polls: the one at the address in the ``SCHED_CANCEL`` field, or,
    where that address is 0 (a caller without cancellation), the field itself (always 0)."""
    field_ptr = e.field_ptr(sched, attrs.SCHED_INFO_TYPE, attrs.SCHED_CANCEL)
    address = e(llvm.LoadOp(field_ptr, i64))
    none = e(arith.CmpiOp(address, e.const(0), "eq"))
    word = e(arith.SelectOp(none, e(llvm.PtrToIntOp(field_ptr, i64)), address))
    return _named(e(llvm.IntToPtrOp(word)), "cancel_word")


def _named(v: SSAValue, name: str) -> SSAValue:
    v.name_hint = name
    return v


def kernel_name(wrapper: func.FuncOp) -> str:
    """The original kernel's symbol: ``mux.orig_fn``, else the wrapper's name without suffix."""
    orig = attrs.get_orig_fn(wrapper)
    if orig is not None:
        return orig
    name = wrapper.sym_name.data
    return name.removesuffix(WRAPPER_SUFFIX)


def _local_arg_copy(
    e: _Emitter, packed: SSAValue, arg_types: Sequence[Attribute]
) -> SSAValue:
    """A copy of the packed arguments whose local-memory descriptors point to buffers of
    this slice (dynamic ``llvm.alloca``s, once per hook call), contiguous, offset 0."""
    struct = packed_struct_type(arg_types)
    one = e.const(1)
    copy = _named(e(llvm.AllocaOp(one, struct, alignment=16)), "packed_local")
    e(llvm.StoreOp(e(llvm.LoadOp(packed, struct)), copy))
    for i, t in enumerate(arg_types):
        if not is_local_memref(t):
            continue
        assert isinstance(t, MemRefType)

        def field(*path: int, i: int = i) -> SSAValue:
            return e(llvm.GEPOp(copy, [0, i, *path], struct, inbounds=True))

        _, esize, _ = element_storage(t.element_type)
        sizes = [
            e(llvm.LoadOp(field(3, d), i64)) if n < 0 else e.const(n)
            for d, n in enumerate(t.get_shape())
        ]
        nbytes = e.const(esize)
        for n in sizes:
            nbytes = e(arith.MuliOp(nbytes, n))
        buf = _named(e(llvm.AllocaOp(nbytes, i8, alignment=LOCAL_ARG_ALIGN)), f"local_arg{i}")
        e(llvm.StoreOp(buf, field(0)))
        e(llvm.StoreOp(buf, field(1)))
        e(llvm.StoreOp(e.const(0), field(2)))
        stride = one
        for d in reversed(range(len(sizes))):
            e(llvm.StoreOp(stride, field(4, d)))
            e(llvm.StoreOp(sizes[d], field(3, d)))
            if d:
                stride = e(arith.MuliOp(stride, sizes[d]))
    return copy


@dataclass(frozen=True)
class Privatized:
    """privatize-global-atomics' variant of a kernel as the hook runs it: the wrapper that
    calls it and its privatized arguments (index → atomic kind)."""

    wrapper: str
    args: dict[int, str]


def _descriptor(
    e: _Emitter, packed: SSAValue, struct: Attribute, i: int, t: MemRefType
) -> tuple[SSAValue, SSAValue, list[SSAValue], list[SSAValue]]:
    """(aligned pointer, offset, sizes, strides) of memref argument ``i`` (static sizes as
    constants: what the kernel's code uses)."""

    def load(*path: int) -> SSAValue:
        return e(llvm.LoadOp(e(llvm.GEPOp(packed, [0, i, *path], struct, inbounds=True)),
                             PTR if path == (1,) else i64))

    sizes = [load(3, d) if n < 0 else e.const(n) for d, n in enumerate(t.get_shape())]
    return load(1), load(2), sizes, [load(4, d) for d in range(len(sizes))]


def _extent(
    e: _Emitter, packed: SSAValue, struct: Attribute, i: int, t: MemRefType
) -> tuple[SSAValue, SSAValue, SSAValue]:
    """(first byte, end byte, non-empty) of the elements memref argument ``i`` can reach."""
    aligned, offset, sizes, strides = _descriptor(e, packed, struct, i, t)
    _, esize, _ = element_storage(t.element_type)
    es = e.const(esize)
    lo = e(arith.AddiOp(e(llvm.PtrToIntOp(aligned, i64)), e(arith.MuliOp(offset, es))))
    hi = e(arith.AddiOp(lo, es))
    nonempty = e.const(1, i1)
    zero, one = e.const(0), e.const(1)
    for n, s in zip(sizes, strides, strict=True):
        reach = e(arith.MuliOp(e(arith.MuliOp(e(arith.SubiOp(n, one)), s)), es))
        lo = e(arith.AddiOp(lo, e(arith.MinSIOp(reach, zero))))
        hi = e(arith.AddiOp(hi, e(arith.MaxSIOp(reach, zero))))
        nonempty = e(arith.AndIOp(nonempty, e(arith.CmpiOp(n, zero, "sgt"))))
    return lo, hi, nonempty


def _for(e: _Emitter, n: SSAValue, body: Callable[[_Emitter, SSAValue], None]) -> None:
    """``scf.for k = 0 to n`` (n an i64) with ``body(emitter, k as i64)``."""
    block = Block(arg_types=[INDEX])
    b = _Emitter(block)
    body(b, b(arith.IndexCastOp(block.args[0], i64)))
    b(scf.YieldOp())
    e(scf.ForOp(e.const(0, INDEX), e(arith.IndexCastOp(n, INDEX)), e.const(1, INDEX), [],
                block))


def emit_privatized_slice(
    e: _Emitter,
    packed: SSAValue,
    arg_types: Sequence[Attribute],
    privatized: dict[int, str],
    work_items: SSAValue,
    run_private: Callable[[_Emitter, SSAValue], None],
    run_direct: Callable[[_Emitter], None],
) -> None:
    """The slice with privatize-global-atomics' copies where the run-time conditions hold:

    each privatized argument's reachable elements ``[0, span)`` from its aligned pointer
    (span = offset + Σ (size−1)·stride + 1; sizes ≥ 1, offset, sizes and strides in
    ``[0, MAX_PRIVATE_BYTES]``, so nothing overflows) are no more than the slice's
    work-items, all copies together fit in ``MAX_PRIVATE_BYTES``, and no other global
    memref argument's extent overlaps any of them. Then a copy of the packed arguments
    points the privatized descriptors (same offset and strides) to ``alloca``s filled with
    the kind's identity, ``run_private`` runs the groups on it, and each element that is not
    the identity is combined into the array with one relaxed ``llvm.atomicrmw``. Otherwise
    ``run_direct`` runs the groups on the arrays."""
    struct = packed_struct_type(arg_types)
    limit = e.const(MAX_PRIVATE_BYTES)
    one = e.const(1)
    ok = e.const(1, i1)

    def both(*conds: SSAValue) -> None:
        nonlocal ok
        for c in conds:
            ok = e(arith.AndIOp(ok, c))

    spans: dict[int, tuple[SSAValue, SSAValue]] = {}
    total = e.const(0)
    for i in privatized:
        t = arg_types[i]
        assert isinstance(t, MemRefType)
        aligned, offset, sizes, strides = _descriptor(e, packed, struct, i, t)
        both(e(arith.CmpiOp(offset, limit, "ule")))
        span = e(arith.AddiOp(offset, one))
        for n, s in zip(sizes, strides, strict=True):
            both(e(arith.CmpiOp(n, one, "sge")), e(arith.CmpiOp(n, limit, "ule")),
                 e(arith.CmpiOp(s, limit, "ule")))
            span = e(arith.AddiOp(span, e(arith.MuliOp(e(arith.SubiOp(n, one)), s))))
        _, esize, _ = element_storage(t.element_type)
        total = e(arith.AddiOp(total, e(arith.MuliOp(span, e.const(esize)))))
        both(e(arith.CmpiOp(span, work_items, "ule")))
        spans[i] = (_named(span, f"private_span{i}"), aligned)
    both(e(arith.CmpiOp(total, limit, "ule")))  # all copies together: one thread's stack
    globals_ = [j for j, t in enumerate(arg_types)
                if isinstance(t, MemRefType) and not is_local_memref(t)]
    extents = {j: _extent(e, packed, struct, j, arg_types[j]) for j in globals_}  # type: ignore[arg-type]
    for i in privatized:
        lo, hi, full = extents[i]
        for j in globals_:
            if j == i:
                continue
            lo2, hi2, full2 = extents[j]
            apart = e(arith.OrIOp(e(arith.CmpiOp(hi, lo2, "ule")), e(arith.CmpiOp(hi2, lo, "ule"))))
            empty = e(arith.XOrIOp(e(arith.AndIOp(full, full2)), e.const(1, i1)))
            both(e(arith.OrIOp(apart, empty)))
    _named(ok, "privatize")

    then = Block()
    p = _Emitter(then)
    copy = _named(p(llvm.AllocaOp(p.const(1), struct, alignment=16)), "packed_private")
    p(llvm.StoreOp(p(llvm.LoadOp(packed, struct)), copy))
    buffers: dict[int, tuple[SSAValue, Attribute, SSAValue]] = {}
    for i, kind in privatized.items():
        t = arg_types[i]
        assert isinstance(t, MemRefType)
        elem, esize, _ = element_storage(t.element_type)
        span, _ = spans[i]
        nbytes = p(arith.MuliOp(span, p.const(esize)))
        buf = _named(p(llvm.AllocaOp(nbytes, i8, alignment=LOCAL_ARG_ALIGN)), f"private{i}")
        for f in (0, 1):
            p(llvm.StoreOp(buf, p(llvm.GEPOp(copy, [0, i, f], struct, inbounds=True))))
        unit = p.const(identity(kind, elem.width.data), elem)  # type: ignore[attr-defined]

        def fill(b: _Emitter, k: SSAValue, buf: SSAValue = buf, elem: Attribute = elem,
                 unit: SSAValue = unit) -> None:
            b(llvm.StoreOp(unit, _element(b, buf, k, elem)))

        _for(p, span, fill)
        buffers[i] = (buf, elem, unit)
    run_private(p, copy)
    for i, kind in privatized.items():
        buf, elem, unit = buffers[i]
        span, aligned = spans[i]

        def flush(b: _Emitter, k: SSAValue, buf: SSAValue = buf, elem: Attribute = elem,
                  unit: SSAValue = unit, aligned: SSAValue = aligned, kind: str = kind) -> None:
            v = b(llvm.LoadOp(_element(b, buf, k, elem), elem))
            update = Block()
            u = _Emitter(update)
            u(llvmx.AtomicRMWOp(FLUSH_OPS[kind], _element(u, aligned, k, elem), v, ORDERING))
            u(scf.YieldOp())
            b(scf.IfOp(b(arith.CmpiOp(v, unit, "ne")), [], Region(update)))

        _for(p, span, flush)
    p(scf.YieldOp())
    direct = Block()
    d = _Emitter(direct)
    run_direct(d)
    d(scf.YieldOp())
    e(scf.IfOp(ok, [], Region(then), Region(direct)))


def _element(e: _Emitter, base: SSAValue, k: SSAValue, elem: Attribute) -> SSAValue:
    return e(llvm.GEPOp(base, [llvm.GEP_USE_SSA_VAL], elem, ssa_indices=[k], inbounds=True))


def build_entry_hook(
    wrapper: func.FuncOp,
    arg_types: Sequence[Attribute] | None = None,
    privatized: Privatized | None = None,
    group_band: int = 0,
) -> func.FuncOp:
    """The hook of ``wrapper``; ``arg_types`` (the kernel's, without the scheduling
    pointers) are needed to give local-memory arguments their buffers and for
    ``privatized`` (the wrapper of privatize-global-atomics' variant and its arguments);
    ``group_band`` > 0 runs the groups in bands of that many group columns (``_banded_ids``)."""

    wname = wrapper.sym_name.data
    inputs = list(wrapper.function_type.inputs.data)
    if inputs != [PTR] * 4 or wrapper.function_type.outputs.data:
        raise XmuxError(
            f"add-entry-hook: entry point '{wname}' must take (packed, wi_info, wg_info, "
            "sched_info) pointers and return nothing; run add-kernel-wrapper first"
        )
    base = attrs.get_base_name(wrapper)
    sched_t, wg_t, wi_t = attrs.SCHED_INFO_TYPE, attrs.WG_INFO_TYPE, attrs.WI_INFO_TYPE

    entry = Block(arg_types=[PTR, PTR])
    packed = _named(entry.args[0], "packed")
    sched = _named(entry.args[1], "sched_info")
    e = _Emitter(entry)

    one = e.const(1)
    wi = _named(e(llvm.AllocaOp(one, wi_t, alignment=8)), "wi_info")
    wg = _named(e(llvm.AllocaOp(one, wg_t, alignment=8)), "wg_info")
    if arg_types is not None and any(is_local_memref(t) for t in arg_types):
        packed = _local_arg_copy(e, packed, arg_types)

    gsize = [
        _named(e.load_field(sched, sched_t, attrs.SCHED_GLOBAL_SIZE + d), f"global_size{d}")
        for d in range(3)
    ]
    reqd = attrs.get_reqd_work_group_size(wrapper)
    if reqd is not None:
        # the launcher checks the enqueued size against it; constants let LLVM fold divisions
        lsize = [e.const(v) for v in reqd]
    else:
        lsize = [
            _named(e.load_field(sched, sched_t, attrs.SCHED_LOCAL_SIZE + d), f"enqueued_size{d}")
            for d in range(3)
        ]
    ngroups: list[SSAValue] = []
    for d in range(3):
        # ceil(g / l) without arith.ceildivui: (g + l - 1) / l, no overflow for real sizes
        bumped = e(arith.SubiOp(e(arith.AddiOp(gsize[d], lsize[d])), one))
        ng = _named(e(arith.DivUIOp(bumped, lsize[d])), f"num_groups{d}")
        e.store_field(ng, wg, wg_t, attrs.WG_NUM_GROUPS + d)
        ngroups.append(ng)
    ng01 = e(arith.MuliOp(ngroups[0], ngroups[1]))
    total = _named(e(arith.MuliOp(ng01, ngroups[2])), "total_groups")

    slice_ = _named(e.load_field(sched, sched_t, attrs.SCHED_SLICE), "slice")
    nslices = _named(e.load_field(sched, sched_t, attrs.SCHED_TOTAL_SLICES), "total_slices")
    quot = e(arith.DivUIOp(total, nslices))
    rem = e(arith.RemUIOp(total, nslices))

    def slice_start(s: SSAValue) -> SSAValue:
        # s·G/T == s·(G/T) + s·(G%T)/T exactly; the products stay below G and T².
        return e(arith.AddiOp(e(arith.MuliOp(s, quot)),
                              e(arith.DivUIOp(e(arith.MuliOp(s, rem)), nslices))))

    first = _named(slice_start(slice_), "first_group")
    last = _named(slice_start(e(arith.AddiOp(slice_, one))), "end_group")
    lb = e(arith.IndexCastOp(first, INDEX))
    ub = e(arith.IndexCastOp(last, INDEX))
    step = e.const(1, INDEX)

    cancel = _cancel_word(e, sched)
    band = None
    if group_band > 0:
        width = e.const(group_band)
        band = (width, _named(e(arith.MuliOp(width, ngroups[1])), "band_groups"))

    def run_groups(e: _Emitter, callee: str, packed: SSAValue) -> None:
        body = Block(arg_types=[INDEX])
        group = Block()
        b = _Emitter(group)
        lin = b(arith.IndexCastOp(_named(body.args[0], "group"), i64))
        if band is None:
            gid0 = b(arith.RemUIOp(lin, ngroups[0]))
            rest = b(arith.DivUIOp(lin, ngroups[0]))
            gid1 = b(arith.RemUIOp(rest, ngroups[1]))
            gid2 = b(arith.DivUIOp(rest, ngroups[1]))
        else:
            gid0, gid1, gid2 = _banded_ids(b, lin, ngroups, ng01, band)
        for d, gid in enumerate((gid0, gid1, gid2)):
            _named(gid, f"group_id{d}")
            b.store_field(gid, wg, wg_t, attrs.WG_GROUP_ID + d)
            start = b(arith.MuliOp(gid, lsize[d]))
            left = b(arith.SubiOp(gsize[d], start))
            actual = _named(b(arith.MinUIOp(lsize[d], left)), f"local_size{d}")
            b.store_field(actual, wg, wg_t, attrs.WG_LOCAL_SIZE + d)
        b(func.CallOp(callee, [packed, wi, wg, sched], []))
        b(scf.YieldOp())
        # a cancelled launch skips the groups not yet started (runtime/interrupt.py)
        g = _Emitter(body)
        flag = _named(g(llvm.LoadOp(cancel, i64, alignment=8, ordering=_MONOTONIC)), "cancelled")
        run = g(arith.CmpiOp(flag, e.const(0), "eq"))
        g(scf.IfOp(run, [], Region(group)))
        g(scf.YieldOp())
        e(scf.ForOp(lb, ub, step, [], body))

    if privatized is None or arg_types is None:
        run_groups(e, wname, packed)
    else:
        groups = e(arith.SubiOp(last, first))
        work_items = e(arith.MuliOp(e(arith.MuliOp(groups, lsize[0])),
                                    e(arith.MuliOp(lsize[1], lsize[2]))))
        emit_privatized_slice(
            e, packed, arg_types, privatized.args, work_items,
            lambda pe, copy: run_groups(pe, privatized.wrapper, copy),
            lambda de: run_groups(de, wname, packed),
        )
    e(func.ReturnOp())

    hook = func.FuncOp(kernel_name(wrapper) + ENTRY_HOOK_SUFFIX, ([PTR, PTR], []), Region(entry))
    attrs.set_kernel(hook, True)
    attrs.set_base_name(hook, base)
    attrs.set_orig_fn(hook, kernel_name(wrapper))
    copy_kernel_attrs(hook, wrapper)
    return hook


def sweeps_memory(kernel: func.FuncOp) -> bool:
    """Whether ``kernel`` has a loop that is no work-item loop, runs more than
    ``SWEEP_MIN_TRIPS`` times (or an unknown number) and loads from an address its induction
    variable moves (matmul's ``k`` loop reading ``B[k, col]``): each work-item sweeps a strip
    of memory that the groups beside it in the other dimension sweep too, which band order
    keeps in cache. Kernels without one (streaming: conv3x3 reads each input row once, in
    order) keep x-fastest order, which runs along whole rows (band order made conv3x3
    2048² with 64×4 groups 1.5× slower on a Zen 4 core)."""
    for loop in kernel.walk():
        if not isinstance(loop, scf.ForOp) or attrs.is_work_item_loop(loop):
            continue
        trips = static_trip_count(loop)
        if trips is not None and trips <= SWEEP_MIN_TRIPS:
            continue
        moved: set[SSAValue] = {loop.body.block.args[0]}
        for op in loop.body.walk():
            if isinstance(op, (memref.LoadOp, vector.LoadOp)):
                if any(i in moved for i in op.indices):
                    return True
            elif op.dialect_name() in ("arith", "index") and any(o in moved for o in op.operands):
                moved.update(op.results)
    return False


def _banded_ids(b: _Emitter, lin: SSAValue, ngroups: Sequence[SSAValue], plane: SSAValue,
                band: tuple[SSAValue, SSAValue]) -> tuple[SSAValue, SSAValue, SSAValue]:
    """Group ids of linear group ``lin`` in band order: each (x, y) plane of ``plane`` groups
    is cut into bands of W group columns (the last one narrower); a band runs row after row
    (W groups along x, then the next y). ``band`` = (W, W·ng1)."""
    width, band_groups = band
    gid2 = b(arith.DivUIOp(lin, plane))
    r = b(arith.RemUIOp(lin, plane))
    start = _named(b(arith.MuliOp(b(arith.DivUIOp(r, band_groups)), width)), "band_start")
    within = b(arith.RemUIOp(r, band_groups))
    # the last band may be narrower: W' = min(W, ng0 - start) > 0
    cols = _named(b(arith.MinUIOp(width, b(arith.SubiOp(ngroups[0], start)))), "band_width")
    gid0 = b(arith.AddiOp(start, b(arith.RemUIOp(within, cols))))
    gid1 = b(arith.DivUIOp(within, cols))
    return gid0, gid1, gid2


def _privatized_wrapper(
    wrapper: func.FuncOp, variant: func.FuncOp
) -> tuple[func.FuncOp, Privatized] | None:
    """A copy of ``wrapper`` calling privatize-global-atomics' ``variant``, or None when the
    variant has no marked arguments."""
    marked = {
        i: kind for i, kind in privatizable_args(variant).items()
        if all(SLICE_PRIVATE in u.operation.attributes
               for u in variant.body.blocks[0].args[i].uses
               if isinstance(u.operation, memref.AtomicRMWOp))
    }
    if not marked:
        return None
    copy = wrapper.clone()
    copy.sym_name = StringAttr(wrapper.sym_name.data + PRIVATIZED_SUFFIX)
    attrs.set_kernel(copy, False)
    for op in copy.walk():
        if isinstance(op, func.CallOp) and op.callee.root_reference.data == kernel_name(wrapper):
            op.callee = SymbolRefAttr(variant.sym_name.data)
    return copy, Privatized(copy.sym_name.data, marked)


@dataclass(frozen=True)
class AddEntryHook(ModulePass):
    """Add the exported ``<k>.mux-entry-hook(packed, sched)`` that loops over a slice's groups."""

    name = "add-entry-hook"

    #: > 0: the groups of each slice run in band order, bands of this many group columns,
    #: for kernels that ``sweeps_memory`` (``pipelines.cpu()`` sets ``GROUP_BAND``); 0: x
    #: fastest over the whole plane
    group_band: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        symbols = {f.sym_name.data: f for f in op.ops if isinstance(f, func.FuncOp)}
        for wrapper in attrs.entry_points(op):
            if wrapper.sym_name.data.endswith(ENTRY_HOOK_SUFFIX):
                continue  # already a hook
            kernel = symbols.get(kernel_name(wrapper))
            arg_types = kernel_arg_types(kernel) if kernel is not None else None
            variant = symbols.get(kernel_name(wrapper) + PRIVATIZED_SUFFIX)
            found = None
            if variant is not None and arg_types is not None:
                found = _privatized_wrapper(wrapper, variant)
            if self.group_band < 0:
                raise XmuxError(f"add-entry-hook: group_band must be >= 0, got {self.group_band}")
            # 1-D kernels: band order is their order anyway (ng1 = 1); skip its divisions
            band = (self.group_band if kernel is not None and attrs.get_work_dims_used(kernel) > 1
                    and sweeps_memory(kernel) else 0)
            hook = build_entry_hook(wrapper, arg_types, found[1] if found else None, band)
            Rewriter.insert_op(hook, InsertPoint.after(wrapper))
            if found:
                Rewriter.insert_op(found[0], InsertPoint.after(hook))
            attrs.set_kernel(wrapper, False)


__all__ = ["AddEntryHook", "ENTRY_HOOK_SUFFIX", "WRAPPER_SUFFIX", "build_entry_hook"]
