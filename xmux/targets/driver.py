"""The one compile driver every target goes through (docs/architecture.md, "Targets"):

    read the source → cache key → lookup (hit: load) → parse → the pass pipeline
    → collect the kernels' launch facts → emit → specialize → build → load

A target supplies the steps that differ (``xmux.targets.base.Target``); the rest — the
source, the options' checks, the caches' policy, the specialization-constant table, the
"no kernel" error — is written here once.

The inspection options (``print_ir_after``, ``pass_callback``, ``timing``) go with the
pipeline run here, so every target honours them. A compile with one of them neither looks
up nor stores anything in the caches: a hit would skip the passes, and a callback may change
the module, whose code must then not be filed under the unchanged key. Every program gets
``pass_timings``: a ``stages.PassTimings`` with ``timing=True``, else None.
"""

from __future__ import annotations

import hashlib
from contextlib import AbstractContextManager, nullcontext
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from xmux.abi.errors import XmuxError
from xmux.abi.kernel_layout import dump_kernel_infos, load_kernel_infos
from xmux.runtime import spec_constants as _spec
from xmux.stages import read_source
from xmux.targets.base import Build, Target

if TYPE_CHECKING:
    from xmux.options import CompileOptions


def compile_program(target: Target, source: object, options: CompileOptions,
                    early_generic: bool = False) -> object:
    """``source`` (MLIR text, a path or a ModuleOp) compiled for ``target``. ``early_generic``
    (``xmux.compile`` without ``wait``): a CPU program with native specialization constants
    has its generic form queued before its own LLVM build, so both builds run at once."""
    options.check_target(target)
    target.prepare(options)
    text, module, name = read_source(source)
    key, use_cache = None, bool(options.cache) and not options.inspects
    if use_cache and text is not None:
        key = target.cache_key(options, text)
        use_cache = key is not None  # None: a pipeline that cannot be keyed
        if key is not None:
            program = _cached(target, key, text, options)
            if program is not None:
                program.pass_timings = None  # type: ignore[attr-defined] - no pass ran
                return program
    elif use_cache:  # a ModuleOp: its LLVM build is still cached, keyed on the IR
        use_cache = options.key(target) is not None
    source_for_variants = text if text is not None else module.clone()  # type: ignore[union-attr]
    if module is None:
        from xmux.stages import parse

        module = parse(text, name, locations=options.debug)  # type: ignore[arg-type]
    if options.debug:
        from xmux.lowering.locations import mark_debug

        mark_debug(module)  # type: ignore[arg-type]
    return _build(target, module, source_for_variants, key, use_cache, options, early_generic)


def _cached(target: Target, key: str, text: str, options: CompileOptions) -> object | None:
    """The program cached under ``key``, or None (also for a record of another shape)."""
    from xmux.runtime import jit

    hit = target.lookup(key)
    if hit is None:
        return None
    infos_json: str = hit.kernel_infos_json  # type: ignore[attr-defined]
    table = _spec.load_table(key, jit.default_cache_dir())
    if table is None and _spec.may_have_markers(text):
        return None  # the object without its table: compile again
    try:
        infos = load_kernel_infos(infos_json)
    except (TypeError, ValueError, KeyError, AttributeError):
        return None
    spec = _spec.SpecState(table, key, infos_json, True) if table is not None else None
    build = Build(hit, infos, spec, None, text, lambda: options.passes(target), key, True)
    return target.load(build, options)


def _build(target: Target, module: object, source: object, key: str | None,
           use_cache: bool, options: CompileOptions, early_generic: bool = False) -> object:
    """Compile ``module`` (parsed) for ``target``; ``source`` is kept for rebuilds."""
    from xmux.kernel_info import collect_kernel_infos
    from xmux.runtime import jit
    from xmux.stages import Inspection, run_pipeline

    passes = options.passes(target)
    collector = _spec.Collector()
    inspect = Inspection.of(options)
    with _locations(options.debug):
        run_pipeline(module, passes, collector, True if options.checks else None, inspect)  # type: ignore[arg-type]
    infos = collect_kernel_infos(module)  # type: ignore[arg-type]
    if not infos:
        raise XmuxError(
            "the module has no entry-point kernel: mark one with attributes "
            '{mux.kernel = "entry_point"} or run encode-kernel-metadata{kernel-name=...}'
        )
    ir = target.emit(module)  # type: ignore[arg-type]
    table = collector.table
    native = table if table is not None and table.mode == "native" else None
    if native is not None:
        if collector.defined_leaves:
            raise XmuxError(
                "xmux.compile: the pipeline defines the specialization constants' leaf "
                f"globals (@\"{collector.defined_leaves[0]}\", ...) with their defaults, so "
                "no value could be set; lower them with convert-spec-to-llvm"
                f"{{declare-leaves=true}} (xmux.pipelines.{target.name}() does in native mode)"
            )
        target.specialize(native, ir)
    if table is not None and key is not None:  # before the object: a hit has both
        _spec.save_table(key, table, jit.default_cache_dir())
    infos_json = dump_kernel_infos(infos)
    spec = _spec.SpecState(table, key, infos_json, use_cache) if table is not None else None
    beside = None
    if early_generic and spec is not None and target.name == "cpu" and table.kernels:  # type: ignore[union-attr]
        beside = spec.build_generic_beside()
    artifact = target.build(ir, infos_json, key, use_cache, native)
    if beside is not None:
        beside.join()
    build = Build(artifact, infos, spec, ir, source, lambda: passes, key, use_cache)
    program = target.load(build, options)
    program.pass_timings = inspect.timings if inspect is not None else None  # type: ignore[attr-defined]
    return program


