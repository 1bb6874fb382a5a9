"""define-check-failed-nvptx: the checking mode's report channel inside the GPU module.

On the CPU, ``lower-kernel-asserts`` and ``insert-bounds-checks`` report a failure by calling
``xmux_check_failed(message, rank, i0, i1, i2, s0, s1, s2, lid0, lid1, lid2, group0, group1,
group2)``, a host callback (``runtime/checks.py``). A GPU kernel cannot call the host, and a
trap would kill the CUDA context; this pass defines the function in the device module:

* ``@__xmux_check_record``, a visible device global of 16 ``i64``: ``[0]`` the number of
  failed checks of the launch, then the first failure's ``[1]`` site, ``[2]`` rank,
  ``[3..5]`` values, ``[6..8]`` sizes, ``[9..11]`` local id and ``[12..14]`` group id;
* ``@__xmux_check_messages``, a visible constant: the sites' messages (the module's
  ``@"xmux.check.N"`` strings, site ``k`` the ``k``-th in module order), each ended by a NUL;
* ``@xmux_check_failed``: finds the site of its message pointer (a compare per site, which
  LLVM folds once the call is inlined), counts the failure with an atomic add, and the work-
  item whose add saw 0 writes the rest of the record.

The runtime (``runtime/cuda.py``) reads the record after a launch of a module that has it,
clears it, and raises the CPU's ``xmux.CheckError`` with the same message. Work-items go on
past a failure, as on the CPU, so the launch ends normally.

Expects: ``xmux_check_failed`` declared by lower-kernel-asserts / insert-bounds-checks (else
the pass does nothing). Guarantees: ``xmux_check_failed`` defined; the two globals exist.

Before::

    llvm.mlir.global internal constant @"xmux.check.0"("kernel @k: assertion failed: ...")
    func.func private @xmux_check_failed(!llvm.ptr, i64, ...)

After::

    llvm.mlir.global external @__xmux_check_record() : !llvm.array<16 x i64> { zero }
    llvm.mlir.global external constant @__xmux_check_messages("kernel @k: ...\\00")
    func.func @xmux_check_failed(%msg: !llvm.ptr, %rank: i64, ...) {
      %s0 = llvm.mlir.addressof @"xmux.check.0" : !llvm.ptr
      %site = arith.select (ptrtoint %msg == ptrtoint %s0), 0, -1
      %old = llvm.atomicrmw add %record, 1 monotonic : !llvm.ptr, i64
      scf.if (%old == 0) { llvm.store %site, record[1] ... }
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, StringAttr, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from xmux.abi import nvptx_abi as abi
from xmux.dialects import llvmx
from xmux.transforms.add_kernel_wrapper import PTR
from xmux.transforms.insert_bounds_checks import CHECK_FN

#: the device globals the runtime reads (runtime/cuda.py)
RECORD, MESSAGES, RECORD_FIELDS = abi.CHECK_RECORD, abi.CHECK_MESSAGES, abi.CHECK_FIELDS
SITE_PREFIX = "xmux.check."


def site_messages(module: ModuleOp) -> list[tuple[str, str]]:
    """(global name, message) of each check site, in module order (= site number)."""
    out = []
    for g in module.ops:
        if (isinstance(g, llvm.GlobalOp) and g.sym_name.data.startswith(SITE_PREFIX)
                and isinstance(g.value, StringAttr)):
            out.append((g.sym_name.data, g.value.data.rstrip("\0")))
    return out


@dataclass(frozen=True)
class DefineCheckFailedNvptx(ModulePass):
    """Define ``xmux_check_failed`` in the GPU module, recording a failure in a device global."""

    name = "define-check-failed-nvptx"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        decl = next((f for f in op.ops if isinstance(f, func.FuncOp)
                     and f.sym_name.data == CHECK_FN), None)
        if decl is None or decl.body.blocks:
            return
        sites = site_messages(op)
        record_t = llvm.LLVMArrayType(RECORD_FIELDS, i64)
        zero_init = Block()
        zero = llvm.ZeroOp.build(result_types=[record_t])
        zero_init.add_ops([zero, llvm.ReturnOp(zero.results[0])])
        op.body.block.add_op(
            llvm.GlobalOp(record_t, RECORD, "external", body=Region(zero_init)))
        text = "".join(m + "\0" for _, m in sites) or "\0"
        op.body.block.add_op(llvm.GlobalOp(
            llvm.LLVMArrayType(len(text.encode()), IntegerType(8)), MESSAGES, "external",
            constant=True, value=StringAttr(text)))

        body = Block(arg_types=[PTR] + [i64] * 13)
        msg, *fields = body.args
        b: list[Operation] = []

        def add(o: Operation) -> SSAValue:
            b.append(o)
            return o.results[0]

        def const(v: int) -> SSAValue:
            return add(arith.ConstantOp(IntegerAttr(v, i64)))

        msg_int = add(llvm.PtrToIntOp(msg, i64))
        site = const(-1)
        for k, (name, _) in enumerate(sites):
            at = add(llvm.PtrToIntOp(add(llvm.AddressOfOp(name, PTR)), i64))
            same = add(arith.CmpiOp(msg_int, at, "eq"))
            site = add(arith.SelectOp(same, const(k), site))
        record = add(llvm.AddressOfOp(RECORD, PTR))
        old = add(llvmx.AtomicRMWOp("add", record, const(1), "monotonic"))
        first = add(arith.CmpiOp(old, const(0), "eq"))
        write = Block()
        for i, v in enumerate([site, *fields], start=1):
            gep = llvm.GEPOp(record, [i], i64)
            write.add_ops([gep, llvm.StoreOp(v, gep.results[0])])
        write.add_op(scf.YieldOp())
        b += [scf.IfOp(first, [], Region(write)), func.ReturnOp()]
        body.add_ops(b)
        decl.body.add_block(body)
        decl.sym_visibility = None
