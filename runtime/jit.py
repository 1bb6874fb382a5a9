"""JIT-compile LLVM IR for the host CPU with llvmlite, with in-memory and on-disk caches.

Pipeline: parse → verify → optimize with LLVM's new pass manager at O3 (loop and SLP
vectorization on) for the host CPU and its features → ``emit_object`` → load the object
(``runtime/elf_loader.py``, or an MCJIT engine for an object it refuses, ``XMUX_LOADER=mcjit``
or under a debugger). As in the reference host target's binaries, the object is what gets
cached: the disk cache stores it with a JSON record (kernel metadata, external symbols it
needs, exported symbols), and a hit is loaded without parsing or optimizing anything. A warm
start needs no LLVM at all: the host's target facts come from the disk cache
(``runtime/host_record.py``) and ``llvmlite.binding`` is imported on first use.

Caches:
- in memory: key → ``JitModule`` (a hit returns the very same object);
- on disk: ``$XMUX_CACHE_DIR`` or ``~/.cache/xmux``; ``XMUX_CACHE=0`` turns it off unless a
  ``cache_dir`` is passed explicitly.
The key is sha256 of the IR text and kernel metadata (or of the caller's ``cache_key``) and
``target_fingerprint()`` (CPU name, CPU features, llvmlite/LLVM versions, pipeline version).

External symbols (runtime callbacks such as ``xmux_launch`` or ``printMemrefF32``) must be
registered with ``register_symbol`` before compiling code that calls them, or named to
``provide`` with the function that registers them (run when code calling one loads, so a
warm start of a kernel that calls none skips them); libc/libm/libgcc are
loaded so ``malloc``, ``memcpy``, ``sinf``… resolve. A call to a symbol that cannot be resolved
raises ``MissingSymbolError`` (MCJIT would otherwise abort the whole process).

``XMUX_OPT_LEVEL=0`` (0 to 3, default 3) compiles at that LLVM optimization level (IR pipeline
and code generation): ``0`` with ``xmux.compile(..., debug=True)`` gives code whose every
source variable and line a debugger can follow (docs/debugging.md). Part of the cache key.

Debug info: MCJIT hands every object it loads to LLVM's GDB registration listener (gdb's JIT
interface, ``__jit_debug_register_code``), so gdb sees a debug build's kernels with no work
here. ``XMUX_PERF_MAP=1`` writes each loaded module's functions to ``/tmp/perf-PID.map``
(``perf report`` then names them: ``runtime/perf_map.py``).

``XMUX_CPU=NAME`` (an LLVM CPU model: ``znver3``, ``haswell``...) builds for that model with its
own features instead of the host's, so this machine's LLVM decides as on such a host (the host
must run the model's instructions: an AVX-512 host runs ``znver3`` code).

Large modules (docs/architecture.md, "Compile time"): a huge block or function is
code-generated with LLVM's schedulers limited (``runtime/codegen_limits.py``), and a module
of many independent kernels is built in parts, one forked child per core
(``runtime/split_ir.py``, ``_build_split``), whose objects one engine loads.

Compilation is serialized by one lock; compiled functions may be called from any thread.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, NoReturn, TypeVar

from xmux.abi.errors import XmuxError

# compile_server (pickle) and ctypes.util (subprocess) are imported where a build needs them:
# a warm start loads cached objects only
from xmux.runtime import elf_loader, env, object_cache, perf_map, split_ir, tiered
from xmux.runtime.contained import (
    ChildStuck,
    ChildTooSlow,
    LLVMAborted,
    in_process,
    run_forked,
    run_forked_all,
)
from xmux.runtime.split_ir import pack_objects, unpack_objects

if TYPE_CHECKING:
    import llvmlite.binding as llvm
else:

    class _Binding:
        """``llvmlite.binding``, imported on first use: a warm start whose objects
        ``runtime/elf_loader.py`` loads never imports it (20-24 ms)."""

        def __getattr__(self, name: str) -> object:
            import llvmlite.binding

            globals()["llvm"] = llvmlite.binding
            return getattr(llvmlite.binding, name)

    llvm = _Binding()

T = TypeVar("T")

__all__ = [
    "JitModule",
    "MissingSymbolError",
    "assembly",
    "cache_stats",
    "clear_memory_cache",
    "compile_ir",
    "default_cache_dir",
    "host_cpu",
    "load_cached",
    "load_object",
    "module_at",
    "optimized_ir",
    "register_symbol",
    "target_fingerprint",
]

#: bump when the optimization pipeline or the cache record format changes
_PIPELINE_VERSION = "xmux-jit-1"

_lock = threading.RLock()
#: the host target's creation and symbol registration: ``_lock`` is held for a whole compile
#: (the pool's functions are built on a background thread while ``xmux.compile`` registers
#: the runtime's symbols)
_target_lock = threading.RLock()
_symbols_lock = threading.Lock()
_memory: dict[str, JitModule] = {}
#: entry address -> its module (``module_at``: a saved program finds the objects of the
#: local-size variants its launchers built, whatever key they were compiled under)
_by_address: dict[int, JitModule] = {}
_registered: dict[str, int] = {}
#: symbol name -> the function that registers it on first need (``provide``)
_providers: dict[str, Callable[[], object]] = {}


def _reset_lock_in_child() -> None:
    """A child forked while another thread held the lock (compiling) would wait for it
    forever: that thread does not exist in the child. (Also what runtime/contained.py's
    own children get: they were forked by the thread holding it.)"""
    global _lock, _target_lock, _symbols_lock
    _lock = threading.RLock()
    _target_lock = threading.RLock()
    _symbols_lock = threading.Lock()


os.register_at_fork(after_in_child=_reset_lock_in_child)

#: counters tests (and curious users) can read: compiled, memory_hits, disk_hits, disk_writes
cache_stats: Counter[str] = Counter()


class MissingSymbolError(XmuxError):
    """The compiled code calls an external function or uses a global nobody defined."""


# ---------------------------------------------------------------------------------------
# Target
# ---------------------------------------------------------------------------------------


class _Target:
    """Host target machine (created once); one extra machine per engine, which owns it."""

    def __init__(self) -> None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        llvm.initialize_native_asmparser()
        _load_system_libraries()
        # Work-item loops carry llvm.loop.parallel_accesses (no loop-carried dependence),
        # which also lets the loop vectorizer form interleaved store groups without its
        # dependence check: it moved a stride-2 store of a work-item past that work-item's
        # later (conditional) store to the same address (fuzz seed 1231). Off: the bench
        # kernels' and 20 of 21 examples' object code is unchanged (acc_sum differs).
        llvm.set_option("", "--enable-interleaved-mem-accesses=0")
        self.triple = llvm.get_process_triple()
        # XMUX_CPU=znver3 builds for that model with its own features: the host's LLVM then
        # decides as on such a machine (cost models, vector widths, its assertions included),
        # which is how the suite is run "as on" a host this machine is not
        model = env.cpu_model("XMUX_CPU")
        self.opt_level = _opt_level()
        self.cpu = model or llvm.get_host_cpu_name()
        self.features = "" if model else llvm.get_host_cpu_features().flatten()
        self.target = llvm.Target.from_triple(self.triple)
        self.machine = self.new_machine()
        if model:
            self._probe_model(model)
        self.data_layout = str(self.machine.target_data)
        self._narrow: llvm.TargetMachine | None = None

    def _probe_model(self, model: str) -> None:
        """LLVM ignores a CPU name it does not know and then dies on the first 64-bit code
        (a fatal error, not an exception): find out in a forked child."""
        probe = "define i64 @f(i64 %x) {\n  ret i64 %x\n}\n"
        try:
            run_forked(lambda: self.machine.emit_object(llvm.parse_assembly(probe)))
        except XmuxError as e:
            raise XmuxError(f"XMUX_CPU={model}: not an x86 CPU model this LLVM knows") from e

    def new_machine(self, features: str | None = None) -> llvm.TargetMachine:
        return self.target.create_target_machine(
            cpu=self.cpu, features=features or self.features, opt=self.opt_level, jit=True
        )

    def description(self) -> TargetDescription:
        """This machine (or ``XMUX_CPU``'s model) as the IR's target attribute describes it."""
        bits, registers = _vector_unit(self.triple, self.features, self._probe_vector_bits)
        return TargetDescription(self.triple, self.cpu, self.features, bits, registers)

    def _probe_vector_bits(self) -> int:
        """The widest register LLVM uses for a model named without features (``XMUX_CPU``):
        read off the assembly of a 512-bit vector add, as LLVM lowers it for that model."""
        probe = (
            "define <16 x float> @f(<16 x float> %a, <16 x float> %b) {\n"
            "  %c = fadd <16 x float> %a, %b\n  ret <16 x float> %c\n}\n"
        )
        asm = self.machine.emit_assembly(llvm.parse_assembly(probe))
        return 512 if "zmm" in asm else 256 if "ymm" in asm else 128

    @property
    def wide_vectors(self) -> bool:
        return _wide(self.features)

    def machine_for(self, vector_bits: int | None) -> llvm.TargetMachine:
        """The host machine, or one whose vectorizer prefers 256-bit vectors (x86's
        ``prefer-256-bit`` tuning, as LLVM's own skylake-avx512 model has)."""
        if vector_bits != 256 or not self.wide_vectors:
            return self.machine
        if self._narrow is None:
            self._narrow = self.new_machine(self.features + ",+prefer-256-bit")
        return self._narrow


_target_instance: _Target | None = None


def _target() -> _Target:
    global _target_instance
    if _target_instance is not None:
        return _target_instance
    with _target_lock:
        if _target_instance is None:
            target = _Target()
            with _symbols_lock:  # what was registered before LLVM was needed
                for name, address in _registered.items():
                    llvm.add_symbol(name, address)
                _target_instance = target
        return _target_instance


#: the shared objects of libc, libm and libgcc on glibc Linux (dlopen finds them by name)
_SONAMES = {"c": "libc.so.6", "m": "libm.so.6", "gcc_s": "libgcc_s.so.1"} if (
    os.uname().sysname == "Linux") else {}


def _load_system_libraries() -> None:
    """Make libc/libm (and libgcc's soft-float helpers) visible to the JIT linker."""
    found = False
    for lib in ("c", "m", "gcc_s"):
        # glibc's sonames first: find_library runs ``ldconfig -p`` (and gcc) in a subprocess,
        # ~15 ms a library on the 2-core VM, on every process's way to its first compile
        for path in (_SONAMES.get(lib), _find_library):
            if callable(path):
                path = path(lib)
            if path is None:
                continue
            try:
                llvm.load_library_permanently(path)
            except RuntimeError:
                continue
            found = found or lib == "c"
            break
    if not found:  # fall back to the symbols of the running process
        from llvmlite.binding import ffi

        with ffi.OutputString() as err:
            ffi.lib.LLVMPY_LoadLibraryPermanently(None, err)


def _find_library(name: str) -> str | None:
    import ctypes.util

    return ctypes.util.find_library(name)


@dataclass(frozen=True)
class TargetDescription:
    """The parameters of a ``#xmux.target`` (``dialects/target.py``), without xDSL."""

    triple: str
    chip: str
    features: str
    vector_bits: int
    vector_registers: int


def _vector_unit(triple: str, features: str, probe: Callable[[], int]) -> tuple[int, int]:
    """(widest vector register in bits, how many) of a CPU: from its feature string, else
    (a model named without features) from ``probe``."""
    arch = triple.split("-")[0]
    if arch in ("x86_64", "i386", "i686"):
        have = {f[1:] for f in features.split(",") if f.startswith("+")}
        bits = (512 if "avx512f" in have else 256 if "avx" in have else 128) if have else probe()
        return bits, 32 if bits == 512 else 16
    if arch in ("aarch64", "arm64"):
        return 128, 32  # NEON; SVE's length is a run-time property
    return 0, 0


class _HostFacts(NamedTuple):
    description: TargetDescription
    fingerprint: str


_facts: _HostFacts | None = None


def _host_facts() -> _HostFacts:
    """The target's description and fingerprint: LLVM's, or (before anything asked LLVM)
    what an earlier process on this machine recorded (``runtime/host_record.py``)."""
    if _facts is not None:
        return _facts
    with _target_lock:
        return _facts or _find_host_facts()


def _find_host_facts() -> _HostFacts:
    global _facts
    from xmux.runtime import host_record

    directory = default_cache_dir()
    if _target_instance is None:
        known = host_record.read(directory)
        if known is not None and isinstance(known.get("fingerprint"), str):
            try:
                _facts = _HostFacts(TargetDescription(**known["description"]),
                                    known["fingerprint"])
                return _facts
            except (TypeError, KeyError):
                pass  # a record of another layout: ask LLVM and keep its answer
    t = _target()
    import llvmlite

    llvm_version = ".".join(map(str, llvm.llvm_version_info))
    fingerprint = (
        f"{t.triple}|{t.cpu}|{t.features}|llvmlite {llvmlite.__version__}|llvm {llvm_version}"
        f"|{_PIPELINE_VERSION}" + (f"|O{t.opt_level}" if t.opt_level != 3 else "")
    )
    _facts = _HostFacts(t.description(), fingerprint)
    host_record.write(directory, {"description": asdict(_facts.description),
                                  "fingerprint": fingerprint})
    return _facts


def host_target() -> TargetDescription:
    """The target ``xmux.compile`` builds for: this host, or ``XMUX_CPU``'s model."""
    return _host_facts().description


def host_has_wide_vectors() -> bool:
    """Whether ``compile_ir(..., vector_bits=256)`` builds different code than the default."""
    return _wide(_host_facts().description.features)


def _wide(features: str) -> bool:
    """Whether a CPU has 512-bit vectors that LLVM uses by default (AVX-512 without the
    CPU's own 256-bit preference): only then does ``vector_bits=256`` change anything."""
    return "+avx512f" in features.split(",") and "+prefer-256-bit" not in features


def target_fingerprint() -> str:
    """What compiled code depends on besides its IR: CPU, features, tool versions."""
    return _host_facts().fingerprint


def _opt_level() -> int:
    """``XMUX_OPT_LEVEL``: 0 to 3, default 3."""
    raw = os.environ.get("XMUX_OPT_LEVEL", "").strip()
    if not raw:
        return 3
    if raw not in ("0", "1", "2", "3"):
        raise XmuxError(f"XMUX_OPT_LEVEL must be 0, 1, 2 or 3, got {raw!r}")
    return int(raw)


def register_symbol(name: str, address: int) -> None:
    """Make ``name`` resolve to ``address`` in code compiled or loaded from now on."""
    with _symbols_lock:
        _registered[name] = address
        if _target_instance is not None:  # else ``_Target`` adds it when LLVM is set up
            llvm.add_symbol(name, address)


def _resolve(name: str) -> int | None:
    """The address an undefined symbol of loaded code gets: a registered one, then the C
    libraries' (and LLVM's own table once LLVM is loaded: a library a user loaded there)."""
    found = _registered.get(name) or system_symbol(name)
    if found is None and _target_instance is not None:
        found = llvm.address_of_symbol(name)
    return found or None


_system_libraries: list[object] = []


def system_symbol(name: str) -> int | None:
    """``name`` in libc, libm or libgcc_s (the process's own symbols where there is no libc
    by that name), by ``dlsym``: what MCJIT's linker finds (``_load_system_libraries``)."""
    import ctypes

    if not _system_libraries:
        for soname in _SONAMES.values():
            with contextlib.suppress(OSError):
                _system_libraries.append(ctypes.CDLL(soname))
        if "c" not in _SONAMES or not _system_libraries:
            _system_libraries.append(ctypes.CDLL(None))
    for lib in _system_libraries:
        try:
            return ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
        except AttributeError:
            continue
    return None


# ---------------------------------------------------------------------------------------
# Compilation
# ---------------------------------------------------------------------------------------


def _parse(ir_text: str, machine: llvm.TargetMachine | None = None) -> llvm.ModuleRef:
    """Parsed and verified, for the host (or for ``machine``'s triple and data layout)."""
    try:
        mod = llvm.parse_assembly(ir_text)
        mod.verify()
    except RuntimeError as e:
        raise XmuxError(f"invalid LLVM IR: {str(e).strip()}") from e
    if machine is None:
        t = _target()
        mod.triple = t.triple
        mod.data_layout = t.data_layout
    else:
        mod.triple = machine.triple
        mod.data_layout = str(machine.target_data)
    return mod


def _parse_linked(
    ir_text: str, link: Sequence[str] = (), machine: llvm.TargetMachine | None = None,
    internalize: bool = True,
) -> llvm.ModuleRef:
    """``ir_text`` with each module of ``link`` linked in; what those define becomes internal
    (a specialization's leaf values: constants LLVM then folds and drops) unless not
    ``internalize`` (the leaves as exported variables: ``SpecState.generic_entry``).
    ``machine``: a target other than the host's (the NVPTX target)."""
    mod = _parse(ir_text, machine)
    for text in link:
        extra = _parse(text, machine)
        defined = [g.name for g in extra.global_variables if not g.is_declaration]
        defined += [f.name for f in extra.functions if not f.is_declaration]
        try:
            mod.link_in(extra)
        except RuntimeError as e:
            raise XmuxError(f"linking LLVM IR: {str(e).strip()}") from e
        for name in defined if internalize else ():
            try:
                value = mod.get_global_variable(name)
            except NameError:
                value = mod.get_function(name)
            value.linkage = llvm.Linkage.internal
    return mod


class Settings(NamedTuple):  # not a dataclass: ~0.5 ms less at every start
    """What the O3 pipeline runs: all of it, or the safer setting of a retry."""

    vectorize: bool = True  # the loop vectorizer (its assertions abort on some CPUs)
    unroll: bool = True  # loop unrolling (full unrolling of nested constant loops blows up)
    slp: bool = True  # the SLP vectorizer


O3 = Settings()
NO_VECTORIZER = Settings(vectorize=False)
NO_UNROLLING = Settings(unroll=False)
#: O3's scalar work only (inlining, simplification, no loop vectorization, unrolling or SLP):
#: a specialization template's (runtime/spec_table.py), whose loops are transformed once the
#: values are linked in
SCALAR_ONLY = Settings(vectorize=False, unroll=False, slp=False)


def _both(a: Settings, b: Settings) -> Settings:
    """What both settings allow (a retry's within a caller's)."""
    return Settings(vectorize=a.vectorize and b.vectorize, unroll=a.unroll and b.unroll,
                    slp=a.slp and b.slp)


def _optimize(
    mod: llvm.ModuleRef, machine: llvm.TargetMachine | None = None, settings: Settings = O3
) -> None:
    t = _target()
    pto = llvm.create_pipeline_tuning_options(speed_level=t.opt_level)
    pto.loop_vectorization = settings.vectorize
    pto.slp_vectorization = settings.slp
    pto.loop_unrolling = settings.unroll
    pb = llvm.create_pass_builder(machine or t.machine, pto)
    pb.getModulePassManager().run(mod, pb)


_server_machines: dict[tuple[str, str], llvm.TargetMachine] = {}


def _remote_build(ir_text: str, link: Sequence[str], narrow: bool,
                  internalize: bool = True) -> tuple[str, tuple] | None:
    """``build_object`` and its arguments but the settings, for the host machine or its
    256-bit-preferring twin (``_Target.machine_for``); None (build here) at an optimization
    level other than the server's O3."""
    t = _target()
    if t.opt_level != 3:
        return None
    features = t.features + ",+prefer-256-bit" if narrow else t.features
    function = "build_object" if internalize else "build_object_external"
    return f"xmux.runtime.jit:{function}", (ir_text, tuple(link), t.cpu, features)


def build_object_external(ir_text: str, link: Sequence[str], cpu: str, features: str,
                          settings: Settings) -> tuple[bytes, list[str], list[str]]:
    """``build_object`` keeping what ``link`` defines exported (``compile_ir``'s
    ``internalize=False``)."""
    return build_object(ir_text, link, cpu, features, settings, internalize=False)


def build_object(ir_text: str, link: Sequence[str], cpu: str, features: str,
                 settings: Settings, internalize: bool = True,
                 ) -> tuple[bytes, list[str], list[str]]:
    """``compile_ir``'s LLVM work in the compile server (``runtime/compile_server.py``): the
    machine is named by CPU and features, as the user's process made it."""
    machine = _server_machines.get((cpu, features))
    if machine is None:
        machine = _target().target.create_target_machine(
            cpu=cpu, features=features, opt=3, jit=True)
        _server_machines[(cpu, features)] = machine
    return _build(ir_text, link, machine, settings, internalize)


def _build(ir_text: str, link: Sequence[str], machine: llvm.TargetMachine,
           settings: Settings, internalize: bool = True) -> tuple[bytes, list[str], list[str]]:
    """Parse and link, O3, codegen: the object and its external and exported symbols."""
    from xmux.runtime.codegen_limits import codegen_limits  # a build's, not a load's

    mod = _parse_linked(ir_text, link, machine, internalize)
    _optimize(mod, machine, settings)
    with codegen_limits(mod, ir_text, len(ir_text) + sum(map(len, link))):
        obj = machine.emit_object(mod)
    # after O3: dead declarations are gone, libcalls added
    return obj, _externals(mod), _exports(mod)


#: bytes of LLVM IR from which a module of independent kernels is built in parts, one forked
#: child per core (``runtime/split_ir.py``), and the least a part gets: below that a fork of a
#: large process (~20-50 ms) and a second parse of the shared lines cost more than they save
SPLIT_TEXT = 256_000
SPLIT_PART = 96_000


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1


def _parts(ir_text: str, link: Sequence[str], internalize: bool) -> list[str] | None:
    """``ir_text`` cut into parts to build on this host's cores at once, or None: a small
    module, one core, a linked module (a specialization's values would be in every part),
    LLVM in this process, a background build (``runtime/tiered.py``: the launches' cores)."""
    if (len(ir_text) < SPLIT_TEXT or link or not internalize or in_process()
            or tiered.in_background()):
        return None
    n = min(_cores(), len(ir_text) // SPLIT_PART)
    return split_ir.split(ir_text, n) if n >= 2 else None


def _build_split(parts: Sequence[str], machine: llvm.TargetMachine,
                 settings: Settings) -> tuple[bytes, list[str], list[str]]:
    """``_build`` of each part in a forked child of its own, all at once; the objects packed
    into one (``pack_objects``), their symbols merged."""
    results = run_forked_all([lambda p=p: _build(p, (), machine, settings) for p in parts],
                             [_budget(len(p)) for p in parts])
    externals = sorted({name for _, ext, _ in results for name in ext})
    exports = sorted({name for _, _, exp in results for name in exp})
    return pack_objects([obj for obj, _, _ in results]), externals, exports


def _kernel_names(kernel_infos_json: str) -> str:
    """``@a, @b`` for messages, from the kernel metadata record."""
    try:
        names = [k["name"] for k in json.loads(kernel_infos_json or "[]")]
    except (ValueError, TypeError, KeyError):
        names = []
    return ", ".join(f"@{n}" for n in names) or "a module without kernels"


#: CPU seconds the O3 child may use before it is stopped and the module built again without
#: loop unrolling: a base plus a share per byte of IR (a 97k-op module takes ~70 s)
BUDGET_BASE_S = 60.0
BUDGET_PER_MB_S = 60.0


def _budget(size: int) -> float:
    return BUDGET_BASE_S + BUDGET_PER_MB_S * size / 1e6


def _contained(work: Callable[[Settings], T], what: str, size: int,
               remote: tuple[str, tuple] | None = None,
               split: Callable[[Settings], T] | None = None) -> T:
    """``work(settings)`` in a forked child (``runtime/contained.py``) for IR of ``size``
    bytes, or ``remote``, the same work as a function and its arguments but the settings,
    in the compile server where one is ready (``runtime/compile_server.py``). When LLVM
    aborts, again with the loop vectorizer off (the pass whose assertions abort on some
    CPUs); when it runs over its CPU budget (``_budget``), again without loop unrolling;
    each retry in a forked child, with a warning naming ``what``, an error naming it when
    the retry fails too. ``split``: the same work in parts on several cores at once
    (``_build_split``), tried first; its retries build the module whole."""
    try:
        if split is not None:
            try:
                return split(O3)
            except LLVMAborted:
                raise
            except XmuxError:  # a part LLVM refused: the whole module says why (or builds)
                pass
        if remote is not None:
            from xmux.runtime import compile_server

            served, value = compile_server.call(remote[0], (*remote[1], O3), _budget(size),
                                                warm_up="xmux.runtime.jit:_target",
                                                background=tiered.in_background())
            if served:
                return value  # type: ignore[return-value]
        return run_forked(lambda: work(O3), _budget(size))
    except ChildStuck:  # the fork inherited a lock held for ever: build here instead
        with _lock:
            return work(O3)
    except LLVMAborted as e:
        reason, retry, setting = str(e), NO_VECTORIZER, "LLVM's loop vectorizer off"
    except ChildTooSlow as e:
        reason, retry, setting = str(e), NO_UNROLLING, "LLVM's loop unrolling off"
    warnings.warn(
        f"xmux: {reason}, compiling {what}; compiled again with {setting}",
        RuntimeWarning,
        stacklevel=3,
    )
    try:
        return run_forked(lambda: work(retry), _budget(size))
    except (LLVMAborted, ChildTooSlow) as e:
        raise XmuxError(f"compiling {what}: {e} (also with {setting})") from None


def _parse_and_optimize(
    ir_text: str, settings: Settings = O3, machine: llvm.TargetMachine | None = None,
    link: Sequence[str] = (),
) -> llvm.ModuleRef:
    with _lock:
        mod = _parse_linked(ir_text, link)
        _optimize(mod, machine, settings)
        return mod


def _cpu_machine(cpu: str) -> llvm.TargetMachine:
    """A target machine for another x86 CPU model, with that model's own features."""
    return _target().target.create_target_machine(cpu=cpu, features="", opt=3, jit=False)


def optimized_ir(ir_text: str, what: str = "LLVM IR", cpu: str | None = None,
                 link: Sequence[str] = (), settings: Settings = O3) -> str:
    """The IR after the JIT's O3 pipeline (for tests, debugging and the specialization
    templates of runtime/spec_constants.py: ``settings=SCALAR_ONLY``), contained like
    ``compile_ir``; for the host CPU, or the CPU model ``cpu`` (tests that depend on vector
    widths name one); ``link`` as for ``compile_ir``."""
    machine = _cpu_machine(cpu) if cpu is not None else None
    return _contained(
        lambda s: str(_parse_and_optimize(ir_text, _both(s, settings), machine, link)), what,
        len(ir_text))


def object_code(ir_text: str, cpu: str, what: str = "LLVM IR") -> bytes:
    """An object file of ``ir_text`` for another x86 CPU model (``"haswell"``,
    ``"znver3"``, ...; its own features), optimized and contained as ``compile_ir`` does:
    the test suite builds every kernel for several CPU models so that an LLVM assertion on
    any of them fails a test rather than a user's process."""
    machine = _cpu_machine(cpu)

    def work(settings: Settings) -> bytes:
        with _lock:
            mod = _parse(ir_text)
            _optimize(mod, machine, settings)
            return machine.emit_object(mod)

    return _contained(work, what, len(ir_text))


def assembly(ir_text: str) -> str:
    """Host assembly of the optimized IR (for tests and debugging)."""

    def work(settings: Settings) -> str:
        with _lock:
            return _target().machine.emit_assembly(_parse_and_optimize(ir_text, settings))

    return _contained(work, "LLVM IR", len(ir_text))


def _externals(mod: llvm.ModuleRef) -> list[str]:
    names = [f.name for f in mod.functions if f.is_declaration and not f.name.startswith("llvm.")]
    names += [g.name for g in mod.global_variables if g.is_declaration]
    return sorted(names)


def _exports(mod: llvm.ModuleRef) -> list[str]:
    defined = [*mod.functions, *mod.global_variables]
    return sorted(
        v.name
        for v in defined
        if not v.is_declaration and v.linkage not in (llvm.Linkage.internal, llvm.Linkage.private)
    )


def provide(names: Sequence[str], install: Callable[[], object]) -> None:
    """Have ``install`` (which registers ``names``) run when code that uses one of them is
    about to be loaded (its ``externals``), not on every process's way to its first
    compile: a warm start of a kernel that neither prints nor launches skips the runtime's
    host module and callbacks. ``install`` runs under the compile lock, once per name until
    it registers it."""
    for name in names:
        _providers.setdefault(name, install)


def compile_lock() -> threading.RLock:
    """The lock ``compile_ir`` and the loads hold: a symbol provider that also installs
    outside a load takes it first (one lock order)."""
    return _lock


def _check_externals(names: list[str]) -> None:
    for name in names:
        install = _providers.get(name) if name not in _registered else None
        if install is not None:
            install()
    missing = [n for n in names if _resolve(n) is None]
    if missing:
        _missing(missing)


def _load_native(parts: list[bytes]) -> elf_loader.Image | None:
    """``parts`` loaded by the ELF loader, or None where it does not take them (another
    machine, debug information, ``XMUX_LOADER=mcjit``...): MCJIT loads them then."""
    choice = os.environ.get("XMUX_LOADER", "").strip().lower() or "native"
    if choice not in ("native", "mcjit"):
        raise XmuxError(f"XMUX_LOADER must be 'native' or 'mcjit', got {choice!r}")
    if choice == "mcjit" or _traced():
        return None
    try:
        return elf_loader.load(parts, _resolve)
    except elf_loader.Unsupported:
        return None
    except elf_loader.MissingSymbol as e:
        _missing(e.args[0])


def _traced() -> bool:
    """Whether a debugger is attached: MCJIT registers what it loads with gdb's JIT interface
    (kernels' names in a backtrace), the ELF loader does not."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("TracerPid:"):
                    return line.split()[1] != "0"
    except OSError:
        pass
    return False


def _missing(names: list[str]) -> NoReturn:
    listed = ", ".join(f"'{n}'" for n in names)
    raise MissingSymbolError(
        f"the compiled code uses undefined external symbol(s) {listed}: define them in the "
        "module or register them with xmux.runtime.jit.register_symbol(name, address)"
    )


class JitModule:
    """Compiled code, loaded by ``runtime/elf_loader.py`` where it takes the object whole,
    else in an MCJIT engine (``XMUX_LOADER=mcjit``: always); keeps its memory (the loader's
    image or the engine) alive while referenced."""

    def __init__(
        self,
        key: str,
        obj: bytes,
        record: dict,
        source: str,
    ) -> None:
        self.key = key
        #: "compiled" (built now), "disk" (the disk cache) or "binary" (``xmux.load``)
        self.source = source
        self.object_code = obj
        self._record = record
        self._addresses: dict[str, int] = {}
        parts = unpack_objects(obj)  # a module built in parts (``_build_split``): all of them
        self._image = _load_native(parts)
        #: "native" (runtime/elf_loader.py) or "mcjit"
        self.loader = "native" if self._image is not None else "mcjit"
        if self._image is None:
            t = _target()
            holder = llvm.parse_assembly("")
            holder.triple = t.triple
            holder.data_layout = t.data_layout
            self._engine = llvm.create_mcjit_compiler(holder, t.new_machine())
            self._objects = [llvm.ObjectFileRef.from_data(o) for o in parts]
            for o in self._objects:
                self._engine.add_object_file(o)
            self._engine.finalize_object()
        if perf_map.enabled():
            for o in parts:
                perf_map.record(o, self.exports, self._lookup_address)

    def _lookup_address(self, symbol: str) -> int:
        if self._image is not None:
            return self._image.address(symbol)
        return self._engine.get_function_address(symbol)

    @property
    def kernel_infos_json(self) -> str:
        """The kernel metadata stored with the object (``dialects.attrs.dump_kernel_infos``)."""
        return self._record.get("kernel_infos", "")

    @property
    def exports(self) -> list[str]:
        """Symbols with external linkage defined by this module."""
        return list(self._record.get("exports", []))

    def address(self, symbol: str) -> int:
        """Address of an exported function or global."""
        with _lock:
            addr = self._addresses.get(symbol)
            if addr is None:
                addr = self._lookup_address(symbol) if symbol in self.exports else 0
                if not addr:
                    known = ", ".join(self.exports) or "none"
                    raise XmuxError(
                        f"no exported symbol '{symbol}' in the compiled module (exports: {known})"
                    )
                self._addresses[symbol] = addr
                _by_address[addr] = self
            return addr

    @property
    def notes(self) -> dict:
        """What the caller of ``compile_ir`` stored with it (``notes``); empty if nothing."""
        notes = self._record.get("notes")
        return notes if isinstance(notes, dict) else {}

    @property
    def record(self) -> dict:
        """The record stored with the object (``compile_ir``): what ``load_object`` takes."""
        return dict(self._record)

    def __repr__(self) -> str:
        return f"<JitModule {self.key[:12]} ({self.source}) exports={self.exports}>"


# ---------------------------------------------------------------------------------------
# Caches
# ---------------------------------------------------------------------------------------


def default_cache_dir() -> Path | None:
    """The disk cache directory, or None when ``XMUX_CACHE=0``."""
    if not env.flag("XMUX_CACHE", True):
        return None
    where = os.environ.get("XMUX_CACHE_DIR")
    return Path(where) if where else Path.home() / ".cache" / "xmux"


def _key(ir_text: str, kernel_infos_json: str, cache_key: str | None, tuning: str = "") -> str:
    """A caller's ``cache_key`` stands for its whole input (source, pipeline, metadata):
    ``load_cached`` must find the module knowing nothing else."""
    h = hashlib.sha256()
    parts = ("key", cache_key) if cache_key is not None else ("ir", ir_text, kernel_infos_json)
    for part in (*parts, tuning):
        h.update(part.encode())
        h.update(b"\0")
    h.update(target_fingerprint().encode())
    return h.hexdigest()


def _resolve_dir(cache_dir: Path | str | None, disk_cache: bool | None = None) -> Path | None:
    if disk_cache is False:
        return None
    return Path(cache_dir) if cache_dir is not None else default_cache_dir()


def _lookup(key: str, cache_dir: Path | None) -> JitModule | None:
    hit = _memory.get(key)
    if hit is not None:
        cache_stats["memory_hits"] += 1
        return hit
    if cache_dir is None:
        return None
    found = object_cache.read(cache_dir, key, target_fingerprint())
    if found is None:
        return None
    obj, record = found
    _check_externals(record.get("externals", []))
    jm = JitModule(key, obj, record, source="disk")
    _memory[key] = jm
    cache_stats["disk_hits"] += 1
    return jm


def load_cached(cache_key: str, *, cache_dir: Path | str | None = None,
                disk_cache: bool | None = None, vector_bits: int | None = None,
                ) -> JitModule | None:
    """The module ``compile_ir`` compiled earlier with this ``cache_key`` (and
    ``vector_bits``), from memory, then disk, or None: a caller whose key stands for its IR
    need not make the IR for a hit. Its ``kernel_infos_json`` and ``notes`` are the metadata
    stored with it."""
    with _lock:
        return _lookup(_key("", "", cache_key, _tuning(vector_bits, True)),
                       _resolve_dir(cache_dir, disk_cache))


def _tuning(vector_bits: int | None, internalize: bool) -> str:
    """The part of a cache key that says how LLVM was asked to build."""
    narrow = vector_bits == 256 and host_has_wide_vectors()
    return ("prefer-256" if narrow else "") + ("" if internalize else "+exported")


def compile_ir(
    ir_text: str,
    *,
    kernel_infos_json: str = "",
    cache_dir: Path | str | None = None,
    cache_key: str | None = None,
    disk_cache: bool | None = None,
    vector_bits: int | None = None,
    link: Sequence[str] = (),
    internalize: bool = True,
    notes: dict | None = None,
) -> JitModule:
    """Compile LLVM IR text for the host (or fetch it from a cache).

    ``notes``: a caller's JSON-able facts stored with the object (``JitModule.notes``).

    ``link``: LLVM IR modules linked into it first, their definitions made internal (the
    values of a specialization: ``runtime/spec_constants.py``); part of the cache key unless
    the caller's ``cache_key`` stands for them.

    ``internalize=False`` keeps what ``link`` defines exported (and so not folded).

    ``vector_bits=256`` makes LLVM prefer 256-bit vectors on a host with 512-bit ones
    (``_Target.machine_for``; part of the cache key); the default is the host's preference.

    ``kernel_infos_json`` is stored with the object and returned by
    ``JitModule.kernel_infos_json``. Without ``cache_key`` the cache key is the IR text and
    the metadata; a caller's ``cache_key`` replaces both, so a caller that keys on its own
    source can skip lowering on a hit (``load_cached``). ``disk_cache=False`` keeps this
    module out of the disk cache (the default follows ``XMUX_CACHE`` / ``cache_dir``).
    """
    with _lock:
        directory = _resolve_dir(cache_dir, disk_cache)
        key = _key("\0".join((ir_text, *link)), kernel_infos_json, cache_key,
                   _tuning(vector_bits, internalize))
        hit = _lookup(key, directory)
        if hit is not None:
            return hit
        machine = _target().machine_for(vector_bits)
        narrow = machine is not _target().machine
        remote = _remote_build(ir_text, link, narrow, internalize)
    parts = _parts(ir_text, link, internalize)
    split = None if parts is None else (lambda settings: _build_split(parts, machine, settings))
    # the build runs in another process (a fork or the compile server) without the lock, so a
    # background build (runtime/tiered.py) never holds up a launch's look-up of an address;
    # LLVM in this process (XMUX_LLVM_IN_PROCESS) keeps it: one thread in LLVM at a time
    with _lock if in_process() else contextlib.nullcontext():
        obj, externals, exports = _contained(
            lambda settings: _build(ir_text, link, machine, settings, internalize),
            _kernel_names(kernel_infos_json), len(ir_text) + sum(map(len, link)),
            remote=remote, split=split)
    with _lock:
        hit = _memory.get(key)
        if hit is not None:  # another thread built it meanwhile
            return hit
        _check_externals(externals)
        record = {
            "fingerprint": target_fingerprint(),
            "kernel_infos": kernel_infos_json,
            "externals": externals,
            "exports": exports,
            "object_sha256": hashlib.sha256(obj).hexdigest(),
        }
        if notes:
            record["notes"] = notes
        jm = JitModule(key, obj, record, source="compiled")
        cache_stats["compiled"] += 1
        _memory[key] = jm
        if directory is not None:
            if object_cache.write(directory, key, obj, record):
                cache_stats["disk_writes"] += 1
        return jm


def load_object(obj: bytes, record: dict, key: str = "") -> JitModule:
    """An object built by ``compile_ir`` (its ``record``), loaded as is: no parse, no
    optimization (``xmux.load``). Its external symbols are checked first, as a disk hit's."""
    with _lock:
        _check_externals(list(record.get("externals", [])))
        return JitModule(key or hashlib.sha256(obj).hexdigest(), obj, record, source="binary")


def module_at(address: int) -> JitModule | None:
    """The module whose exported symbol at ``address`` was looked up (``JitModule.address``)."""
    return _by_address.get(address)


def host_cpu() -> tuple[str, str, str]:
    """(triple, CPU name, features) of the machine itself (not ``XMUX_CPU``'s model): what a
    saved binary's code must run on."""
    if not env.cpu_model("XMUX_CPU"):
        d = host_target()  # the host's own facts: no LLVM on a warm start
        return d.triple, d.chip, d.features
    t = _target()
    return t.triple, llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()


_runs_here: list[str | None] = []


def cannot_run_here() -> str | None:
    """Why code built for the JIT's target cannot run on this machine (None: it can).
    ``XMUX_CPU`` names a model to build for "as on" another host; where that model's vector
    registers are wider than this host's (AVX-512 code on an AVX2 machine), its code would
    die of an illegal instruction at its first such instruction. Checked once per process
    (a kernel's first launch and ``host_symbols.call_host`` ask before running anything)."""
    if not _runs_here:
        model = env.cpu_model("XMUX_CPU")
        reason = None
        if model:
            triple, chip, features = host_cpu()
            mine, _ = _vector_unit(triple, features, lambda: 0)
            theirs = host_target().vector_bits
            if mine and theirs > mine:
                reason = (f"XMUX_CPU={model}: its code uses {theirs}-bit vector registers, "
                          f"which this host ({chip}) lacks (its widest: {mine}-bit): it "
                          "cannot run here (building for it, as xmux-opt does, works)")
        _runs_here.append(reason)
    return _runs_here[0]


def clear_memory_cache() -> None:
    """Forget in-memory modules (their engines live on while referenced elsewhere)."""
    with _lock:
        _memory.clear()
