"""A mutation fuzzer over the project's own MLIR (issue 36): bad input must get a clear error.

The corpus is ``examples/**/*.mlir`` and the inputs of ``tests/filecheck/**/*.mlir`` (full-line
``//`` comments stripped: RUN and CHECK lines are comments to the parser). A mutant is a corpus
file with one to three token- or line-level edits of the kind a user makes by hand: a line
deleted, duplicated or moved, an integer literal made extreme, a type or a memref shape
changed, an SSA value or symbol renamed to something undefined, the file truncated, an op
replaced by a sibling of its dialect, an attribute value changed, a terminator or bracket
dropped. Each mutant runs, each in a process of its own with a timeout, through

- ``xmux-opt`` with the pass list of the file's first ``xmux-opt %s`` RUN line (examples: the
  CPU pipeline, without attach-target);
- ``xmux-run`` when the source has a host ``func.func @main`` (not for the nvptx tests);
- ``xmux.compile(path, cache=False)`` in a child (``python -m tests.fuzz.mutate --child-compile
  FILE``), which prints a user error as the CLIs do and lets anything else escape.

Outcomes per tool: ``ok`` (exit 0), ``error`` (non-zero exit with a message and no traceback),
and the failures ``TRACEBACK`` (a Python traceback on stderr), ``CRASH`` (killed by a signal
or a fatal error of the interpreter), ``HANG`` (past the timeout) and ``SILENT`` (a non-zero
exit with nothing said). ``xmux-run`` past its timeout while ``xmux.compile`` of the same
mutant finished is ``run-timeout``: the program's own loop made endless by a mutation (a
bound of 2^63-1), not a failure. Failures are grouped by a signature (tool, outcome, the
exception type and the innermost frame) and written to ``--out`` as reproducers
(``<signature-slug>/<seed>-<i>.mlir`` with the commands in a header comment).

By default each run is a child forked from this process once it has imported xmux, every
pass and dialect (the tools' ``main`` functions run in it as their scripts would, as
``tests/lit_server.py`` does: no Python start-up per run); ``--exec`` runs the installed
scripts instead. ``python -m tests.fuzz.mutate --mutants 300 --seed 0 --jobs 2 --summary
bench/x.json`` runs a campaign; ``tests/test_fuzz_mutants.py`` runs a fixed slice. Mutant
``i`` of a seed depends on the corpus, so on the tree: ``--results`` keeps each mutant's text.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
FAILURES = ("TRACEBACK", "CRASH", "HANG", "SILENT")
#: the CPU pipeline for files without an xmux-opt RUN line (attach-target is left out: it
#: names the host's features, a line of several kilobytes in every reproducer)
DEFAULT_PIPELINE = (
    "gpu-launch-outlining,convert-gpu-to-mux,convert-acc-to-oacc,lower-generic-atomic-rmw,"
    "transfer-kernel-metadata,record-kernel-abi,lower-spec-constants,"
    "expand-oacc-reductions{expansion=cpu},convert-mux-launch,prepare-barriers,"
    "lower-kernel-asserts,lower-sub-group-collectives,lower-work-group-collectives,"
    "vectorize-local-reduction-trees,work-item-loops,hoist-uniform-loads,"
    "work-item-loop-interchange,work-item-unroll-and-jam,work-item-loop-vectorize-hints,"
    "replace-local-module-scope-variables,define-mux-builtins,privatize-global-atomics,"
    "add-kernel-wrapper,add-entry-hook,convert-spec-to-llvm{declare_leaves=true},"
    "convert-to-llvm"
)
#: xmux-opt flags kept from a RUN line (the others check output or need annotations)
KEPT_FLAGS = ("--print-op-generic", "--allow-unregistered-dialect", "--acc-syntax")

# ---------------------------------------------------------------------------------------
# Corpus
# ---------------------------------------------------------------------------------------


@dataclass
class Seedfile:
    """A corpus file: its source without comments and how each tool runs it."""

    path: str  # relative to ROOT
    text: str
    opt_args: list[str]  # xmux-opt arguments besides the file
    run: bool  # xmux-run applies (a host @main, not an nvptx test)


def _strip_comments(text: str) -> str:
    return "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("//")) + "\n"


def _opt_args(runs: list[str]) -> list[str] | None:
    """xmux-opt's arguments from the first RUN line that runs it on the file, [] for none,
    None when the file is not worth fuzzing that way (split input, expected diagnostics)."""
    for run in runs:
        words = shlex.split(run.split("|")[0])
        if words[:1] == ["not"]:
            words = words[1:]
        if words[:1] != ["xmux-opt"] or "%s" not in words:
            continue
        if "--split-input-file" in words or "--verify-diagnostics" in words:
            return None
        args: list[str] = []
        it = iter(words[1:])
        for w in it:
            if w in ("-p", "--passes"):
                args += ["-p", next(it, "")]
            elif w.startswith("-p") and len(w) > 2:
                args += ["-p", w[2:]]
            elif w.split("=")[0] in KEPT_FLAGS:
                args.append(w)
        return args
    return []


def load_corpus() -> list[Seedfile]:
    files = sorted((ROOT / "examples").rglob("*.mlir")) + sorted(
        (ROOT / "tests" / "filecheck").rglob("*.mlir"))
    out: list[Seedfile] = []
    for f in files:
        if "Output" in f.parts or "inputs" in f.parts:
            continue
        raw = f.read_text()
        runs = [ln.split("RUN:", 1)[1].strip() for ln in raw.splitlines() if "RUN:" in ln]
        if any(r.startswith("env ") for r in runs):
            continue  # an environment of its own (an nvptx arch, a debug switch)
        args = _opt_args(runs)
        if args is None:
            continue
        rel = str(f.relative_to(ROOT))
        if not args and not any("xmux-opt" in r for r in runs):
            args = ["-p", DEFAULT_PIPELINE]  # examples and run-only tests: the pipeline
        nvptx = "nvptx" in rel or any("nvptx" in r for r in runs)
        text = _strip_comments(raw)
        host = re.search(r"func\.func\s+@main\s*\(\s*\)", text) is not None
        out.append(Seedfile(rel, text, args, host and not nvptx))
    return out


# ---------------------------------------------------------------------------------------
# Mutations (text level)
# ---------------------------------------------------------------------------------------

EXTREMES = ["0", "-1", "1", "2147483648", "-2147483649", "4294967296",
            "9223372036854775807", "-9223372036854775808", "18446744073709551616",
            "340282366920938463463374607431768211456", "99999999999999999999999999999"]
TYPES = ["i1", "i8", "i16", "i32", "i64", "index", "f16", "f32", "f64"]
INT_RE = re.compile(r"(?<![\w%@#.^\-])-?\d+(?![\w.])")
TYPE_RE = re.compile(r"(?<![\w%@#.])(?:i1|i8|i16|i32|i64|index|f16|f32|f64)(?![\w.])")
MEMREF_RE = re.compile(r"memref<([^<>]*?)x(i\d+|f\d+|index)([,>])")
SSA_RE = re.compile(r"%[\w$.]+")
SYM_RE = re.compile(r"@[\w$.]+")
OP_RE = re.compile(r"\b([a-z_]+)\.([a-z_][\w.]*)\b(?=[\s(<{\"%@]|$)")
STRING_RE = re.compile(r'"[^"\n]*"')
TERMINATORS = ("func.return", "scf.yield", "gpu.terminator", "gpu.return", "cf.br",
               "llvm.return", "acc.yield", "acc.terminator", "scf.condition", "return",
               "memref.atomic_yield", "scf.reduce", "cf.cond_br", "llvm.br")
ATTR_VALUES = ['""', '"kernel"', '"entry_point"', '"nope"', "0", "-1", "true", "unit",
               "array<i64>", "array<i64: 0, 0, 0>", "array<i64: -1>",
               "array<i64: 4294967296, 1, 1>", "array<i32: 1, 2>", "[]", "{}", "@missing",
               "dense<0> : tensor<0xi32>", "1.5 : f32"]


def _sub_at(text: str, m: re.Match[str], new: str) -> str:
    return text[: m.start()] + new + text[m.end():]


def _pick(rng: random.Random, pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    ms = list(pattern.finditer(text))
    return rng.choice(ms) if ms else None


def _lines(text: str) -> list[str]:
    return text.splitlines()


def _code_lines(lines: list[str]) -> list[int]:
    return [i for i, ln in enumerate(lines) if ln.strip()]


def m_delete_line(rng: random.Random, text: str, _: list[str]) -> str | None:
    lines = _lines(text)
    idx = _code_lines(lines)
    if not idx:
        return None
    del lines[rng.choice(idx)]
    return "\n".join(lines) + "\n"


def m_duplicate_line(rng: random.Random, text: str, _: list[str]) -> str | None:
    lines = _lines(text)
    idx = _code_lines(lines)
    if not idx:
        return None
    i = rng.choice(idx)
    lines.insert(i + rng.choice([0, 1, 2]), lines[i])
    return "\n".join(lines) + "\n"


def m_swap_lines(rng: random.Random, text: str, _: list[str]) -> str | None:
    lines = _lines(text)
    idx = _code_lines(lines)
    if len(idx) < 2:
        return None
    k = rng.randrange(len(idx) - 1)
    j = idx[min(k + rng.choice([1, 1, 2, 3]), len(idx) - 1)]
    i = idx[k]
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines) + "\n"


def m_int_extreme(rng: random.Random, text: str, _: list[str]) -> str | None:
    m = _pick(rng, INT_RE, text)
    return None if m is None else _sub_at(text, m, rng.choice(EXTREMES))


def m_change_type(rng: random.Random, text: str, _: list[str]) -> str | None:
    m = _pick(rng, TYPE_RE, text)
    if m is None:
        return None
    new = rng.choice([t for t in TYPES if t != m.group()])
    if rng.random() < 0.4:  # every occurrence on that line: the line stays self-consistent
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        line = re.sub(rf"(?<![\w%@#.]){m.group()}(?![\w.])", new, text[start:end])
        return text[:start] + line + text[end:]
    return _sub_at(text, m, new)


def m_memref_shape(rng: random.Random, text: str, _: list[str]) -> str | None:
    m = _pick(rng, MEMREF_RE, text)
    if m is None:
        return None
    dims = m.group(1).split("x") if m.group(1) else []
    choice = rng.randrange(5)
    if choice == 0 or not dims:
        dims = dims + [rng.choice(["?", "4", "1"])]  # one more rank
    elif choice == 1:
        dims = dims[:-1]  # one less
    elif choice == 2:
        i = rng.randrange(len(dims))
        dims[i] = "?" if dims[i] != "?" else rng.choice(["0", "3", "4096"])
    elif choice == 3:
        dims[rng.randrange(len(dims))] = rng.choice(["0", "2147483648", "9223372036854775807"])
    else:
        dims = []  # rank 0
    inner = "x".join(dims)
    new = f"memref<{inner}x{m.group(2)}{m.group(3)}" if dims else (
        f"memref<{m.group(2)}{m.group(3)}")
    return _sub_at(text, m, new)


def m_rename_ssa(rng: random.Random, text: str, _: list[str]) -> str | None:
    ms = list(SSA_RE.finditer(text))
    if not ms:
        return None
    m = rng.choice(ms)
    names = sorted({x.group() for x in ms} - {m.group()})
    if names and rng.random() < 0.5:
        return _sub_at(text, m, rng.choice(names))  # another value: likely a type clash
    return _sub_at(text, m, m.group() + "_undef")


def m_rename_symbol(rng: random.Random, text: str, _: list[str]) -> str | None:
    ms = list(SYM_RE.finditer(text))
    if not ms:
        return None
    m = rng.choice(ms)
    names = sorted({x.group() for x in ms} - {m.group()})
    if names and rng.random() < 0.3:
        return _sub_at(text, m, rng.choice(names))
    return _sub_at(text, m, m.group() + "_x")


def m_truncate(rng: random.Random, text: str, _: list[str]) -> str | None:
    if len(text) < 2:
        return None
    if rng.random() < 0.5:
        lines = _lines(text)
        return "\n".join(lines[: rng.randrange(1, len(lines))]) + "\n"
    return text[: rng.randrange(1, len(text))]


#: ops of one syntax: a sibling keeps the file parseable, so the passes see it
SIBLINGS = [
    "arith.addi arith.subi arith.muli arith.divsi arith.divui arith.remsi arith.remui "
    "arith.andi arith.ori arith.xori arith.shli arith.shrsi arith.shrui arith.maxsi "
    "arith.minsi arith.maxui arith.minui arith.ceildivsi arith.floordivsi",
    "arith.addf arith.subf arith.mulf arith.divf arith.remf arith.maximumf arith.minimumf "
    "arith.maxnumf arith.minnumf",
    "arith.extsi arith.extui arith.trunci arith.index_cast arith.index_castui arith.sitofp "
    "arith.uitofp arith.fptosi arith.fptoui arith.extf arith.truncf arith.bitcast",
    "mux.get_global_id mux.get_local_id mux.get_group_id mux.get_num_groups "
    "mux.get_global_size mux.get_local_size mux.get_enqueued_local_size "
    "mux.get_global_offset",
    "mux.work_group_barrier mux.sub_group_barrier",
    "mux.work_group_reduce mux.work_group_scan_inclusive mux.work_group_scan_exclusive "
    "mux.sub_group_reduce mux.sub_group_scan_inclusive mux.sub_group_scan_exclusive",
    "mux.work_group_any mux.work_group_all mux.sub_group_any mux.sub_group_all",
    "gpu.thread_id gpu.block_id gpu.block_dim gpu.grid_dim",
    "scf.yield func.return gpu.return gpu.terminator acc.yield",
    "math.sqrt math.exp math.log math.absf math.sin math.cos math.floor",
    "acc.parallel acc.serial acc.kernels",
    "acc.copyin acc.create acc.present acc.copyout",
    "memref.alloc memref.alloca",
]


def m_sibling_op(rng: random.Random, text: str, vocab: list[str]) -> str | None:
    groups = [g.split() for g in SIBLINGS]
    known = {op for g in groups for op in g}
    ms = [m for m in OP_RE.finditer(text) if m.group() in vocab or m.group() in known]
    grouped = [m for m in ms if m.group() in known]
    if grouped and rng.random() < 0.85:
        ms = grouped
    if not ms:
        return None
    m = rng.choice(ms)
    sibs = [op for g in groups if m.group() in g for op in g if op != m.group()]
    if not sibs or rng.random() < 0.1:  # any op of the dialect: mostly a parse error
        dialect = m.group(1) + "."
        sibs = [v for v in vocab if v.startswith(dialect) and v != m.group()]
    return None if not sibs else _sub_at(text, m, rng.choice(sibs))


def m_retype_all(rng: random.Random, text: str, _: list[str]) -> str | None:
    """One type made another throughout the file: usually still well-typed, so it reaches
    the passes (f32 kernels as f16, i32 as i1, index as i32)."""
    present = sorted({m.group() for m in TYPE_RE.finditer(text)})
    if not present:
        return None
    old = rng.choice(present)
    new = rng.choice([t for t in TYPES if t != old])
    return re.sub(rf"(?<![\w%@#.]){old}(?![\w.])", new, text)


def m_attr_value(rng: random.Random, text: str, _: list[str]) -> str | None:
    # `name = value` inside an attribute dictionary or a property, or a string literal
    pat = re.compile(r"(\b[\w.]+\s*=\s*)(\"[^\"\n]*\"|array<[^>]*>|-?\d+(?:\.\d+)?|true|false"
                     r"|@[\w.]+|#[\w.]+<[^>\n]*>|\[[^\]\n]*\])")
    ms = list(pat.finditer(text))
    if ms and rng.random() < 0.8:
        m = rng.choice(ms)
        if rng.random() < 0.2:  # the whole entry gone
            return text[: m.start()] + "unused_attr" + text[m.end():]
        return _sub_at(text, m, m.group(1) + rng.choice(ATTR_VALUES))
    m = _pick(rng, STRING_RE, text)
    return None if m is None else _sub_at(text, m, rng.choice(['""', '"x"', '"\\00"']))


def m_drop_terminator(rng: random.Random, text: str, _: list[str]) -> str | None:
    lines = _lines(text)
    idx = [i for i, ln in enumerate(lines) if ln.split() and ln.split()[0] in TERMINATORS]
    if not idx:
        return None
    del lines[rng.choice(idx)]
    return "\n".join(lines) + "\n"


#: kernel attributes a user writes by hand, with values out of their range
KERNEL_ATTRS = {
    "mux.reqd_work_group_size": ["array<i64: 0, 1, 1>", "array<i64: 4, 4>",
                                 "array<i64: 4294967296, 1, 1>", "array<i64: -1, 1, 1>",
                                 "array<i64: 1024, 1024, 1024>", "array<i32: 4, 1, 1>", "4"],
    "mux.work_item_order": ["array<i64: 0, 0, 1>", "array<i64: 3, 1, 0>", "array<i64: 0, 1>",
                            '"zyx"', "array<i64: -1, 1, 2>"],
    "mux.max_work_dim": ["0", "4", "-1", "9223372036854775807", "2 : i8", '"2"'],
    "mux.reqd_sub_group_size": ["0", "-1", "3", "4294967296", "1024", "array<i64: 4>"],
    "mux.kernel": ['"entry_point"', '"kernel"', '""', "unit", "1"],
}


def m_kernel_attr(rng: random.Random, text: str, _: list[str]) -> str | None:
    """A mux kernel attribute set (or reset) to a value out of its range."""
    key = rng.choice(sorted(KERNEL_ATTRS))
    value = rng.choice(KERNEL_ATTRS[key])
    m = _pick(rng, re.compile(rf"{re.escape(key)}\s*=\s*(array<[^>]*>|\"[^\"]*\"|[-\w]+"
                              r"(?:\s*:\s*i\d+)?)"), text)
    if m is not None:
        return _sub_at(text, m, f"{key} = {value}")
    m = _pick(rng, re.compile(r"attributes\s*\{"), text)  # a func with attributes: one more
    if m is None:
        return None
    return _sub_at(text, m, m.group() + f"{key} = {value}, ")


def m_drop_bracket(rng: random.Random, text: str, _: list[str]) -> str | None:
    ms = list(re.finditer(r"[{}()<>\[\],:=]", text))
    if not ms:
        return None
    m = rng.choice(ms)
    return text[: m.start()] + text[m.end():]


MUTATIONS = {
    "delete_line": m_delete_line,
    "duplicate_line": m_duplicate_line,
    "swap_lines": m_swap_lines,
    "int_extreme": m_int_extreme,
    "change_type": m_change_type,
    "retype_all": m_retype_all,
    "memref_shape": m_memref_shape,
    "rename_ssa": m_rename_ssa,
    "rename_symbol": m_rename_symbol,
    "truncate": m_truncate,
    "sibling_op": m_sibling_op,
    "attr_value": m_attr_value,
    "drop_terminator": m_drop_terminator,
    "drop_bracket": m_drop_bracket,
    "kernel_attr": m_kernel_attr,
}
#: relative weights: the edits that keep a file parseable more often are tried more
WEIGHTS = {"int_extreme": 6, "retype_all": 3, "sibling_op": 4, "attr_value": 3,
           "kernel_attr": 3, "rename_symbol": 2, "drop_terminator": 2, "swap_lines": 2,
           "delete_line": 2}


def vocabulary(corpus: list[Seedfile]) -> list[str]:
    """Op names seen in the corpus (sibling_op's choices)."""
    names: set[str] = set()
    for f in corpus:
        for ln in f.text.splitlines():
            s = ln.strip()
            s = s.split("=", 1)[1].strip() if s.startswith("%") and "=" in s else s
            m = re.match(r"([a-z_]+\.[a-z_][\w.]*)", s)
            if m and not m.group(1).startswith(("memref.global", "builtin.module")):
                names.add(m.group(1))
    return sorted(names)


@dataclass
class Mutant:
    seed: int
    index: int
    source: str  # corpus path
    edits: list[str]
    text: str
    opt_args: list[str]
    run: bool


def make_mutant(seed: int, index: int, corpus: list[Seedfile], vocab: list[str]) -> Mutant:
    """Mutant ``index`` of campaign ``seed``: the same every time, whatever the job count."""
    rng = random.Random(f"xmux-mutate:{seed}:{index}")
    # examples are whole programs (all three tools): drawn about a quarter of the time
    examples = [f for f in corpus if f.path.startswith("examples/")]
    pool = examples if examples and rng.random() < 0.25 else corpus
    base = rng.choice(pool)
    names = list(MUTATIONS)
    weights = [WEIGHTS.get(n, 1) for n in names]
    text, edits = base.text, []
    for _ in range(rng.choice([1, 1, 1, 1, 2, 3])):
        for _attempt in range(8):
            name = rng.choices(names, weights)[0]
            new = MUTATIONS[name](rng, text, vocab)
            if new is not None and new != text:
                text, edits = new, edits + [name]
                break
    return Mutant(seed, index, base.path, edits, text, base.opt_args, base.run)


# ---------------------------------------------------------------------------------------
# Running and classifying
# ---------------------------------------------------------------------------------------


@dataclass
class Outcome:
    tool: str
    status: str  # ok | error | run-timeout | TRACEBACK | CRASH | HANG | SILENT
    rc: int | None
    seconds: float
    signature: str = ""
    message: str = ""  # the first line of stderr (or the exception line of a traceback)


ENV = {"XMUX_CACHE": "0", "XMUX_NUM_THREADS": "2", "XMUX_SPIN_US": "0",
       "PYTHONFAULTHANDLER": "1"}


def _limit_memory() -> None:
    import resource

    # a mutated size may ask for terabytes: a MemoryError or a clean error, never the VM's
    # memory (address space, so LLVM's and the thread stacks' reservations count too)
    cap = 8 << 30
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _signature(tool: str, status: str, err: str) -> tuple[str, str]:
    """(signature, message) of a failure: the exception line and the innermost frame."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if status == "TRACEBACK":
        frames = re.findall(r'File "([^"]+)", line \d+, in (\S+)', err)
        exc = next((ln for ln in reversed(lines) if re.match(r"^[\w.]+(Error|Exception|"
                                                          r"Exit|Interrupt)\b", ln)), "")
        exc = exc or (lines[-1] if lines else "")
        where = ""
        for path, fn in reversed(frames):  # the innermost frame in xmux, else in xDSL
            if "/xdsl/" in path or "site-packages" not in path:
                where = f"{Path(path).name}:{fn}"
                break
        return f"{tool}|{status}|{exc.split(':')[0]}|{where}", exc[:300]
    if status == "CRASH":
        fatal = next((ln for ln in lines if "Fatal Python error" in ln), "")
        frames = re.findall(r'File "([^"]+)", line \d+ in (\S+)', err)
        where = f"{Path(frames[0][0]).name}:{frames[0][1]}" if frames else ""
        return f"{tool}|{status}|{fatal[:60]}|{where}", fatal[:300]
    return f"{tool}|{status}", (lines[0] if lines else "")[:300]


def classify(tool: str, rc: int | None, err: str, seconds: float) -> Outcome:
    if rc is None:
        return Outcome(tool, "HANG", None, seconds, f"{tool}|HANG")
    if rc == 0:
        return Outcome(tool, "ok", rc, seconds)
    if rc < 0 or "Fatal Python error" in err:
        status = "CRASH"
    elif "Traceback (most recent call last)" in err:
        status = "TRACEBACK"
    elif not err.strip():
        status = "SILENT"
    else:
        msg = next((ln for ln in err.splitlines() if ln.strip()), "")
        return Outcome(tool, "error", rc, seconds, "", msg[:300])
    sig, msg = _signature(tool, status, err)
    return Outcome(tool, status, rc, seconds, sig, msg)


def _tool_main(tool: str) -> Callable[[list[str]], int]:
    if tool == "xmux-opt":
        from xmux.cli import opt_main

        return opt_main
    if tool == "xmux-run":
        from xmux.cli import run_main

        return run_main
    return lambda argv: child_compile(argv[0])


def warm() -> None:
    """Import the tools, every pass and dialect before forking (no thread, no LLVM yet):
    each forked run then starts as a process that has done its imports."""
    from xmux.cli import pass_options_help
    from xmux.registry import get_all_dialects

    _tool_main("xmux-opt"), _tool_main("xmux-run")
    import xmux.api  # noqa: F401 - what xmux.compile imports

    pass_options_help()
    for load in get_all_dialects().values():
        load()


def _forked_child(tool: str, argv: list[str], err_fd: int) -> None:
    """In the forked child: the tool's main as its console script would run it; never
    returns. An escaping exception prints its traceback, as Python does (exit 1)."""
    import faulthandler
    import traceback

    code = 1
    try:
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.dup2(err_fd, 2)
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the process's own streams
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
        os.environ.update(ENV)
        _limit_memory()
        faulthandler.enable()
        sys.argv = [tool, *argv]
        try:
            code = _tool_main(tool)(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:  # noqa: BLE001 - what the interpreter would print
            traceback.print_exc()
            code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code if isinstance(code, int) else 1)


class Job:
    """One tool run on one mutant file: a forked warm child, or the installed script."""

    def __init__(self, key: tuple[int, str], tool: str, argv: list[str], fork: bool) -> None:
        self.key, self.tool = key, tool
        self.err = tempfile.TemporaryFile()  # noqa: SIM115 - closed in finish()
        self.t0 = time.perf_counter()
        self.proc: subprocess.Popen | None = None
        if fork:
            pid = os.fork()
            if pid == 0:
                _forked_child(tool, argv, self.err.fileno())
            self.pid = pid
        else:
            exe = ([str(BIN / tool)] if tool != "compile" else
                   [sys.executable, "-m", "tests.fuzz.mutate", "--child-compile"])
            self.proc = subprocess.Popen(
                [*exe, *argv], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=self.err, env={**os.environ, **ENV, "PYTHONPATH": str(ROOT)}, cwd=ROOT,
                start_new_session=True, preexec_fn=_limit_memory)
            self.pid = self.proc.pid

    def poll(self) -> int | None | bool:
        """The exit status (negative: a signal), or False while it runs."""
        if self.proc is not None:
            rc = self.proc.poll()
            return False if rc is None else rc
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        if pid == 0:
            return False
        return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)

    def kill(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)  # its own session: the child and its children
        except ProcessLookupError:
            pass
        if self.proc is not None:
            self.proc.wait()
        else:
            os.waitpid(self.pid, 0)

    def finish(self, rc: int | None) -> Outcome:
        self.err.seek(0)
        err = self.err.read().decode("utf-8", "replace")
        self.err.close()
        return classify(self.tool, rc, err, time.perf_counter() - self.t0)


def tool_args(m: Mutant, path: Path) -> dict[str, list[str]]:
    args = {"xmux-opt": [str(path), *m.opt_args]}
    if m.run:
        args["xmux-run"] = [str(path)]
    args["compile"] = [str(path)]
    return args


def run_all(mutants: list[Mutant], jobs: int, timeout: float, work: Path, fork: bool,
            done: Callable[[dict], None]) -> list[dict]:
    """Every tool on every mutant, ``jobs`` runs at once, from this (single-threaded)
    process; ``done`` sees each mutant's result as its last run ends."""
    pending: list[tuple[int, str, list[str]]] = []
    for k, m in enumerate(mutants):
        path = work / f"m{m.seed}-{m.index}.mlir"
        path.write_text(m.text)
        pending += [(k, tool, argv) for tool, argv in tool_args(m, path).items()]
    left = Counter(k for k, _, _ in pending)
    outs: dict[int, dict[str, Outcome]] = {k: {} for k in range(len(mutants))}
    results: dict[int, dict] = {}
    running: list[Job] = []
    pending.reverse()
    while pending or running:
        while pending and len(running) < jobs:
            k, tool, argv = pending.pop()
            running.append(Job((k, tool), tool, argv, fork))
        time.sleep(0.01)
        for job in list(running):
            rc = job.poll()
            if rc is False and time.perf_counter() - job.t0 < timeout:
                continue
            if rc is False:
                job.kill()
                rc = None
            running.remove(job)
            k, tool = job.key
            outs[k][tool] = job.finish(rc)  # type: ignore[arg-type]
            left[k] -= 1
            if left[k] == 0:
                results[k] = _result(mutants[k], outs[k])
                (work / f"m{mutants[k].seed}-{mutants[k].index}.mlir").unlink()
                done(results[k])
    return [results[k] for k in range(len(mutants))]


def _result(m: Mutant, outs: dict[str, Outcome]) -> dict:
    run, comp = outs.get("xmux-run"), outs["compile"]
    if run is not None and run.status == "HANG" and comp.status in ("ok", "error"):
        run.status, run.signature = "run-timeout", ""  # compiled: @main's own loop ran on
    return {"seed": m.seed, "index": m.index, "source": m.source, "edits": m.edits,
            "outcomes": {k: asdict(v) for k, v in outs.items()}, "text": m.text,
            "opt_args": m.opt_args}


def _slug(sig: str) -> str:
    return re.sub(r"[^\w.-]+", "_", sig).strip("_")[:100]


def write_repro(r: dict, out_dir: Path) -> list[str]:
    """Each failing tool's mutant as ``<signature>/<seed>-<index>.mlir``; their paths."""
    paths = []
    for tool, o in r["outcomes"].items():
        if o["status"] not in FAILURES:
            continue
        d = out_dir / _slug(o["signature"])
        d.mkdir(parents=True, exist_ok=True)
        f = d / f"{r['seed']}-{r['index']}.mlir"
        cmd = {"xmux-opt": "xmux-opt %s " + shlex.join(r["opt_args"]),
               "xmux-run": "xmux-run %s",
               "compile": "python -m tests.fuzz.mutate --child-compile %s"}[tool]
        head = [f"// mutant {r['seed']}-{r['index']} of {r['source']}: {', '.join(r['edits'])}",
                f"// {o['status']} in: {cmd}", f"// {o['message']}"]
        f.write_text("\n".join(head) + "\n" + r["text"])
        paths.append(str(f))
    return paths


def campaign(seed: int, n: int, jobs: int, out_dir: Path | None, timeout: float = 20.0,
             start: int = 0, fork: bool = True,
             log: Callable[[str], None] = print) -> list[dict]:
    """Mutants ``start`` .. ``start + n - 1`` of campaign ``seed`` through every tool."""
    corpus = load_corpus()
    vocab = vocabulary(corpus)
    mutants = [make_mutant(seed, i, corpus, vocab) for i in range(start, start + n)]
    if fork:
        warm()

    def done(r: dict) -> None:
        bad = {t: o for t, o in r["outcomes"].items() if o["status"] in FAILURES}
        if bad:
            repro = write_repro(r, out_dir) if out_dir is not None else []
            for t, o in bad.items():
                log(f"[{r['seed']}-{r['index']}] {o['status']} {t} {r['source']} "
                    f"{r['edits']}: {o['message']} {repro}")

    with tempfile.TemporaryDirectory(prefix="xmux-mutate-") as work:
        return run_all(mutants, jobs, timeout, Path(work), fork, done)


def summarise(results: list[dict]) -> dict:
    per_tool: dict[str, Counter] = {}
    per_edit: dict[str, Counter] = {}
    signatures: Counter = Counter()
    examples: dict[str, str] = {}
    for r in results:
        worst = "ok"
        for tool, o in r["outcomes"].items():
            per_tool.setdefault(tool, Counter())[o["status"]] += 1
            if o["status"] in FAILURES:
                signatures[o["signature"]] += 1
                examples.setdefault(o["signature"], f"{r['seed']}-{r['index']} "
                                    f"{r['source']} {r['edits']}: {o['message']}")
                worst = "failure"
        for e in set(r["edits"]):
            per_edit.setdefault(e, Counter())[worst] += 1
    runs = sum(sum(c.values()) for c in per_tool.values())
    return {
        "mutants": len(results),
        "runs": runs,
        "failures": sum(signatures.values()),
        "per_tool": {t: dict(c) for t, c in sorted(per_tool.items())},
        "per_edit": {e: dict(c) for e, c in sorted(per_edit.items())},
        "signatures": [{"signature": s, "count": c, "first": examples[s]}
                       for s, c in signatures.most_common()],
    }


# ---------------------------------------------------------------------------------------
# The compile child and the command line
# ---------------------------------------------------------------------------------------


def child_compile(path: str) -> int:
    """``xmux.compile`` of one file: a user error printed as the CLIs print it (exit 1),
    anything else escapes with its traceback."""
    import xmux
    from xmux.errors import format_error, is_user_error

    try:
        xmux.compile(Path(path), cache=False)
    except Exception as e:
        if not is_user_error(e):
            raise
        print(format_error(e), file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.mutate", description=__doc__.split(
        "\n")[0])
    ap.add_argument("--child-compile", metavar="FILE", help=argparse.SUPPRESS)
    ap.add_argument("--mutants", "--n", type=int, default=100, help="mutants per seed")
    ap.add_argument("--seed", type=int, nargs="+", default=[0], help="campaign seed(s)")
    ap.add_argument("--start", type=int, default=0, help="index of the first mutant")
    ap.add_argument("--jobs", type=int, default=2, help="mutants run at once")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per tool run")
    ap.add_argument("--out", type=Path, default=ROOT / "fuzz-failures" / "mutants",
                    help="folder for the failing mutants")
    ap.add_argument("--summary", type=Path, help="write the summary JSON here")
    ap.add_argument("--results", type=Path, help="write every result (JSON lines) here")
    ap.add_argument("--exec", action="store_true",
                    help="run the installed scripts (a Python start-up each) instead of "
                    "forking a process that has imported xmux")
    args = ap.parse_args(argv)
    if args.child_compile:
        return child_compile(args.child_compile)
    t0 = time.time()
    results: list[dict] = []
    for seed in args.seed:
        results += campaign(seed, args.mutants, args.jobs, args.out, args.timeout, args.start,
                            not args.exec)
    s = summarise(results)
    s.update(seeds=args.seed, mutants_per_seed=args.mutants, start=args.start,
             mode="exec" if args.exec else "fork",
             seconds=round(time.time() - t0, 1), corpus=len(load_corpus()))
    print(json.dumps({k: s[k] for k in ("mutants", "runs", "failures", "per_tool")}, indent=1))
    for sig in s["signatures"]:
        print(f"{sig['count']:4d}  {sig['signature']}\n      {sig['first']}")
    if args.summary:
        args.summary.write_text(json.dumps(s, indent=1) + "\n")
    if args.results:
        with args.results.open("w") as f:
            for r in results:
                f.write(json.dumps(r) + "\n")  # the text too: the corpus may change
    return 1 if s["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
