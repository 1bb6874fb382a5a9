"""The OpenACC kernels ``expand-oacc-reductions`` works on (``func.func`` with ``oacc.dims``),
the ``oacc`` builtins each one holds, and how errors name a builtin."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

from xmux.abi.errors import XmuxError
from xmux.dialects import attrs, oacc
from xmux.dialects.oacc import Level

_BUILTINS = (
    oacc.ReductionBuiltinOp,
    oacc.LockOp,
    oacc.UnlockOp,
    oacc.ForkOp,
    oacc.JoinOp,
    oacc.DimPosOp,
    oacc.DimSizeOp,
)


def _is_oacc(op: Operation) -> bool:
    return isinstance(op, _BUILTINS)


def error(where: str, message: str) -> XmuxError:
    return XmuxError(f"expand-oacc-reductions: {where}: {message}")


@dataclass
class Kernel:
    """An OpenACC kernel: its function, ``oacc.dims`` and ``oacc.level_dims``."""

    fn: func.FuncOp
    dims: tuple[int, int, int]
    level_dims: tuple[int, int, int]

    @property
    def name(self) -> str:
        return self.fn.sym_name.data

    def size(self, level: Level) -> int | None:
        d = self.dims[list(Level).index(level)]
        return None if d == attrs.DYNAMIC_DIM else d


def level_index(level: Level) -> int:
    return list(Level).index(level)


def op_where(k: Kernel | None, op: Operation) -> str:
    desc = f"'{op.name}'"
    if isinstance(op, oacc.ReductionBuiltinOp):
        desc += f" (lid {op.lid_value}, rid {op.rid_value})"
    elif isinstance(op, oacc.LockOp | oacc.UnlockOp):
        desc += f" (lid {op.lid_value})"
    return f"{desc} in @{k.name}" if k is not None else desc


def collect_kernels(module: ModuleOp) -> tuple[list[Kernel], dict[Operation, Kernel]]:
    kernels: list[Kernel] = []
    owner: dict[Operation, Kernel] = {}
    for fn in module.walk():
        if not isinstance(fn, func.FuncOp):
            continue
        dims = attrs.get_oacc_dims(fn)
        ops = [o for o in fn.walk() if _is_oacc(o)]
        if dims is None:
            if ops:
                raise error(
                    f"'{ops[0].name}' in @{fn.sym_name.data}",
                    "oacc builtins are only valid inside an OpenACC kernel (a func.func with "
                    "oacc.dims, as convert-acc-to-oacc outlines acc.parallel)",
                )
            continue
        k = Kernel(fn, dims, attrs.get_oacc_level_dims(fn))
        kernels.append(k)
        for o in ops:
            owner[o] = k
            if isinstance(o, oacc.ReductionBuiltinOp):
                try:
                    oacc.check_reduction_type(o.kind_value, o.local.type, op_where(k, o))
                except VerifyException as e:
                    raise error("unsupported reduction", str(e)) from None
    return kernels, owner