def _locations(debug: bool) -> AbstractContextManager[None]:
    """Debug builds: the passes hand each op's source location to the ops they make."""
    if not debug:
        return nullcontext()
    from xmux.lowering.locations import keep_locations

    return keep_locations()


def cache_key(target: Target, options: CompileOptions, source_text: str,
              tools: str) -> str | None:
    """The key of ``source_text`` compiled for ``target``: a hash of the text, the target
    (name and ``attribute()``: triple, chip, features, vector unit), ``tools`` (what else
    the target's code depends on: LLVM's version), the options (``CompileOptions.key``)
    and xmux's own code. None when the options cannot be keyed."""
    options_key = options.key(target)
    if options_key is None:
        return None
    h = hashlib.sha256()
    parts = (source_text, target.name, repr(target.attribute()), tools, options_key,
             code_hash())
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


#: the folders of xmux's own code (pyproject's package-dir)
_CODE_DIRS = ("xmux", "abi", "dialects", "transforms", "lowering", "runtime")


@cache
def code_hash() -> str:
    """Hash of xmux's own sources: a changed pass must not reuse stale cached objects
    (``source_digest`` of this package, memoized in the disk cache)."""
    from xmux.runtime.jit import default_cache_dir

    return source_digest(Path(__file__).resolve().parent.parent.parent, default_cache_dir())


def source_digest(root: Path, cache_dir: Path | None) -> str:
    """The sha256 of the ``.py`` files of xmux's folders under ``root`` (names and contents).

    Reading and hashing the ~2 MB of sources costs ~8 ms, a third of a warm start, so a
    record in ``cache_dir`` (``code/<stamp>.json``, sealed) maps the files' *stamp* (each
    file's path, size, mtime_ns and inode: one ``stat`` each, ~1 ms) to their digest,
    computed on the stamp's first use. Any write to a file, an editor's replace-by-rename,
    an added, removed or renamed file gives a new stamp, hence the digest again: a touched
    file with the same content keeps its cached objects, a changed one cannot reuse them.
    A change the stamp misses needs a file rewritten in place to the same size within one
    tick of the file system's clock (a few ms), or its mtime set back on purpose; Python's
    own check of a .pyc against its source (mtime in seconds, and size) misses those too."""
    from xmux.runtime import disk_cache

    files = _code_files(root)
    stamp = hashlib.sha256("".join(
        f"{rel}\0{size}\0{mtime}\0{ino}\n" for rel, _, size, mtime, ino in files).encode()
    ).hexdigest()
    memo = cache_dir / "code" / f"{stamp}.json" if cache_dir is not None else None
    record = disk_cache.read_sealed(memo) if memo is not None else None
    digest = record.get("code_sha256") if record is not None else None
    if isinstance(digest, str) and len(digest) == 64:
        return digest
    h = hashlib.sha256()
    for rel, path, _, _, _ in files:
        h.update(rel.encode())
        h.update(b"\0")
        h.update(Path(path).read_bytes())
    digest = h.hexdigest()
    if memo is not None:
        disk_cache.write_atomic(memo, disk_cache.dumps_sealed({"code_sha256": digest}))
    return digest


def _code_files(root: Path) -> list[tuple[str, str, int, int, int]]:
    """(path relative to ``root``, path, size, mtime_ns, inode) of every ``.py`` file of
    xmux's code, sorted by relative path."""
    import os

    out: list[tuple[str, str, int, int, int]] = []
    skip = len(str(root)) + 1

    def scan(folder: str) -> None:
        with os.scandir(folder) as entries:
            for e in entries:
                if e.name.endswith(".py") and e.is_file():
                    st = e.stat()
                    out.append((e.path[skip:], e.path, st.st_size,
                                st.st_mtime_ns, st.st_ino))
                elif e.is_dir() and e.name != "__pycache__":
                    scan(e.path)

    for sub in _CODE_DIRS:
        if (root / sub).is_dir():
            scan(str(root / sub))
    out.sort()
    return out
