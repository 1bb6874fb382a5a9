"""A prepared program for the reference interpreter: its implementations, kernel launches
(``run_kernel``: arguments validated exactly as ``Kernel.__call__`` validates them,
``runtime/launch.py``) and the host ops of a host ``@main`` (``run_main``).

The module reaches here already through the front-end passes, parsed and with its kernel
metadata: ``xmux/interpret.py`` (``xmux.interpret``, ``xmux-run --interpret``) does that
with the compile API, which sits above the runtime.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import InterpreterFunctions, impl, impl_external, register_impls

from xmux.abi.errors import LaunchError, XmuxError
from xmux.abi.kernel_layout import KernelInfo
from xmux.dialects import attrs, mux
from xmux.runtime import launch as _launch
from xmux.runtime import runner_utils
from xmux.runtime.interpreter import arith, control, llvm_ops, math, memory, misc
from xmux.runtime.interpreter import mux as mux_impls
from xmux.runtime.interpreter.core import Shared, XInterpreter, _Impls
from xmux.runtime.interpreter.values import from_python
from xmux.runtime.interpreter.workgroup import Launch


def make_impls() -> _Impls:
    impls = _Impls()
    for ft in (
        control.ControlFunctions(),
        arith.ArithFunctions(),
        math.MathFunctions(),
        memory.MemrefFunctions(),
        mux_impls.MuxFunctions(),
        misc.MiscFunctions(),
        llvm_ops.LlvmFunctions(),
        HostFunctions(),
    ):
        impls.register_from(ft, override=True)
    return impls


def _reachable(module: ModuleOp, kernel: func.FuncOp) -> list[func.FuncOp]:
    funcs = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
    seen: dict[str, func.FuncOp] = {}
    todo = [kernel]
    while todo:
        f = todo.pop()
        if f.sym_name.data in seen:
            continue
        seen[f.sym_name.data] = f
        for op in f.walk():
            if isinstance(op, func.CallOp):
                callee = funcs.get(op.callee.string_value())
                if callee is not None:
                    todo.append(callee)
    return list(seen.values())


def meets_at_barriers(module: ModuleOp, kernel: func.FuncOp, sub_group_size: int) -> bool:
    """Whether a group can meet at a barrier (its work-items then run as coroutines): a
    work-group barrier-like op, or a sub-group one with sub-groups of more than one
    work-item, reachable from the kernel."""
    for f in _reachable(module, kernel):
        for op in f.walk():
            if mux.is_work_group_barrier_like(op):
                return True
            if sub_group_size > 1 and mux.is_barrier_like(op):
                return True
    return False


def sub_group_size_of(kernel: func.FuncOp, option: int | None) -> int:
    """The kernel's ``mux.reqd_sub_group_size``, else the option, else 1 (as
    lower-sub-group-collectives decides)."""
    name = kernel.sym_name.data
    if option is not None and (
        isinstance(option, bool) or not isinstance(option, int) or option < 1
    ):
        raise XmuxError(f"xmux.interpret: sub_group_size must be a positive integer, got "
                        f"{option!r}")
    reqd = attrs.get_reqd_sub_group_size(kernel)
    if reqd is not None:
        if option not in (None, 1) and option != reqd:
            raise XmuxError(
                f"kernel '{name}' requires sub-group size {reqd} but sub_group_size={option} "
                "was given"
            )
        return reqd
    return option or 1


def reset_caches() -> None:
    """Drop the per-op caches of earlier runs (they hold ops, hence whole modules, alive)."""
    from xmux.runtime.interpreter import workgroup

    for cache_dict in (arith._WIDTH, arith._IN_W, arith._OUT_W, workgroup._LABELS):
        cache_dict.clear()


class Runner:
    """A prepared module: implementations, shared state, kernel metadata."""

    def __init__(self, module: ModuleOp, infos: Sequence[KernelInfo], *,
                 sub_group_size: int | None = None, spec_constants: dict | None = None,
                 races: bool = False) -> None:
        reset_caches()
        self.module = module
        self.option = sub_group_size
        self.shared = Shared(make_impls(), module, races=races,
                             spec_constants=dict(spec_constants or {}))
        self.kernels = {f.sym_name.data: f for f in attrs.entry_points(module)}
        self.infos = {i.name: i for i in infos}
        self._barriers: dict[tuple[str, int], bool] = {}
        self._check_spec(spec_constants)

    def _check_spec(self, values: dict | None) -> None:
        if not values:
            return
        from xmux.dialects import spec

        known = {op.symbolic_id.data for op in self.module.walk()
                 if isinstance(op, spec.GetScalarOp | spec.GetCompositeOp)}
        for sym in values:
            if sym not in known:
                raise XmuxError(
                    f"unknown specialization constant '{sym}' (the module reads: "
                    f"{', '.join(sorted(known)) or 'none'})"
                )

    def kernel(self, name: str) -> func.FuncOp:
        f = self.kernels.get(name)
        if f is None:
            known = ", ".join(self.kernels) or "none"
            raise XmuxError(f"no kernel named '{name}' in this program (kernels: {known})")
        return f

    def launch(self, name: str, args: Sequence[Any], nd: _launch.NDRange,
               local_shapes: dict[int, list[int]]) -> None:
        f = self.kernel(name)
        sg = sub_group_size_of(f, self.option)
        block_args = f.body.blocks[0].args
        local_args = {
            i: (block_args[i].type, shape, f"local memory argument {i} "
                f"('{self.infos[name].args[i].name}')")
            for i, shape in local_shapes.items()
        }
        Launch(
            self.module, f, self.shared, list(args), local_args, work_dim=nd.work_dim,
            global_size=nd.global_size, local_size=nd.local_size,  # type: ignore[arg-type]
            global_offset=nd.global_offset,  # type: ignore[arg-type]
            sub_group_size=sg, races=self.shared.races,
            meets_at_barriers=self._meets(f, sg),
        ).run()

    def _meets(self, f: func.FuncOp, sub_group_size: int) -> bool:
        key = (f.sym_name.data, sub_group_size)
        if key not in self._barriers:
            self._barriers[key] = meets_at_barriers(self.module, f, sub_group_size)
        return self._barriers[key]

    def ndrange(self, name: str, global_size, local_size, global_offset) -> _launch.NDRange:
        info = self.infos[name]
        _launch.check_scalar_global_size(info, global_size)
        return _launch.NDRange(
            name, global_size, local_size, global_offset, info.reqd_work_group_size,
            info.max_work_dim, max_work_group_size=info.max_work_group_size,
        )


def run_kernel(runner: Runner, kernel: str, args: Sequence[object], global_size,
               local_size=None, global_offset=None) -> None:
    """One launch of ``kernel`` with arguments as ``Kernel.__call__`` takes them (see
    ``xmux.interpret``)."""
    f = runner.kernel(kernel)
    info = runner.infos[kernel]
    nd = runner.ndrange(kernel, global_size, local_size, global_offset)  # first, as compiled
    if len(args) != len(info.args):
        names = ", ".join(a.name for a in info.args)
        raise LaunchError(f"kernel '{kernel}' takes {len(info.args)} arguments ({names}), "
                          f"got {len(args)}")
    values: list[Any] = []
    local_shapes: dict[int, list[int]] = {}
    for i, (ai, value, block_arg) in enumerate(zip(info.args, args, f.body.blocks[0].args,
                                                   strict=True)):
        t = block_arg.type
        if ai.kind == "memref":
            arr = _launch._check_array(kernel, i, ai, value)
            values.append(memory.from_array(arr, f"argument {i} ('{ai.name}')", t.element_type))
        elif ai.kind == "local":
            local_shapes[i] = _launch._local_shape(kernel, i, ai, value)
            values.append(None)
        else:
            _launch._check_scalar(kernel, i, ai, value)
            values.append(from_python(bool(value) if ai.dtype == "bool" else value, t))
    local_bytes = sum(int(np.prod(s)) * np.dtype(info.args[i].dtype).itemsize
                      for i, s in local_shapes.items())
    if local_bytes > _launch.LOCAL_MEMORY_LIMIT:
        raise LaunchError(
            f"kernel '{kernel}': local memory arguments take {local_bytes} bytes per "
            f"work-group, more than the {_launch.LOCAL_MEMORY_LIMIT} bytes available"
        )
    runner.launch(kernel, values, nd, local_shapes)


# -- host programs (xmux-run --interpret) ---------------------------------------------------

_PRINT_DTYPES = {
    "printMemrefF32": np.float32, "printMemrefF64": np.float64,
    "printMemrefI32": np.int32, "printMemrefI64": np.int64,
}


@cache
def _formats() -> dict[str, Any]:
    return {name: fmt for name, (_, fmt) in runner_utils._ELEMENTS.items()}


def _print_memref(name: str, m: memory.MemRef) -> None:
    dtype = np.dtype(_PRINT_DTYPES[name])
    data = m.alloc.view(dtype, m.base) if m.alloc.raw.size else []
    fmt = _formats()[name]
    base = m.alloc.raw.ctypes.data + m.base if m.alloc.raw.size else 0
    text = runner_utils.format_memref(
        data, base, m.offset, list(m.shape), list(m.strides),
        (lambda v: fmt(float(v))) if dtype.kind == "f" else (lambda v: fmt(int(v))),
    )
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


class HostFunctions(InterpreterFunctions):
    """Host-side ops: ``mux.launch`` and the runner-utils printers."""

    @impl(mux.LaunchOp)
    def run_launch(self, interp, op: mux.LaunchOp, args):
        runner: Runner = interp.runner
        name = op.kernel.string_value()
        n_args, n = len(op.args), len(op.global_size)
        kargs = list(args[:n_args])
        g = args[n_args : n_args + n]
        loc = args[n_args + n : n_args + 2 * n]
        off = args[n_args + 2 * n :] or None
        f = runner.kernel(name)
        nd = runner.ndrange(name, g, loc, off)
        local_shapes = {}
        for i, (a, barg) in enumerate(zip(kargs, f.body.blocks[0].args, strict=True)):
            if memory.memory_space(barg.type) == memory.LOCAL_SPACE:
                local_shapes[i] = list(a.shape)
        runner.launch(name, kargs, nd, local_shapes)
        return ()

    @impl_external("printMemrefF32")
    def print_f32(self, interp, op, args):
        _print_memref("printMemrefF32", args[0])
        return ()

    @impl_external("printMemrefF64")
    def print_f64(self, interp, op, args):
        _print_memref("printMemrefF64", args[0])
        return ()

    @impl_external("printMemrefI32")
    def print_i32(self, interp, op, args):
        _print_memref("printMemrefI32", args[0])
        return ()

    @impl_external("printMemrefI64")
    def print_i64(self, interp, op, args):
        _print_memref("printMemrefI64", args[0])
        return ()

    @impl_external("xmux_gpu_printf")
    def gpu_printf(self, interp, op, args):  # gpu.printf / vector.print (convert-gpu-to-mux)
        from xmux.runtime import gpu_printf

        gpu_printf.print_call(*(int(a) for a in args))
        return ()


register_impls(HostFunctions)


def run_main(runner: Runner, main: func.FuncOp) -> None:
    """Interpret the host function ``main`` of ``runner``'s module; kernel launches run in
    the interpreter."""
    host = XInterpreter(runner.module, shared=runner.shared)
    host._impls = runner.shared.impls
    host.runner = runner  # type: ignore[attr-defined]
    with np.errstate(all="ignore"):
        host.call_function(main, ())
