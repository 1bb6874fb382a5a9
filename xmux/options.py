"""``CompileOptions``: every option of ``xmux.compile``, typed, checked once, frozen.

```python
from xmux.options import CompileOptions
opts = CompileOptions(spec_constants="emulated", vector_width=8)
prog = xmux.compile(src, options=opts)          # as xmux.compile(src, spec_constants=..., ...)
```

A field's metadata says what it is to a target and to the caches (docs/architecture.md,
"Targets"): ``code`` (it changes the compiled code: part of the cache key), ``target`` (only
targets that list it in ``Target.target_options`` read it; on the others it must keep its
default), ``shapes_pipeline`` (an option of the default pipeline: with ``pipeline=`` it must
keep its default), ``env`` (None is replaced by this environment variable's value), and
``choices`` for a string naming one of a few choices. Nothing here imports xDSL: a compile
answered from the disk cache builds its options too.

The inspection options (``print_ir_after``, ``print_ir_stream``, ``pass_callback``,
``timing``) are for debugging: not ``code``, so never in the cache key; a compile with any
of them bypasses the caches (``inspects``) so that the passes really run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol, TextIO, get_args

from xmux.abi.errors import XmuxError  # not xmux.errors: that imports xDSL's
from xmux.runtime import env

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

    from xmux.runtime.jit import TargetDescription

SpecConstantMode = Literal["native", "emulated"]
SpecPadding = Literal["dpcpp", "gaps"]
#: How expand-oacc-reductions runs OpenACC kernels: gangs on the thread pool, or one thread.
OaccExpansion = Literal["cpu", "host"]


class _TargetLike(Protocol):
    """What the options need of a ``xmux.targets.Target``."""

    name: str
    target_options: frozenset[str]

    def attribute(self) -> TargetDescription: ...

    def pipeline(self, options: CompileOptions) -> list[ModulePass]: ...


def _pipeline_key(passes: Sequence[ModulePass]) -> str | None:
    from xmux import pipelines

    return pipelines.fingerprint(passes)


# -- checks: each returns the value as the field holds it, or raises naming the field -------


def _flag(name: str, value: object) -> bool:
    if value not in (True, False):
        raise XmuxError(f"xmux.compile: {name} must be True or False, got {value!r}")
    return bool(value)


def _threads(name: str, value: object) -> int | None:
    from xmux.runtime.launch import check_threads

    return None if value is None else check_threads(value, "xmux.compile")


def _positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise XmuxError(f"xmux.compile: {name} must be a positive integer, got {value!r}")
    return value


def _vector_width(name: str, value: object) -> int:
    from xmux.pipelines import valid_vector_width

    if isinstance(value, bool) or not valid_vector_width(value):
        raise XmuxError(f"xmux.compile: {name} must be 0, 1 or a power of two, got {value!r}")
    return value  # type: ignore[return-value]


def _any(name: str, value: object) -> object:
    return value


def _pass_names(name: str, value: object) -> tuple[str, ...] | bool | None:
    """None (off), True (after every pass) or a tuple of pass names (one name, or several)."""
    if value is None or value is False:
        return None
    if value is True:
        return True
    names = (value,) if isinstance(value, str) else value
    try:
        names = tuple(names)  # type: ignore[arg-type]
    except TypeError:
        names = (value,)
    if not all(isinstance(n, str) and n for n in names):
        raise XmuxError(f"xmux.compile: {name} must be a pass name, a list of pass names or "
                        f"True, got {value!r}")
    return names or None


def _callable(name: str, value: object) -> object:
    if value is not None and not callable(value):
        raise XmuxError(f"xmux.compile: {name} must be a callable (pass, module), got {value!r}")
    return value


def _stream(name: str, value: object) -> object:
    if value is not None and not callable(getattr(value, "write", None)):
        raise XmuxError(f"xmux.compile: {name} must be a text stream (with write), got "
                        f"{value!r}")
    return value


def _option(
    default: object,
    doc: str,
    *,
    check: Callable[[str, Any], object] = _any,
    choices: tuple[object, ...] | None = None,
    code: bool = False,
    target: bool = False,
    shapes_pipeline: bool = False,
    env_var: tuple[str, bool] | None = None,
    key: Callable[[Any], str | None] = repr,
) -> Any:
    return field(default=default, metadata={
        "doc": doc, "check": check, "choices": choices, "code": code, "target": target,
        "shapes_pipeline": shapes_pipeline, "env": env_var, "key": key,
    })


@dataclass(frozen=True)
class CompileOptions:
    """The options of one compile (each field's ``doc`` metadata says what it does)."""

    pipeline: tuple[ModulePass, ...] | None = _option(
        None, "the pass pipeline in place of the target's default (a pass list, or the text "
        "xmux-opt -p takes); it must end in the llvm dialect", code=True, key=_pipeline_key)
    threads: int | None = _option(
        None, "default worker threads of the program's launches (default: the cores)",
        check=_threads, target=True)
    cache: bool | None = _option(
        None, "keep compiled code in memory and on disk (XMUX_CACHE_DIR)", check=_flag,
        env_var=("XMUX_CACHE", True))
    spec_constants: SpecConstantMode = _option(
        "native", "specialization constants: JIT-specialized per value set, or a runtime "
        "buffer", choices=get_args(SpecConstantMode), code=True)
    spec_padding: SpecPadding = _option(
        "dpcpp", "the specialization constants' property sets: sycl-post-link's form, or a "
        "padding descriptor per gap", choices=get_args(SpecPadding), code=True,
        shapes_pipeline=True)
    specialize: bool | None = _option(
        None, "rebuild a kernel launched repeatedly with one local size for that size",
        check=_flag, env_var=("XMUX_SPECIALIZE", True))
    tune: bool | None = _option(
        None, "time 512- against 256-bit builds of a local-size variant, keep the faster",
        check=_flag, env_var=("XMUX_TUNE", True))
    sub_group_size: int = _option(
        1, "emulated sub-group size of kernels without mux.reqd_sub_group_size",
        check=_positive, code=True, target=True, shapes_pipeline=True)
    vector_width: int = _option(
        0, "work-item-loops' vector width W (0 or 1: off; else a power of two)",
        check=_vector_width, code=True, target=True, shapes_pipeline=True)
    force_no_tail: bool = _option(
        False, "no scalar tail after the vector work-item loop (local sizes must then be "
        "multiples of vector_width)", check=_flag, code=True, target=True,
        shapes_pipeline=True)
    oacc_expansion: OaccExpansion = _option(
        "cpu", "expansion of OpenACC kernels (expand-oacc-reductions): gangs on the thread "
        "pool (cpu) or one thread (host)", choices=get_args(OaccExpansion), code=True,
        target=True, shapes_pipeline=True)
    checks: bool | None = _option(
        None, "the checking mode: bounds and division checks, the storage plan check",
        check=_flag, code=True, env_var=("XMUX_CHECKS", False))
    check_plan: bool | None = _option(
        None, "work-item-loops' storage plan check (default: checks, or XMUX_CHECK_PLAN=1)",
        check=_flag, code=True)
    # -- inspection (debugging): the code and the cache key are the same with them ------------
    print_ir_after: tuple[str, ...] | bool | None = _option(
        None, "print the IR after the passes of these names (a name, a list, or True: every "
        "pass) in mlir-opt's '// -----// IR Dump After <pass> //----- //' form",
        check=_pass_names)
    print_ir_stream: TextIO | None = _option(
        None, "where print_ir_after prints (default: sys.stderr)", check=_stream)
    pass_callback: Callable[[ModulePass, ModuleOp], object] | None = _option(
        None, "called as pass_callback(pass, module) after each pass", check=_callable)
    timing: bool = _option(
        False, "time each pass: the program's pass_timings (stages.PassTimings)", check=_flag)

    debug: bool = _option(
        False, "DWARF debug info from the MLIR source's locations (gdb: break at a .mlir "
        "line, print arguments and values); local-size variants are then not built",
        check=_flag, code=True)

    def __post_init__(self) -> None:
        set_ = object.__setattr__  # frozen: the resolved values are set once, here
        if isinstance(self.pipeline, str):
            from xmux import pipelines

            set_(self, "pipeline", tuple(pipelines.parse(self.pipeline)))
        elif self.pipeline is not None:
            set_(self, "pipeline", tuple(self.pipeline))
        for f in fields(self):
            if f.metadata["env"] is not None and getattr(self, f.name) is None:
                set_(self, f.name, env.flag(*f.metadata["env"]))
        if self.debug is True:  # a local-size variant would be rebuilt without debug info
            set_(self, "specialize", False)
        if self.check_plan is None:
            set_(self, "check_plan", bool(self.checks) or env.flag("XMUX_CHECK_PLAN", False))
        for f in fields(self):
            value = getattr(self, f.name)
            choices = f.metadata["choices"]
            if choices is not None and value not in choices:
                raise XmuxError(f"xmux.compile: {f.name} must be one of {choices!r}, got "
                                f"{value!r}")
            set_(self, f.name, f.metadata["check"](f.name, value))
            if self.pipeline is not None and f.metadata["shapes_pipeline"] and (
                    getattr(self, f.name) != f.default):
                raise XmuxError(
                    f"xmux.compile: {f.name} applies to the default pipeline (the options "
                    "that build it apply to the default pipeline only); with pipeline= use "
                    f"xmux.pipelines.cpu({f.name}=...)"
                )

    @classmethod
    def of(cls, oacc_target: str | None = None, **options: object) -> CompileOptions:
        """The options of ``xmux.compile``'s keywords; ``oacc_target`` is the former name of
        ``oacc_expansion`` (still accepted)."""
        if oacc_target is not None:
            allowed = get_args(OaccExpansion)
            if oacc_target not in allowed:
                raise XmuxError(f"xmux.compile: oacc_target must be one of {allowed!r}, got "
                                f"{oacc_target!r} (the former name of oacc_expansion)")
            given = options.get("oacc_expansion")
            if given is not None and given != oacc_target:
                raise XmuxError("xmux.compile: oacc_target is the former name of "
                                "oacc_expansion: give one of them")
            options["oacc_expansion"] = oacc_target
        if options.get("oacc_expansion") is None:
            options.pop("oacc_expansion", None)
        return cls(**options)  # type: ignore[arg-type]

    def replace(self, **changes: object) -> CompileOptions:
        """A copy with ``changes``, checked again."""
        return replace(self, **changes)  # type: ignore[arg-type]

    @property
    def inspects(self) -> bool:
        """Whether an inspection option is on: then the passes must run, so the compile
        neither reads nor writes the caches (a callback may even change the module)."""
        return bool(self.print_ir_after or self.pass_callback is not None or self.timing)

    # -- what a target does with them -------------------------------------------------------

    def check_target(self, target: _TargetLike) -> None:
        """Target-specific options that ``target`` does not read must keep their defaults."""
        for f in fields(self):
            if (f.metadata["target"] and f.name not in target.target_options
                    and getattr(self, f.name) != f.default):
                raise XmuxError(
                    f"xmux.compile: {f.name} applies to the cpu target, not {target.name}")

    def key(self, target: _TargetLike) -> str | None:
        """The options' part of a cache key: every field that changes the code and that
        ``target`` reads, in declaration order, as ``name=value``; None when one cannot be
        keyed (a pass whose source cannot be read): nothing may be cached then."""
        parts = []
        for f in fields(self):
            if not f.metadata["code"] or (
                    f.metadata["target"] and f.name not in target.target_options):
                continue
            value = getattr(self, f.name)
            text = f.metadata["key"](value) if value is not None else "None"
            if text is None:
                return None
            parts.append(f"{f.name}={text}")
        return ",".join(parts)

    def passes(self, target: _TargetLike) -> list[ModulePass]:
        """The pass list for ``target``: ``pipeline`` or the target's default, with the
        target attached and the kernels' ABI recorded (``pipelines.complete``)."""
        from xmux import pipelines

        chosen = list(self.pipeline) if self.pipeline is not None else target.pipeline(self)
        return pipelines.complete(chosen, target.attribute())
