"""What the ``convert-acc-to-oacc`` modules share: the pass's errors, the groups of data-clause
ops, OpenACC variable names and an index-arithmetic builder."""

from __future__ import annotations

from xdsl.dialects import acc, arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import NotSupportedError, XmuxError

PASS = "convert-acc-to-oacc"


#: Data-entry ops whose result is the host object itself on the CPU (shared memory).
IDENTITY_ENTRY = (
    acc.CopyinOp,
    acc.CreateOp,
    acc.PresentOp,
    acc.NoCreateOp,
    acc.AttachOp,
    acc.DevicePtrOp,
    acc.GetDevicePtrOp,
    acc.ReductionOp,
    # host_data's use_device: the device address is the host one; cache: a hint (OpenACC
    # 3.3 2.10); declared and first-private-mapped variables are present like copyin's
    acc.UseDeviceOp,
    acc.CacheOp,
    acc.DeclareDeviceResidentOp,
    acc.DeclareLinkOp,
    acc.FirstprivateMapOp,
)
#: Host-side ops that only move data between host and device: nothing to do on the CPU.
DATA_ONLY = (
    acc.CopyoutOp,
    acc.DeleteOp,
    acc.DetachOp,
    acc.UpdateHostOp,
    acc.UpdateDeviceOp,
    acc.EnterDataOp,
    acc.ExitDataOp,
    acc.UpdateOp,
    acc.WaitOp,
    acc.DeclareEnterOp,
    acc.DeclareExitOp,
)
#: Host constructs whose region runs once where they stand, their clauses being data-only.
INLINED_REGION = (acc.DataOp, acc.HostDataOp, acc.DeclareOp, acc.KernelEnvironmentOp)


def err(msg: str) -> XmuxError:
    return XmuxError(f"{PASS}: {msg}")


def unsupported(what: str) -> NotSupportedError:
    return NotSupportedError(f"{PASS}: {what} is not supported by this pipeline yet")


def var_name(v: SSAValue) -> str:
    """The user's name of an OpenACC variable: the data op's ``name``, else its SSA name."""
    seen = 0
    while seen < 8 and isinstance(v.owner, acc._DataEntryOperation):
        if v.owner.var_name is not None:
            return v.owner.var_name.data
        v = v.owner.var
        seen += 1
    return f"%{v.name_hint}" if v.name_hint else "<unnamed>"


def const_int(v: SSAValue) -> int | None:
    if isinstance(v.owner, arith.ConstantOp) and isinstance(v.owner.value, IntegerAttr):
        return v.owner.value.value.data
    return None


class Builder:
    """Inserts ops at a fixed insertion point and returns their (single) results."""

    def __init__(self, ip: InsertPoint) -> None:
        self.ip = ip
        self._consts: dict[int, SSAValue] = {}
        self._casts: dict[SSAValue, SSAValue] = {}

    def op(self, o: Operation) -> Operation:
        Rewriter.insert_op(o, self.ip)
        return o

    def v(self, o: Operation) -> SSAValue:
        return self.op(o).results[0]

    def const(self, n: int) -> SSAValue:
        if n not in self._consts:
            self._consts[n] = self.v(arith.ConstantOp(IntegerAttr(n, IndexType())))
        return self._consts[n]

    def index(self, v: SSAValue) -> SSAValue:
        if isinstance(v.type, IndexType):
            return v
        c = const_int(v)
        if c is not None:
            return self.const(c)
        if v not in self._casts:
            self._casts[v] = self.v(arith.IndexCastOp(v, IndexType()))
        return self._casts[v]

    def cast(self, v: SSAValue, t: Attribute) -> SSAValue:
        return v if v.type == t else self.v(arith.IndexCastOp(v, t))

    # index arithmetic, folded where an operand is a constant (keeps the IR readable)
    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = const_int(a), const_int(b)
        if ca is not None and cb is not None:
            return self.const(ca + cb)
        if ca == 0:
            return b
        if cb == 0:
            return a
        return self.v(arith.AddiOp(a, b))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = const_int(a), const_int(b)
        if ca is not None and cb is not None:
            return self.const(ca - cb)
        if cb == 0:
            return a
        return self.v(arith.SubiOp(a, b))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = const_int(a), const_int(b)
        if ca is not None and cb is not None:
            return self.const(ca * cb)
        if ca == 1:
            return b
        if cb == 1:
            return a
        return self.v(arith.MuliOp(a, b))

    def ceildiv_pos(self, n: SSAValue, d: SSAValue) -> SSAValue:
        """max(0, ceil(n / d)) for d > 0."""
        cn, cd = const_int(n), const_int(d)
        if cn is not None and cd is not None:
            return self.const(max(0, -(-cn // cd)))
        t = n if cd == 1 else self.v(arith.DivSIOp(self.add(n, self.sub(d, self.const(1))), d))
        if cn is not None:
            return t
        c0 = self.const(0)
        return self.v(arith.SelectOp(self.v(arith.CmpiOp(n, c0, "sgt")), t, c0))
