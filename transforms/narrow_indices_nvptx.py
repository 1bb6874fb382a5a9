"""narrow-indices-nvptx: a 32-bit address twin of each NVPTX entry whose loops step addresses.

xmux's ``index`` is 64-bit, so on the GPU every address step of a loop is a 64-bit add
(``IADD3`` + ``IADD3.X`` in SASS) where NVRTC's ``int`` indices give one ``IMAD.WIDE``
(``mul.wide.s32``): ~90 against 73 SASS instructions per 16 k-steps of bench/gpu.py's naive
matmul (docs/architecture.md, "NVRTC parity"). This pass gives the kernel body
``@"k.mux-kernel"`` a clone ``@"k.mux-kernel.i32"`` in which

- each ``memref.load`` / ``memref.store`` on a global memref argument of the kernel computes
  its element offset ``offset + Σ index_d * stride_d`` in ``i32`` with ``nsw nuw`` and
  sign-extends it once (a load of a 1-D ``memref.reinterpret_cast`` of the argument at that
  offset): LLVM's scalar evolution then moves the ``sext`` out of the address recurrence
  and NVPTX selects ``mul.wide.s32``;
- an ``scf.for`` whose induction variable such an offset uses runs on an ``i32`` induction
  variable when its bounds are proven to fit (below).

Each PTX entry calling the body (``@k`` and its read-only variant, add-kernel-wrapper-nvptx)
gets a twin ``abi/nvptx_variants.index32_name(entry)`` calling the clone, which
``runtime/cuda.py`` launches when ``nvptx_variants.index32_fits`` holds for the launch's
memref arguments (every size and stride in [0, 2^31), offset >= 0, the largest element
offset below 2^31; ``XMUX_NVPTX_INDEX32=0`` never does).

What is proven, under that launch condition:

- *Accesses.* An access is in bounds (memref semantics: anything else is undefined, as in
  the generic entry), so every index lies in [0, size) and fits ``i32`` whatever computed
  it (its ``trunc`` is exact), each ``index * stride`` term and every partial sum lies in
  [0, largest offset] < 2^31: the ``i32`` ``muli``/``addi`` neither wrap signed nor unsigned.
  Only the kernel's own memref arguments (positions of ``mux.kernel_abi``, global memory,
  identity or strided layout, static or dynamic strides) are rewritten: views, casts, local
  memory and memrefs of called functions keep their 64-bit addresses.
- *Values.* An ``index``/``i64`` value gets an ``i32`` twin only where an interval analysis
  bounds it to ``i32``: constants, ``index_cast``/``extsi`` of ``i32`` or narrower, ``extui``
  of narrower or of a non-negative ``i32`` (PTX's special registers have CUDA's ranges:
  ``tid.x`` < 1024...), ``memref.dim`` of a kernel memref argument ([0, 2^31)), ``addi``/
  ``subi``/``muli``/``minsi``/``maxsi`` of such values (``nsw``: the interval excludes a
  wrap; ``nuw`` too for a sum or product of non-negative ones; a bounded value whose
  operands have no twin is truncated, exactly), and
  ``scf.for`` induction variables: ``iv`` in [lb.lo, ub.hi - 1], and the loop is converted
  only if lb, ub and step have twins, step >= 1 and ``ub.hi - 1 + step.hi`` fits (the last
  increment cannot wrap), and not if it has at most ``SMALL_TRIPS`` iterations, all known
  (LLVM unrolls it; 64-bit indices fold into the copies' addresses). Work-item ids are not
  narrowed (the entries' launch record is 64-bit): an access truncates them, exact by the
  bounds argument.

A body without such a loop gets no twin (no gain, and the PTX stays as long as it was); nor
does a module with the checking mode's device record (checks promise the generic code).

Expects: add-kernel-wrapper-nvptx has run. Guarantees: the existing entries and the body are
unchanged; twins are ``nvvm.kernel`` functions that are no ``mux.kernel`` entry points (the
runtime finds them by name), the bodies are ``alwaysinline``.

Before (body and its entry ``@k``)::

    %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%s = %zero) -> (f32) {
      %b = memref.load %B[%k, %col] : memref<?x?xf32>
      ...

After (in ``@"k.mux-kernel.i32"``, called by ``@k__xmux_i32``)::

    %base, %off, %sizes:2, %strides:2 = memref.extract_strided_metadata %B : ...
    %flat = memref.reinterpret_cast %B to offset: [0], sizes: [2147483647], strides: [1]
    %s0 = arith.index_cast %strides#0 : index to i32
    %acc = scf.for %k32 = %c0_i32 to %nk32 step %c1_i32 iter_args(%s = %zero) -> (f32) : i32 {
      %k = arith.index_cast %k32 : i32 to index
      %col32 = arith.index_cast %col : index to i32
      %t = arith.muli %k32, %s0 overflow<nsw, nuw> : i32
      %o = arith.addi %t, %col32 overflow<nsw, nuw> : i32
      %oi = arith.index_cast %o : i32 to index
      %b = memref.load %flat[%oi] : memref<2147483647xf32>
      ...
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
    i32,
)
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi import nvptx_abi, nvptx_variants
from xmux.dialects import attrs
from xmux.dialects.llvmx import NVVM_KERNEL
from xmux.transforms.add_kernel_wrapper_nvptx import BODY_SUFFIX, PASSTHROUGH
from xmux.transforms.replace_local_module_scope_variables import is_local_memref

PASS = "narrow-indices-nvptx"
I32_MIN, I32_MAX = -(2**31), 2**31 - 1
#: the clone of ``k.mux-kernel`` is ``k.mux-kernel.i32``
CLONE_SUFFIX = ".i32"
#: a loop of at most this many iterations, all known, keeps its 64-bit induction variable:
#: LLVM unrolls it fully, and 64-bit indices let it fold each copy's constant into the
#: address (bench/kernels/conv3x3_bounds.mlir's 3 x 3 taps in i32: 168 SASS instructions
#: against 130)
SMALL_TRIPS = 64
Range = tuple[int, int]
_NSW = arith.IntegerOverflowAttr([arith.IntegerOverflowFlag.NSW])
_NSW_NUW = arith.IntegerOverflowAttr([arith.IntegerOverflowFlag.NSW,
                                      arith.IntegerOverflowFlag.NUW])
#: the ``index``/``i64`` operations an interval bounds (and a twin repeats in ``i32``)
_ARITH = (arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.MinSIOp, arith.MaxSIOp)
#: PTX's special registers (CUDA's limits: blocks of at most 1024 threads, 64 in z; grids
#: of 2^31 - 1 x 65535 x 65535 blocks)
_SREG: dict[str, Range] = {
    "tid.x": (0, 1023), "tid.y": (0, 1023), "tid.z": (0, 63),
    "ntid.x": (1, 1024), "ntid.y": (1, 1024), "ntid.z": (1, 64),
    "ctaid.x": (0, 2**31 - 2), "ctaid.y": (0, 65534), "ctaid.z": (0, 65534),
    "nctaid.x": (1, 2**31 - 1), "nctaid.y": (1, 65535), "nctaid.z": (1, 65535),
    "laneid": (0, 31), "warpid": (0, 1023),
}
_BINARY = {arith.AddiOp: lambda a, b: (a[0] + b[0], a[1] + b[1]),
           arith.SubiOp: lambda a, b: (a[0] - b[1], a[1] - b[0])}


def _fits(r: Range | None) -> bool:
    return r is not None and I32_MIN <= r[0] and r[1] <= I32_MAX


def _signed(width: int) -> Range:
    return -(2 ** (width - 1)), 2 ** (width - 1) - 1


def _is_narrow(t: object, width: int = 32) -> bool:
    return isinstance(t, IntegerType) and t.width.data <= width


def _const_i32(value: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, i32))


class _Narrower:
    """The narrowing of one body clone (module docstring)."""

    def __init__(self, body: func.FuncOp, memrefs: set[BlockArgument]) -> None:
        self.body = body
        self.entry = body.body.blocks[0]
        self.memrefs = memrefs
        self.ranges: dict[SSAValue, Range | None] = {}
        self.twins: dict[SSAValue, SSAValue | None] = {}
        self.loops: dict[scf.ForOp, SSAValue | None] = {}
        self.converted = 0
        self.views: dict[SSAValue, tuple[SSAValue, list[int | SSAValue], int | SSAValue]] = {}

    # -- intervals ---------------------------------------------------------------------

    def range_of(self, v: SSAValue) -> Range | None:
        if v in self.ranges:
            return self.ranges[v]
        self.ranges[v] = None  # a cycle (none in structured code) stays unknown
        r = self._range(v)
        self.ranges[v] = r
        return r

    def _range(self, v: SSAValue) -> Range | None:
        t = v.type
        if isinstance(v.owner, llvm.CallIntrinsicOp):
            name = v.owner.intrin.data.removeprefix("llvm.nvvm.read.ptx.sreg.")
            if name in _SREG:
                return _SREG[name]
        if _is_narrow(t):
            return _signed(t.width.data)  # type: ignore[union-attr]
        if not (isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width.data == 64)):
            return None
        if isinstance(v, BlockArgument):
            loop = v.block.parent_op()
            if isinstance(loop, scf.ForOp) and v.index == 0:
                return self._iv_range(loop)
            return None
        op = v.owner
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            c = op.value.value.data
            return c, c
        if isinstance(op, arith.IndexCastOp | arith.ExtSIOp):
            return self.range_of(op.operands[0])  # a widening keeps the value
        if isinstance(op, arith.ExtUIOp) and _is_narrow(op.operands[0].type):
            r = self.range_of(op.operands[0])
            if r is not None and r[0] >= 0:
                return r  # a non-negative value: extended as it is
            return 0, 2 ** op.operands[0].type.width.data - 1  # type: ignore[union-attr]
        if isinstance(op, memref.DimOp) and op.source in self.memrefs:
            return 0, I32_MAX
        if isinstance(op, _ARITH):
            a, b = self.range_of(op.operands[0]), self.range_of(op.operands[1])
            if a is None or b is None:
                return None
            if isinstance(op, arith.MuliOp):
                p = [x * y for x in a for y in b]
                return min(p), max(p)
            if isinstance(op, arith.MinSIOp):
                return min(a[0], b[0]), min(a[1], b[1])
            if isinstance(op, arith.MaxSIOp):
                return max(a[0], b[0]), max(a[1], b[1])
            return _BINARY[type(op)](a, b)
        return None

    def _bounds(self, loop: scf.ForOp) -> tuple[Range, Range, Range] | None:
        if "unsignedCmp" in loop.properties or "unsignedCmp" in loop.attributes:
            return None
        lb, ub, step = (self.range_of(x) for x in (loop.lb, loop.ub, loop.step))
        if not (_fits(lb) and _fits(ub) and _fits(step)) or step[0] < 1:  # type: ignore[index]
            return None
        return lb, ub, step  # type: ignore[return-value]

    def _iv_range(self, loop: scf.ForOp) -> Range | None:
        bounds = self._bounds(loop)
        if bounds is None:
            return None
        lb, ub, _ = bounds
        return lb[0], max(lb[0], ub[1] - 1)

    # -- twins -------------------------------------------------------------------------

    def twin(self, v: SSAValue) -> SSAValue | None:
        """An ``i32`` value equal to ``v`` wherever ``v`` is defined, or None."""
        if v.type == i32:
            return v
        if v in self.twins:
            return self.twins[v]
        self.twins[v] = None
        made = self._twin(v) if _fits(self.range_of(v)) else None
        self.twins[v] = made
        return made

    def _after(self, anchor: SSAValue, op: Operation) -> SSAValue:
        if isinstance(anchor, BlockArgument):
            Rewriter.insert_op(op, InsertPoint.at_start(anchor.block))
        else:
            Rewriter.insert_op(op, InsertPoint.after(anchor.owner))  # type: ignore[arg-type]
        return op.results[0]

    def _twin(self, v: SSAValue) -> SSAValue | None:
        if isinstance(v, BlockArgument):
            loop = v.block.parent_op()
            return self._loop(loop) if isinstance(loop, scf.ForOp) and v.index == 0 else None
        op = v.owner
        if isinstance(op, arith.ConstantOp):
            r = self.range_of(v)
            return self._after(v, _const_i32(r[0]))  # type: ignore[index]
        if isinstance(op, arith.IndexCastOp | arith.ExtSIOp):
            src = op.operands[0]
            if src.type == i32:
                return src
            if _is_narrow(src.type):
                return self._after(v, arith.ExtSIOp(src, i32))
            return self.twin(src)
        if isinstance(op, arith.ExtUIOp) and op.operands[0].type == i32:
            return op.operands[0]  # its range is non-negative (it fits)
        if isinstance(op, arith.ExtUIOp) and _is_narrow(op.operands[0].type):
            return self._after(v, arith.ExtUIOp(op.operands[0], i32))
        if isinstance(op, _ARITH):
            a, b = self.twin(op.operands[0]), self.twin(op.operands[1])
            if a is None or b is None:  # bounded, but not its operands: truncate it
                return self._after(v, arith.IndexCastOp(v, i32) if isinstance(
                    v.type, IndexType) else arith.TruncIOp(v, i32))
            if isinstance(op, arith.MinSIOp | arith.MaxSIOp):
                return self._after(v, type(op)(a, b))
            ra, rb = self.range_of(op.operands[0]), self.range_of(op.operands[1])
            unsigned = not isinstance(op, arith.SubiOp) and ra[0] >= 0 and rb[0] >= 0  # type: ignore[index]
            return self._after(v, type(op)(a, b, overflow=_NSW_NUW if unsigned else _NSW))
        # a bounded value of another kind (memref.dim): its truncation is exact
        return self._after(v, arith.IndexCastOp(v, i32) if isinstance(v.type, IndexType)
                           else arith.TruncIOp(v, i32))

    def _loop(self, loop: scf.ForOp) -> SSAValue | None:
        """The ``i32`` induction variable of ``loop`` converted (once), or None."""
        if loop in self.loops:
            return self.loops[loop]
        self.loops[loop] = None
        bounds = self._bounds(loop)
        if bounds is None or bounds[1][1] - 1 + bounds[2][1] > I32_MAX:
            return None
        if all(r[0] == r[1] for r in bounds) and -(
                (bounds[0][0] - bounds[1][0]) // bounds[2][0]) <= SMALL_TRIPS:
            return None  # LLVM unrolls it: 64-bit indices fold into its addresses' offsets
        lb, ub, step = (self.twin(x) for x in (loop.lb, loop.ub, loop.step))
        if lb is None or ub is None or step is None:
            return None
        old = loop.body.block
        iv = old.args[0]
        iv_range = self.range_of(iv)
        block = Block(arg_types=[i32, *(a.type for a in old.args[1:])])
        for o in list(old.ops):
            o.detach()
            block.add_op(o)
        for a, b in zip(old.args[1:], block.args[1:], strict=True):
            b.name_hint = a.name_hint
            a.replace_all_uses_with(b)
        iv32 = block.args[0]
        iv32.name_hint = iv.name_hint
        wide = (arith.IndexCastOp(iv32, iv.type) if isinstance(iv.type, IndexType)
                else arith.ExtSIOp(iv32, iv.type))
        block.insert_op_before(wide, block.first_op) if block.first_op else block.add_op(wide)
        iv.replace_all_uses_with(wide.result)
        new = scf.ForOp(lb, ub, step, list(loop.iter_args), Region(block))
        new.attributes.update(loop.attributes)
        for r_old, r_new in zip(loop.results, new.results, strict=True):
            r_new.name_hint = r_old.name_hint
        Rewriter.replace_op(loop, new)
        self.ranges[wide.result] = iv_range
        self.twins[wide.result] = iv32
        self.loops[loop] = self.loops[new] = iv32  # type: ignore[index]
        self.converted += 1
        return iv32

    # -- accesses ----------------------------------------------------------------------

    def _view(self, m: BlockArgument) -> tuple[SSAValue, list[int | SSAValue], int | SSAValue]:
        """The 1-D view of memref argument ``m`` at its aligned pointer, its strides and
        offset (``i32`` values or static ints), built once at the body's start."""
        if m in self.views:
            return self.views[m]
        t = m.type
        assert isinstance(t, MemRefType)
        ops: list[Operation] = []
        static = list(t.get_strides() or [])
        static_offset = t.get_offset()
        meta = None
        if None in static or static_offset is None:
            meta = memref.ExtractStridedMetaDataOp(m)
            ops.append(meta)

        def narrow(value: SSAValue) -> SSAValue:
            cast = arith.IndexCastOp(value, i32)
            ops.append(cast)
            return cast.result

        offset: int | SSAValue = (static_offset if static_offset is not None
                                  else narrow(meta.offset))  # type: ignore[union-attr]
        strides: list[int | SSAValue] = []
        for d, st in enumerate(static):
            if st is None:
                strides.append(narrow(meta.strides[d]))  # type: ignore[union-attr]
            elif st in (0, 1):
                strides.append(st)  # no term / no product
            else:
                ops.append(const := _const_i32(st))
                strides.append(const.result)
        flat_type = MemRefType(t.element_type, [I32_MAX], NoneAttr(), t.memory_space)
        flat = memref.ReinterpretCastOp.from_dynamic(m, [0], [I32_MAX], [1], flat_type)
        ops.append(flat)
        flat.result.name_hint = (m.name_hint or "arg") + "_flat"
        Rewriter.insert_op(ops, InsertPoint.at_start(self.entry))
        self.views[m] = (flat.result, strides, offset)
        return self.views[m]

    def rewrite(self, op: memref.LoadOp | memref.StoreOp) -> None:
        m = op.memref
        if m not in self.memrefs:
            return
        t = m.type
        assert isinstance(t, MemRefType)
        if t.get_strides() is None:
            return  # an affine-map layout
        flat, strides, offset = self._view(m)  # type: ignore[arg-type]
        total: SSAValue | None = None

        def emit(new: Operation) -> SSAValue:
            # not one insertion point: converting a loop moves ``op`` into a new block
            Rewriter.insert_op(new, InsertPoint.before(op))
            return new.results[0]

        def add(x: SSAValue) -> None:
            nonlocal total
            total = x if total is None else emit(arith.AddiOp(total, x, overflow=_NSW_NUW))

        if isinstance(offset, SSAValue):
            add(offset)
        elif offset:
            add(emit(_const_i32(offset)))
        for index, stride in zip(op.indices, strides, strict=True):
            if stride == 0:
                continue
            narrow = self.twin(index) or emit(arith.IndexCastOp(index, i32))
            if isinstance(stride, SSAValue):
                narrow = emit(arith.MuliOp(narrow, stride, overflow=_NSW_NUW))
            add(narrow)
        if total is None:
            total = emit(_const_i32(0))
        at = emit(arith.IndexCastOp(total, IndexType()))
        if isinstance(op, memref.LoadOp):
            new: Operation = memref.LoadOp.get(flat, [at])
        else:
            new = memref.StoreOp.get(op.value, flat, [at])
        new.properties.update(op.properties)
        new.attributes.update(op.attributes)
        Rewriter.replace_op(op, new)


