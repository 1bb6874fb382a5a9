"""lower-gpu-printf-nvptx: ``gpu.printf`` on the GPU through CUDA's ``vprintf``.

convert-gpu-to-mux lowers ``gpu.printf`` (and ``vector.print`` in kernels) to a call of the
host printer ``xmux_gpu_printf(id, record, n, a0 .. a7)`` (``runtime/gpu_printf.py``): the
record is a module constant ``<kinds>\\0<format>\\0``, every argument an ``i64`` (integers
sign-extended, floats the bits of an ``f64``). A GPU has no host callback; this pass rewrites
each such call into what CUDA's device printf is, ``i32 @vprintf(ptr format, ptr args)``:

* the format, a constant string in global memory (``@"xmux.printf.N"``);
* the arguments packed in a local buffer as C's variadic promotion lays them out for that
  format (what ``vprintf`` reads): an integer conversion without a length modifier or with
  ``hh``/``h`` takes a 4-byte ``int``, with ``l``/``ll``/``j``/``z``/``t`` an 8-byte one; a
  float conversion an 8-byte ``double``; each slot aligned to its size. A float argument
  printed with an integer conversion is converted (``fptosi``), an integer printed with a float
  one too (``sitofp``), as the CPU printer does; a conversion without an argument prints 0.

CUDA writes the device's printf buffer to stdout when the host synchronizes; the runtime
synchronizes after a launch of a module that calls ``vprintf`` (``runtime/cuda.py``).

Expects: convert-gpu-to-mux's printf calls (the record a ``memref.global`` reached through
``memref.get_global``). Guarantees: no ``xmux_gpu_printf`` call or declaration left; the
records are erased.

Before::

    %r = memref.get_global @__gpu_printf_394fc16f : memref<29xi8>
    ...
    func.call @xmux_gpu_printf(%id, %rec, %c3, %tid, %c2, %f, %z, ...) : (i64, ...) -> ()

After::

    %fmt = llvm.mlir.addressof @"xmux.printf.0" : !llvm.ptr   // "Hello from %lld, %d, %f\\n"
    %buf = llvm.alloca %c24 x i8 {alignment = 8 : i64} : (i64) -> !llvm.ptr
    llvm.store %tid, %buf : i64, !llvm.ptr                       // %lld: 8 bytes at 0
    %p1 = llvm.getelementptr %buf[8] : (!llvm.ptr) -> !llvm.ptr, i8
    %t = arith.trunci %c2 : i64 to i32                           // %d: 4 bytes at 8
    llvm.store %t, %p1 : i32, !llvm.ptr
    %p2 = llvm.getelementptr %buf[16] : (!llvm.ptr) -> !llvm.ptr, i8
    llvm.store %f, %p2 : i64, !llvm.ptr                          // %f: a double at 16
    %n = func.call @vprintf(%fmt, %buf) : (!llvm.ptr, !llvm.ptr) -> i32
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float64Type,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    i32,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from xmux.abi.errors import NotSupportedError
from xmux.transforms.add_kernel_wrapper import PTR

HOST_PRINTF = "xmux_gpu_printf"
VPRINTF = "vprintf"
_INT_CONVERSIONS = "diouxXc"
_LONG = ("l", "ll", "j", "z", "t")


def _record(call: func.CallOp, module: ModuleOp) -> tuple[str, str, str]:
    """(record global's name, kinds, format) of a host printer call."""
    op: Operation | None = call.arguments[1].owner  # type: ignore[assignment]
    while isinstance(op, (arith.IndexCastOp, memref.ExtractAlignedPointerAsIndexOp)):
        op = op.operands[0].owner  # type: ignore[assignment]
    if isinstance(op, memref.GetGlobalOp):
        name = op.name_.root_reference.data
        glob = next((g for g in module.ops if isinstance(g, memref.GlobalOp)
                     and g.sym_name.data == name), None)
        if glob is not None and isinstance(glob.initial_value, DenseIntOrFPElementsAttr):
            raw = bytes(v & 0xFF for v in glob.initial_value.get_values())  # type: ignore[operator]
            kinds, _, rest = raw.partition(b"\0")
            return name, kinds.decode(), rest.split(b"\0", 1)[0].decode(errors="replace")
    raise NotSupportedError(
        f"lower-gpu-printf-nvptx: a call of @{HOST_PRINTF} whose format record is not a "
        "memref.global reached through memref.get_global (convert-gpu-to-mux's form)"
    )


def _slots(fmt: str, n: int) -> list[str]:
    """The C type vprintf reads for each conversion of ``fmt``: "i32", "i64" or "f64"
    (then "i64" for arguments past the conversions: C ignores them)."""
    from xmux.abi.printf_format import SPEC

    out = []
    for m in SPEC.finditer(fmt):
        _, length, conv = m.groups()
        if conv == "%":
            continue
        if conv == "s":
            raise NotSupportedError("lower-gpu-printf-nvptx: %s takes a string, which a "
                                    "gpu.printf argument cannot be")
        if conv in _INT_CONVERSIONS:
            out.append("i64" if length in _LONG else "i32")
        else:
            out.append("f64")
    return out + ["i64"] * (n - len(out))


def _value(b: list[Operation], word: SSAValue | None, kind: str, slot: str) -> SSAValue:
    """The argument ``word`` (i64: an integer, or an f64's bits when ``kind`` is "f") as the
    slot's C type; 0 when the format has more conversions than arguments."""
    def add(op: Operation) -> SSAValue:
        b.append(op)
        return op.results[0]

    if word is None:
        return add(arith.ConstantOp(IntegerAttr(0, i32 if slot == "i32" else i64)))
    if slot == "f64":
        if kind == "f":
            return word  # the double's bits
        return add(arith.BitcastOp(add(arith.SIToFPOp(word, Float64Type())), i64))
    if kind == "f":
        word = add(arith.FPToSIOp(add(arith.BitcastOp(word, Float64Type())), i64))
    return add(arith.TruncIOp(word, i32)) if slot == "i32" else word


@dataclass(frozen=True)
class LowerGpuPrintfNvptx(ModulePass):
    """Rewrite the kernels' host printer calls as calls of CUDA's ``vprintf``."""

    name = "lower-gpu-printf-nvptx"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        calls = [c for c in op.walk() if isinstance(c, func.CallOp)
                 and c.callee.string_value() == HOST_PRINTF]
        if not calls:
            return
        formats: dict[str, str] = {}  # format -> its string global
        records: set[str] = set()
        taken = {g.sym_name.data for g in op.ops if isinstance(g, llvm.GlobalOp)}
        for call in calls:
            record, kinds, fmt = _record(call, op)
            records.add(record)
            if fmt not in formats:
                n = len(formats)
                while f"xmux.printf.{n}" in taken:
                    n += 1
                formats[fmt] = f"xmux.printf.{n}"
                taken.add(formats[fmt])
                data = fmt + "\0"
                op.body.block.add_op(llvm.GlobalOp(
                    llvm.LLVMArrayType(len(data.encode()), IntegerType(8)), formats[fmt],
                    "internal", constant=True, value=StringAttr(data)))
            words = list(call.arguments[3 : 3 + len(kinds)])
            slots = _slots(fmt, len(words))
            b: list[Operation] = [fmt_ptr := llvm.AddressOfOp(formats[fmt], PTR)]
            offset, stores = 0, []
            for i, slot in enumerate(slots):
                size = 4 if slot == "i32" else 8
                offset = -(-offset // size) * size
                word = words[i] if i < len(words) else None
                stores.append((offset, _value(b, word, kinds[i] if i < len(words) else "i", slot)))
                offset += size
            if stores:
                count = arith.ConstantOp(IntegerAttr(-(-offset // 8) * 8, i64))
                buf = llvm.AllocaOp(count, IntegerType(8), alignment=8)
                b += [count, buf]
                for at, v in stores:
                    ptr = buf.results[0]
                    if at:
                        gep = llvm.GEPOp(ptr, [at], IntegerType(8))
                        b.append(gep)
                        ptr = gep.results[0]
                    b.append(llvm.StoreOp(v, ptr))
                args: SSAValue = buf.results[0]
            else:
                null = llvm.ZeroOp.build(result_types=[PTR])
                b.append(null)
                args = null.results[0]
            b.append(func.CallOp(VPRINTF, [fmt_ptr.results[0], args], [i32]))
            feeding = [a.owner for a in call.arguments]
            Rewriter.replace_op(call, b, [])
            for c in feeding:  # the id, count and padding constants only the call used
                if isinstance(c, arith.ConstantOp) and not c.result.uses and c.parent:
                    Rewriter.erase_op(c)
        # the records' get_global chains are dead now, then the records and the declaration
        for o in list(op.walk()):
            if isinstance(o, memref.GetGlobalOp) and o.name_.root_reference.data in records:
                _erase_chain(o)
        for o in list(op.ops):
            unused = isinstance(o, memref.GlobalOp) and o.sym_name.data in records
            if unused or (isinstance(o, func.FuncOp) and o.sym_name.data == HOST_PRINTF):
                op.body.block.erase_op(o)
        op.body.block.add_op(func.FuncOp.external(VPRINTF, [PTR, PTR], [i32]))


def _erase_chain(op: Operation) -> None:
    """Erase ``op`` and the users left without uses (index casts of its address)."""
    for r in op.results:
        for use in list(r.uses):
            _erase_chain(use.operation)
    if all(not r.uses for r in op.results):
        Rewriter.erase_op(op)

