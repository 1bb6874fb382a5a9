"""Named pass pipelines. ``cpu()`` returns the pass list so users can splice in their own passes.

```python
from xmux import pipelines
passes = pipelines.cpu()
passes.insert(pipelines.index_of(passes, "define-mux-builtins"), MyPass())
prog = xmux.compile(src, pipeline=passes)
```
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xmux.abi.errors import user_errors
from xmux.runtime import env

if TYPE_CHECKING:  # xDSL is imported when a pipeline is built, not by xmux.compile's cache hit
    from xdsl.passes import ModulePass

#: The kernel pipeline (docs/architecture.md "The kernel pipeline, stage by stage").
KERNEL_STAGES: tuple[str, ...] = (
    "lower-affine-upstream",  # affine -> scf / arith / memref as upstream's --lower-affine
    "lower-vector-contract",  # 1-D vector.contract (dot products) -> arith + vector.reduction
    "lower-vector-transfers",  # vector.transfer_*, splat, step, outerproduct -> 1-D vector ops
    "lower-scf-forall",  # scf.forall -> scf.for nests (no-op without)
    "gpu-launch-outlining",  # upstream gpu.launch -> gpu.func + gpu.launch_func (no-op without)
    "convert-gpu-to-mux",  # upstream gpu kernels / launches -> mux (no-op without gpu ops)
    "lower-subgroup-mma",  # gpu.subgroup_mma_* -> lane vectors + local scratch (no-op without)
    "convert-acc-to-oacc",  # OpenACC acc.parallel -> kernels + launches (no-op without acc)
    "lower-generic-atomic-rmw",  # memref.generic_atomic_rmw -> cmpxchg loop (no-op without)
    "transfer-kernel-metadata",
    "record-kernel-abi",  # the kernels' arguments, while their signatures are the user's
    "lower-spec-constants",  # markers -> spec.constant trees (native) or buffer loads (emulated)
    "expand-oacc-reductions",  # OpenACC builtins (convert-acc-to-oacc) -> SIMT code; host launches
    "convert-mux-launch",  # host code first, so kernel passes see no host mux ops
    "lower-scf-parallel",  # scf.parallel -> scf.for nests (a barrier inside is in loops)
    "prepare-barriers",  # inline callees that reach barriers, unique barrier ids
    "lower-kernel-asserts",  # a failed cf.assert in a kernel raises in Python (no abort)
    "lower-sub-group-collectives",
    "lower-work-group-collectives",  # before the barrier passes: collectives become barriers
    "vectorize-local-reduction-trees",  # local-memory trees with static rounds: one vector step
    "work-item-loops",
    "hoist-uniform-loads",  # loads every work-item makes alike: once per loop nest
    "work-item-loop-interchange",
    "work-item-unroll-and-jam",  # R work-items of an outer dimension at once (coarsening)
    "work-item-loop-vectorize-hints",  # short work-item loops: vectorized, not unrolled
    "replace-local-module-scope-variables",
    "define-mux-builtins",
    "privatize-global-atomics",  # a kernel variant on slice-local copies (add-entry-hook)
    "add-kernel-wrapper",
    "add-entry-hook",
)
#: Host code (xmux-run's @main) and the final lowering.
LOWERING_STAGES: tuple[str, ...] = (
    "convert-spec-to-llvm",
    "convert-complex-to-standard",  # complex.exp, div, abs... -> arith + math on the parts
    "expand-math",  # GPU targets (no libm): exp, sin, powf... as arith; CPU: math.ipowi only
    "convert-to-llvm",
)

#: The NVPTX target's kernel pipeline (docs/architecture.md "The NVPTX target"): the
#: hardware runs the work-items, so no work-item loops; shared passes as in KERNEL_STAGES.
NVPTX_KERNEL_STAGES: tuple[str, ...] = (
    "lower-affine-upstream",
    "lower-vector-contract",
    "lower-vector-transfers",
    "lower-scf-forall",
    "gpu-launch-outlining",
    "convert-gpu-to-mux",
    "lower-subgroup-mma-nvptx",  # gpu.subgroup_mma_* -> WMMA intrinsics (no-op without)
    "convert-acc-to-oacc",
    "lower-generic-atomic-rmw",
    "transfer-kernel-metadata",
    "record-kernel-abi",
    "lower-spec-constants",
    "expand-oacc-reductions",
    "drop-host-code",  # the Python runtime is the host: kernels and their callees only
    "lower-gpu-printf-nvptx",  # convert-gpu-to-mux's host printer calls -> CUDA's vprintf
    "lower-kernel-asserts",  # reported through xmux_check_failed, as on the CPU
    "define-check-failed-nvptx",  # ... defined in the device module (no host callback)
    "lower-work-group-collectives-nvptx",  # warp trees + shared memory + bar.sync / bar.red
    "lower-sub-group-collectives-nvptx",  # shfl.sync / vote.sync over a warp's live lanes
    "define-mux-builtins-nvptx",
    "add-kernel-wrapper-nvptx",
    "narrow-indices-nvptx",  # 32-bit address twins of entries (picked per launch)
)
#: Targets of xmux.compile
TARGETS = ("cpu", "nvptx")

#: Modes of lower-spec-constants: "native" (the JIT specializes) or "emulated" (a buffer).
SPEC_CONSTANT_MODES = ("native", "emulated")
#: Expansions of OpenACC kernels on a CPU (expand-oacc-reductions): "cpu" (gangs on the
#: thread pool) or "host" (one thread). ``OACC_TARGETS`` is their former name.
OACC_EXPANSIONS = OACC_TARGETS = ("cpu", "host")


@user_errors
def make_pass(name: str, **options: object) -> ModulePass:
    """The pass ``name`` (xmux's, xDSL's or an ``xdsl.universe`` plugin's) with ``options``;
    an unknown name is an ``XmuxError`` suggesting the closest known one."""
    from xmux.registry import pass_class

    return pass_class(name)(**options)


def valid_vector_width(w: object) -> bool:
    """0 or 1 (off) or a power of two (LLVM's loop vectorizer takes only those)."""
    return isinstance(w, int) and w >= 0 and (w <= 1 or w & (w - 1) == 0)


def valid_unroll_jam(r: object) -> bool:
    """0 (cost model), 1 (off) or a factor 2..16 of work-item-unroll-and-jam."""
    return isinstance(r, int) and not isinstance(r, bool) and 0 <= r <= 16


def attach(target: object) -> ModulePass:
    """``attach-target`` of ``target``: a ``#xmux.target`` attribute or a
    ``runtime.jit.TargetDescription`` (its parameters, without xDSL)."""
    import dataclasses

    from xmux.dialects.target import TargetAttr
    from xmux.transforms.attach_target import AttachTarget

    if isinstance(target, TargetAttr):
        return AttachTarget.of(target)
    if dataclasses.is_dataclass(target) and not isinstance(target, type):
        return AttachTarget(**dataclasses.asdict(target))
    raise TypeError(
        f"target must be a #xmux.target attribute or a TargetDescription, got {target!r}"
    )


def complete(passes: Sequence[ModulePass], target: object) -> list[ModulePass]:
    """``passes`` as ``xmux.compile`` runs them: ``attach-target`` of ``target`` first unless
    they attach one, and ``record-kernel-abi`` after it unless they record the kernels' ABI
    (a user pipeline of passes of its own: kernels marked in the source are recorded before
    any pass rewrites their signatures)."""
    from xmux.transforms.attach_target import AttachTarget
    from xmux.transforms.record_kernel_abi import RecordKernelAbi

    out = list(passes)
    if not any(isinstance(p, AttachTarget) for p in out):
        out.insert(0, attach(target))
    if not any(isinstance(p, RecordKernelAbi) for p in out):
        first = next(i for i, p in enumerate(out) if isinstance(p, AttachTarget))
        out.insert(first + 1, RecordKernelAbi())
    return out


def cpu(
    *,
    target: object = None,
    fp_control: bool = False,
    spec_constants: str = "native",
    sub_group_size: int = 1,
    vector_width: int = 0,
    force_no_tail: bool = False,
    unroll_jam: int = 0,
    oacc_expansion: str = "cpu",
    check_plan: bool | None = None,
    checks: bool | None = None,
    declare_spec_leaves: bool | None = None,
    spec_padding: str = "dpcpp",
    oacc_target: str | None = None,
) -> list[ModulePass]:
    """The default CPU pipeline: ``attach-target``, kernel passes, then lowering to the llvm
    dialect.

    ``target`` is what the passes compile for: a ``#xmux.target`` attribute or a
    ``runtime.jit.TargetDescription``; default: the JIT's (this host, or ``XMUX_CPU``'s model).

    ``spec_constants`` is the mode of lower-spec-constants: ``"native"`` (values reach the
    JIT as literals; re-specialized per value set) or ``"emulated"`` (a runtime buffer).
    ``declare_spec_leaves`` (default: on in native mode) is convert-spec-to-llvm's
    ``declare-leaves``: the leaf globals are declarations whose values ``xmux.compile``'s
    runtime links in per value set; off, they are defined with their defaults (a module that
    runs as it is, what xmux-run needs). ``spec_padding`` is lower-spec-constants' descriptor
    form: ``"dpcpp"`` (sycl-post-link's property sets) or ``"gaps"`` (a padding descriptor per
    gap, in both modes).
    ``sub_group_size`` is the emulated sub-group size of kernels without
    ``mux.reqd_sub_group_size`` (lower-sub-group-collectives' ``sub-group-size``); upstream
    gpu kernels using subgroups get it when above 1, else 32 (convert-gpu-to-mux).
    ``vector_width`` W > 1 makes work-item-loops run the innermost work-item dimension W
    work-items at a time plus a scalar tail; ``force_no_tail`` drops the tail (launches must
    then use local sizes that are multiples of W in that dimension).
    ``unroll_jam`` is work-item-unroll-and-jam's ``factor``: 0 (default) lets its cost model
    pick how many work-items of an outer dimension run together, 1 turns it off, R >= 2 jams
    R wherever it applies.
    ``oacc_expansion`` is expand-oacc-reductions' expansion: ``"cpu"`` (gangs run as
    work-groups on the thread pool) or ``"host"`` (every OpenACC kernel runs as one thread);
    ``oacc_target`` is its former name.
    ``checks`` is the checking mode (default: ``XMUX_CHECKS=1``): insert-bounds-checks after
    prepare-barriers (bounds and division checks reported at run time), work-item-loops'
    ``check-barriers`` (work-items that disagree on the control of a barrier) and ``check_plan``,
    work-item-loops' check that every per-work-item array is written before it is read
    (also on alone with ``XMUX_CHECK_PLAN=1``, as the fuzz campaigns run)."""
    oacc_expansion = _former_oacc_name(oacc_target, oacc_expansion)
    _check_cpu_options(spec_constants, sub_group_size, vector_width, oacc_expansion, unroll_jam)
    if declare_spec_leaves is None:
        declare_spec_leaves = spec_constants == "native"
    from xmux.transforms import add_entry_hook as entry_hook

    options: dict[str, dict[str, object]] = {
        "lower-spec-constants": {"mode": spec_constants, "padding": spec_padding},
        "convert-spec-to-llvm": {"declare_leaves": declare_spec_leaves},
        "lower-sub-group-collectives": {"sub_group_size": sub_group_size},
        # upstream gpu kernels: a warp of 32 unless a size N > 1 is asked for
        "convert-gpu-to-mux": {"sub_group_size": sub_group_size if sub_group_size > 1 else 32},
        "expand-oacc-reductions": {"expansion": oacc_expansion},
        "add-entry-hook": {"group_band": entry_hook.GROUP_BAND},  # cache-sharing group bands
    }
    checks = env.flag("XMUX_CHECKS", False) if checks is None else checks
    if check_plan is None:
        check_plan = checks or env.flag("XMUX_CHECK_PLAN", False)
    options["work-item-loops"] = _work_item_loops(vector_width, force_no_tail, check_plan, checks)
    options["work-item-unroll-and-jam"] = {"factor": unroll_jam}
    if target is None:
        from xmux.runtime.jit import host_target

        target = host_target()
    names = list(KERNEL_STAGES)
    if checks:
        names.insert(names.index("lower-kernel-asserts") + 1, "insert-bounds-checks")
    if fp_control:
        names.append("add-floating-point-control")
    names += LOWERING_STAGES
    if _is_aarch64(target):  # NEON's vector i64 -> f32 rounds twice (the pass's docstring)
        names.append("disable-neon-attribute")
    return [attach(target), *(make_pass(n, **options.get(n, {})) for n in names)]


def _former_oacc_name(oacc_target: str | None, oacc_expansion: str) -> str:
    """``oacc_expansion``, or ``oacc_target`` (its former name) where given."""
    if oacc_target is None:
        return oacc_expansion
    if oacc_target not in OACC_EXPANSIONS:
        raise ValueError(f"oacc_target must be one of {OACC_EXPANSIONS}, got {oacc_target!r}")
    return oacc_target


def _is_aarch64(target: object) -> bool:
    """Whether ``target`` (a ``#xmux.target`` or a ``TargetDescription``) is an AArch64 CPU."""
    triple = getattr(target, "triple", "")
    triple = getattr(triple, "data", triple)
    return isinstance(triple, str) and triple.split("-")[0] in ("aarch64", "arm64", "aarch64_be")


def _work_item_loops(vector_width: int, force_no_tail: bool, check_plan: bool, checks: bool
                     ) -> dict[str, object]:
    """work-item-loops' options (only those that differ from its defaults: the spec stays
    the pass's bare name otherwise)."""
    options: dict[str, object] = {}
    if vector_width > 1 or force_no_tail:
        options = {"vector_width": vector_width, "force_no_tail": force_no_tail}
    if check_plan:
        options["check_plan"] = True
    if checks:  # divergent barriers reported at run time (wi_loops/divergence.py)
        options["check_barriers"] = True
    return options


def _check_cpu_options(spec_constants: str, sub_group_size: int, vector_width: int,
                       oacc_expansion: str, unroll_jam: int) -> None:
    if spec_constants not in SPEC_CONSTANT_MODES:
        raise ValueError(
            f"spec_constants must be one of {SPEC_CONSTANT_MODES}, got {spec_constants!r}"
        )
    if not isinstance(sub_group_size, int) or sub_group_size < 1:
        raise ValueError(f"sub_group_size must be a positive integer, got {sub_group_size!r}")
    if not valid_vector_width(vector_width):
        raise ValueError(f"vector_width must be 0, 1 or a power of two, got {vector_width!r}")
    if oacc_expansion not in OACC_EXPANSIONS:
        raise ValueError(
            f"oacc_expansion must be one of {OACC_EXPANSIONS}, got {oacc_expansion!r}"
        )
    if not valid_unroll_jam(unroll_jam):
        raise ValueError(
            f"unroll_jam must be 0 (cost model), 1 (off) or 2..16, got {unroll_jam!r}"
        )


def nvptx(
    *,
    target: object = None,
    spec_constants: str = "native",
    declare_spec_leaves: bool | None = None,
    spec_padding: str = "dpcpp",
    checks: bool | None = None,
) -> list[ModulePass]:
    """The NVPTX pipeline: kernel passes for a GPU (threads run the work-items) then lowering
    to the llvm dialect with work-group local memory in address space 3 (shared memory).
    ``spec_constants``, ``declare_spec_leaves``, ``spec_padding`` and ``checks`` (the
    checking mode's insert-bounds-checks; failures recorded on the device by
    define-check-failed-nvptx) as for ``cpu()``; sub-groups are warps of 32. ``target``: as
    for ``cpu()``, default ``nvptx_target()``."""
    if spec_constants not in SPEC_CONSTANT_MODES:
        raise ValueError(
            f"spec_constants must be one of {SPEC_CONSTANT_MODES}, got {spec_constants!r}"
        )
    if declare_spec_leaves is None:
        declare_spec_leaves = spec_constants == "native"
    options: dict[str, dict[str, object]] = {
        "lower-spec-constants": {"mode": spec_constants, "padding": spec_padding},
        "convert-spec-to-llvm": {"declare_leaves": declare_spec_leaves},
        "convert-gpu-to-mux": {"sub_group_size": 32},
    }
    if not env.flag("XMUX_NVPTX_WG_ONE_READER", True):  # A/B: every reduce broadcasts
        options["lower-work-group-collectives-nvptx"] = {"one_reader": False}
    names = [*NVPTX_KERNEL_STAGES, *LOWERING_STAGES]
    if checks if checks is not None else env.flag("XMUX_CHECKS", False):
        names.insert(names.index("lower-kernel-asserts") + 1, "insert-bounds-checks")
    if target is None:
        target = nvptx_target()
    # expand-oacc-reductions (ptx) and convert-to-llvm (shared memory in address space 3)
    # read the target attribute
    return [attach(target), *(make_pass(n, **options.get(n, {})) for n in names)]


def nvptx_target(arch: str | None = None) -> object:
    """The ``TargetDescription`` of an NVIDIA GPU: ``arch`` (``sm_90``), default the
    runtime's (``XMUX_NVPTX_ARCH``, else the current device's, else ``sm_90``)."""
    from xmux.abi import nvptx_abi
    from xmux.runtime.jit import TargetDescription

    if arch is None:
        from xmux.runtime.nvptx import default_arch

        arch = default_arch()
    return TargetDescription(nvptx_abi.TRIPLE, arch, nvptx_abi.PTX_FEATURES, 0, 0)


def for_target(target: str, **options: object) -> list[ModulePass]:
    """``cpu(**options)`` or ``nvptx(**options)``."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}")
    return cpu(**options) if target == "cpu" else nvptx(**options)  # type: ignore[arg-type]


@user_errors
def parse(text: str) -> list[ModulePass]:
    """The passes of a textual pipeline, as ``xmux-opt -p`` takes it (xmux's, xDSL's and
    plugins' passes): ``parse("lower-spec-constants{mode=emulated},convert-to-llvm")``."""
    from xdsl.utils.exceptions import ArgSpecParseError

    from xmux.errors import XmuxError
    from xmux.registry import parse_pipeline

    try:
        return list(parse_pipeline(text).passes)
    except XmuxError:
        raise  # an unknown pass: its name alone (and the closest known one), not the text
    # xDSL raises several kinds for a bad spec; its ArgSpecParseError is no Exception
    except (Exception, ArgSpecParseError) as e:  # noqa: BLE001
        raise XmuxError(f"cannot parse the pipeline {text!r}: {e}") from None


def spec(passes: Sequence[ModulePass]) -> str:
    """The textual pipeline (as for ``xmux-opt -p``) of a pass list."""
    return ",".join(str(p.pipeline_pass_spec()) for p in passes)


def fingerprint(passes: Sequence[ModulePass]) -> str | None:
    """What a user pipeline's cached objects depend on: each pass's spec and the source of
    its class (a pass edited, or two passes of one name, must not reuse a stale object);
    None when a class has no source to read (defined in an interactive session): then
    nothing may be cached."""
    import hashlib
    import inspect

    def code(h, c) -> None:  # bytecode, names and constants, nested code included
        h.update(c.co_code)
        h.update(repr(c.co_names).encode())
        for k in c.co_consts:
            if inspect.iscode(k):
                code(h, k)
            else:
                h.update(repr(k).encode())

    parts = [spec(passes)]
    for p in passes:
        cls = type(p)
        try:
            source = inspect.getsource(cls)
        except (OSError, TypeError):
            return None
        h = hashlib.sha256(source.encode())
        for klass in cls.__mro__:  # two classes of one qualname in one file share a source
            for member in vars(klass).values():
                if inspect.isfunction(member):
                    code(h, member.__code__)
        parts.append(f"{cls.__module__}.{cls.__qualname__}:{h.hexdigest()[:16]}")
    return "|".join(parts)


def index_of(passes: Sequence[ModulePass], name: str) -> int:
    """The position of the first pass named ``name`` in ``passes`` (``KeyError`` if none)."""
    for i, p in enumerate(passes):
        if p.name == name:
            return i
    raise KeyError(f"pass '{name}' is not in the pipeline")