def _user_memrefs(body: func.FuncOp) -> set[BlockArgument]:
    """The body's block arguments that are the kernel's global memref arguments (the
    launch's arrays: ``mux.kernel_abi``'s positions, no hidden buffer)."""
    abi = attrs.get_kernel_abi(body)
    if abi is None or not body.body.blocks:
        return set()
    block = body.body.blocks[0]
    return {block.args[i] for i, a in enumerate(abi[1]) if a.kind == "memref"
            and i < len(block.args) and isinstance(block.args[i].type, MemRefType)
            and not is_local_memref(block.args[i].type)}


def _callee(entry: func.FuncOp) -> str | None:
    calls = [o for o in entry.body.walk() if isinstance(o, func.CallOp)]
    return calls[0].callee.string_value() if len(calls) == 1 else None


def narrow_body(body: func.FuncOp, memrefs: set[BlockArgument] | None = None) -> int:
    """Narrow ``body`` in place (the module docstring); the number of loops converted.
    ``memrefs``: the arguments whose accesses to rewrite, default the kernel's global memref
    arguments (tests narrow a CPU kernel's to check the rewrite's numerics)."""
    if memrefs is None:
        memrefs = _user_memrefs(body)
    if not memrefs or not body.body.blocks:
        return 0
    narrower = _Narrower(body, memrefs)
    accesses = [o for o in body.walk() if isinstance(o, memref.LoadOp | memref.StoreOp)
                and o.memref in memrefs]
    for access in accesses:
        narrower.rewrite(access)
    return narrower.converted


@dataclass(frozen=True)
class NarrowIndicesNvptx(ModulePass):
    """Give each NVPTX entry whose loops step addresses a twin with 32-bit address arithmetic."""

    name = "narrow-indices-nvptx"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if any(o.properties.get("sym_name") == StringAttr(nvptx_abi.CHECK_RECORD)
               or o.attributes.get("sym_name") == StringAttr(nvptx_abi.CHECK_RECORD)
               for o in op.body.block.ops):
            return  # the checking mode: its launches run the generic code
        symbols = attrs.functions(op)
        entries: dict[str, list[func.FuncOp]] = {}
        for f in symbols.values():
            callee = _callee(f) if NVVM_KERNEL in f.attributes else None
            if callee is not None and callee.endswith(BODY_SUFFIX) and callee in symbols:
                entries.setdefault(callee, []).append(f)
        for name, callers in entries.items():
            twins = [nvptx_variants.index32_name(e.sym_name.data) for e in callers]
            clone_name = name + CLONE_SUFFIX
            if any(t in symbols for t in twins) or clone_name in symbols:
                continue  # already done, or a user's function has the name
            body = symbols[name]
            clone = body.clone()
            if not narrow_body(clone):
                continue
            clone.sym_name = StringAttr(clone_name)
            for f in (body, clone):
                f.attributes[PASSTHROUGH] = ArrayAttr([StringAttr("alwaysinline")])
            Rewriter.insert_op(clone, InsertPoint.after(body))
            for entry, twin in zip(callers, twins, strict=True):
                copy = entry.clone()
                copy.sym_name = StringAttr(twin)
                attrs.clear_kernel(copy)
                attrs.set_orig_fn(copy, clone_name)
                for call in copy.body.walk():
                    if isinstance(call, func.CallOp):
                        call.callee = SymbolRefAttr(clone_name)
                Rewriter.insert_op(copy, InsertPoint.after(entry))
