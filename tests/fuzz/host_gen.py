"""Random host programs for differential testing of the runtimes (issue 36, item 11).

A program is an upstream-style ``gpu.container_module``: a host ``@main`` that allocates a
few ``i32`` buffers, fills them, and runs a sequence of steps, some inside host ``scf.for``
loops:

* ``launch``: a ``gpu.launch_func`` of an elementwise kernel over ``memref.subview``
  windows of the buffers (static offsets 0..2, so kernel parameters carry
  ``strided<[1], offset: k>`` layouts; sometimes cast to a dynamic offset). The kernels are
  legal by construction: each work-item writes element ``i`` of one output window and reads
  element ``i`` of its inputs, which are other buffers, or exactly the output window (in
  place), or three windows of one buffer at offsets 0, 1, 2 (a stencil) into another buffer;
  a bounds check keeps the threads past ``N`` idle (blocks of 1..16 threads, rarely a
  multiple of ``N``);
* ``host_store`` / ``host_update``: the host writes an element between launches
  (``buf[j] = c`` or ``buf[j] = buf[j] + 1``), so the next launch must see it;
* ``host_read``: the host copies an element into a log buffer, so it must see the last
  launch's writes.

The end prints every buffer and the log (``printMemrefI32``). ``expected`` runs the same
steps on numpy (wrapping i32 arithmetic). ``tests/fuzz/host_harness.py`` compares the CPU's
and the GPU's printed results with it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

SIZES = [5, 8, 13, 32, 33, 64]


@dataclass
class Launch:
    kind: str  # axpy | copy | inplace | stencil
    out: tuple[int, int]  # (buffer, offset)
    ins: list[tuple[int, int]]
    c: int
    threads: int
    dynamic: bool  # kernel parameters with a dynamic offset (memref.cast)


@dataclass
class HostStep:
    kind: str  # host_store | host_update | host_read
    buf: int
    index: int
    value: int = 0


@dataclass
class Loop:
    trips: int
    body: list


@dataclass
class Program:
    seed: int
    n: int
    buffers: int
    steps: list = field(default_factory=list)
    reads: int = 0  # slots of the log

    @property
    def length(self) -> int:
        return self.n + 2  # windows of n at offsets 0..2


def _launch(r: random.Random, nb: int) -> Launch:
    kind = r.choice(["axpy", "copy", "inplace", "stencil"])
    threads = r.choice([1, 2, 3, 4, 7, 8, 16])
    dynamic = r.random() < 0.3
    out = (r.randrange(nb), r.randrange(3))
    others = [b for b in range(nb) if b != out[0]]
    c = r.randint(-5, 5)
    if kind == "inplace" or not others:
        return Launch("inplace", out, [out], c, threads, dynamic)
    if kind == "stencil":
        src = r.choice(others)
        return Launch(kind, out, [(src, 0), (src, 1), (src, 2)], c, threads, dynamic)
    if kind == "copy":
        return Launch(kind, out, [(r.choice(others), r.randrange(3))], c, threads, dynamic)
    ins = [(r.choice(others), r.randrange(3)), (r.choice(others), r.randrange(3))]
    return Launch("axpy", out, ins, c, threads, dynamic)


def _steps(r: random.Random, p: Program, depth: int, count: int) -> list:
    steps: list = []
    for _ in range(count):
        roll = r.random()
        if roll < 0.5:
            steps.append(_launch(r, p.buffers))
        elif roll < 0.8:
            kind = r.choice(["host_store", "host_update", "host_read"])
            step = HostStep(kind, r.randrange(p.buffers), r.randrange(p.length),
                            r.randint(-9, 9))
            if kind == "host_read":
                step.value = p.reads  # its slot in the log
                p.reads += 1
            steps.append(step)
        elif depth == 0:
            steps.append(Loop(r.randint(1, 3), _steps(r, p, 1, r.randint(1, 4))))
    return steps


def generate(seed: int) -> Program:
    r = random.Random(seed)
    p = Program(seed, r.choice(SIZES), r.randint(2, 4))
    p.steps = _steps(r, p, 0, r.randint(3, 8))
    if not any(isinstance(s, Launch) for s in _flat(p.steps)):
        p.steps.append(_launch(r, p.buffers))
    return p


def _flat(steps: list) -> list:
    out = []
    for s in steps:
        out += _flat(s.body) if isinstance(s, Loop) else [s]
    return out


def _initial(p: Program) -> list[np.ndarray]:
    return [((np.arange(p.length) * (b + 3) + p.seed % 7) % 97).astype(np.int32)
            for b in range(p.buffers)]


def expected(p: Program) -> list[np.ndarray]:
    """The buffers and the log after ``@main``, by numpy."""
    bufs = _initial(p)
    log = np.zeros(max(p.reads, 1), np.int32)
    n = p.n

    def run(steps: list) -> None:
        with np.errstate(over="ignore"):
            for s in steps:
                if isinstance(s, Loop):
                    for _ in range(s.trips):
                        run(s.body)
                elif isinstance(s, HostStep):
                    if s.kind == "host_store":
                        bufs[s.buf][s.index] = s.value
                    elif s.kind == "host_update":
                        bufs[s.buf][s.index] += np.int32(1)
                    else:
                        log[s.value] = bufs[s.buf][s.index]
                else:
                    ins = [bufs[b][o:o + n].copy() for b, o in s.ins]
                    c = np.int32(s.c)
                    if s.kind == "axpy":
                        res = ins[0] * c + ins[1]
                    elif s.kind == "copy":
                        res = ins[0]
                    elif s.kind == "inplace":
                        res = ins[0] * np.int32(3) + c
                    else:
                        res = ins[0] + np.int32(2) * ins[1] + np.int32(3) * ins[2] + c
                    b, o = s.out
                    bufs[b][o:o + n] = res

    run(p.steps)
    return [*bufs, log]


def _window_type(n: int, offset: int | None) -> str:
    if offset == 0:
        return f"memref<{n}xi32, strided<[1]>>"
    return f"memref<{n}xi32, strided<[1], offset: {'?' if offset is None else offset}>>"


def _kernel(name: str, s: Launch, n: int) -> str:
    params = [("o", s.out[1])] + [(f"x{i}", off) for i, (_, off) in enumerate(s.ins)]
    types = {p: _window_type(n, None if s.dynamic else off) for p, off in params}
    if s.kind == "inplace":
        params = params[:1]
    sig = ", ".join(f"%{p}: {types[p]}" for p, _ in params)
    loads = [p for p, _ in params[1:]] or ["o"]
    body = [f"%v{i} = memref.load %{p}[%i] : {types[p]}" for i, p in enumerate(loads)]
    c = f"%c = arith.constant {s.c} : i32"
    if s.kind == "axpy":
        body += [c, "%m = arith.muli %v0, %c : i32", "%r = arith.addi %m, %v1 : i32"]
    elif s.kind == "copy":
        body += ["%r = arith.addi %v0, %v0 : i32", "%r2 = arith.subi %r, %v0 : i32"]
    elif s.kind == "inplace":
        body += [c, "%k3 = arith.constant 3 : i32", "%m = arith.muli %v0, %k3 : i32",
                 "%r = arith.addi %m, %c : i32"]
    else:
        body += [c, "%k2 = arith.constant 2 : i32", "%k3 = arith.constant 3 : i32",
                 "%a = arith.muli %v1, %k2 : i32", "%b = arith.muli %v2, %k3 : i32",
                 "%s0 = arith.addi %v0, %a : i32", "%s1 = arith.addi %s0, %b : i32",
                 "%r = arith.addi %s1, %c : i32"]
    result = "%r2" if s.kind == "copy" else "%r"
    body.append(f"memref.store {result}, %o[%i] : {types['o']}")
    inner = "\n".join("        " + line for line in body)
    return (f"    gpu.func @{name}({sig}) kernel {{\n"
            f"      %i = gpu.global_id x\n"
            f"      %n = arith.constant {n} : index\n"
            f"      %in = arith.cmpi ult, %i, %n : index\n"
            f"      scf.if %in {{\n{inner}\n      }}\n"
            f"      gpu.return\n    }}")


def mlir(p: Program) -> str:
    """The program's text."""
    n, length = p.n, p.length
    kernels: list[str] = []
    lines: list[str] = []
    views: dict[tuple[int, int], str] = {}
    buf_t = f"memref<{length}xi32>"

    def view(b: int, off: int, dynamic: bool) -> tuple[str, str]:
        views[(b, off)] = f"%w{b}_{off}"  # defined after the buffers (they dominate the uses)
        name, t = views[(b, off)], _window_type(n, off)
        if not dynamic:
            return name, t
        cast_t = _window_type(n, None)
        lines.append(f"    %d{len(lines)} = memref.cast {name} : {t} to {cast_t}")
        return f"%d{len(lines) - 1}", cast_t

    def emit(steps: list, indent: str) -> None:
        for s in steps:
            if isinstance(s, Loop):
                lines.append(f"{indent}scf.for %it{len(lines)} = %c0 to %t{s.trips} step %c1 {{")
                emit(s.body, indent + "  ")
                lines.append(f"{indent}}}")
            elif isinstance(s, HostStep):
                j = f"%j{s.index}"
                if s.kind == "host_store":
                    lines.append(f"{indent}%s{len(lines)} = arith.constant {s.value} : i32")
                    lines.append(f"{indent}memref.store %s{len(lines) - 1}, %b{s.buf}[{j}] : "
                                 f"{buf_t}")
                elif s.kind == "host_update":
                    k = len(lines)
                    lines.append(f"{indent}%u{k} = memref.load %b{s.buf}[{j}] : {buf_t}")
                    lines.append(f"{indent}%v{k} = arith.addi %u{k}, %one : i32")
                    lines.append(f"{indent}memref.store %v{k}, %b{s.buf}[{j}] : {buf_t}")
                else:
                    k = len(lines)
                    lines.append(f"{indent}%u{k} = memref.load %b{s.buf}[{j}] : {buf_t}")
                    lines.append(f"{indent}memref.store %u{k}, %log[%j{s.value}] : "
                                 f"memref<{max(p.reads, 1)}xi32>")
            else:
                name = f"k{len(kernels)}"
                kernels.append(_kernel(name, s, n))
                operands = [view(*s.out, s.dynamic)]
                if s.kind != "inplace":
                    operands += [view(b, o, s.dynamic) for b, o in s.ins]
                blocks = -(-n // s.threads)
                args = ", ".join(f"{v} : {t}" for v, t in operands)
                lines.append(f"{indent}gpu.launch_func @kernels::@{name} blocks in "
                             f"(%t{blocks}, %c1, %c1) threads in (%t{s.threads}, %c1, %c1) "
                             f"args({args})")

    emit(p.steps, "    ")
    consts = sorted({1, 3, length, max(p.reads, 1)}
                    | {s.trips for s in p.steps if isinstance(s, Loop)}
                    | {-(-n // s.threads) for s in _flat(p.steps) if isinstance(s, Launch)}
                    | {s.threads for s in _flat(p.steps) if isinstance(s, Launch)})
    head = ["    %c0 = arith.constant 0 : index", "    %c1 = arith.constant 1 : index",
            "    %one = arith.constant 1 : i32"]
    head += [f"    %t{v} = arith.constant {v} : index" for v in consts]
    head += [f"    %j{v} = arith.constant {v} : index"
             for v in range(max(length, p.reads, 1))]
    for b in range(p.buffers):
        head += [
            f"    %b{b} = memref.alloc() : {buf_t}",
            f"    scf.for %i = %c0 to %t{length} step %c1 {{",
            "      %ii = arith.index_cast %i : index to i32",
            f"      %m = arith.constant {b + 3} : i32",
            f"      %s = arith.constant {p.seed % 7} : i32",
            "      %q = arith.constant 97 : i32",
            "      %x = arith.muli %ii, %m : i32",
            "      %y = arith.addi %x, %s : i32",
            "      %z = arith.remsi %y, %q : i32",
            f"      memref.store %z, %b{b}[%i] : {buf_t}",
            "    }",
        ]
    head += [f"    %w{b}_{off} = memref.subview %b{b}[{off}] [{n}] [1] : {buf_t} to "
             f"{_window_type(n, off)}" for b, off in sorted(views)]
    log_t = f"memref<{max(p.reads, 1)}xi32>"
    head += [f"    %log = memref.alloc() : {log_t}",
             f"    scf.for %i = %c0 to %t{max(p.reads, 1)} step %c1 {{",
             "      %zero = arith.constant 0 : i32",
             f"      memref.store %zero, %log[%i] : {log_t}",
             "    }"]
    tail = []
    for b, t in [*((f"%b{b}", buf_t) for b in range(p.buffers)), ("%log", log_t)]:
        tail.append(f"    %p{b[1:]} = memref.cast {b} : {t} to memref<*xi32>")
        tail.append(f"    func.call @printMemrefI32(%p{b[1:]}) : (memref<*xi32>) -> ()")
    return "\n".join([
        "module attributes {gpu.container_module} {",
        "  gpu.module @kernels {",
        *kernels,
        "  }",
        "  func.func @main() {",
        *head, *lines, *tail,
        "    func.return",
        "  }",
        "  func.func private @printMemrefI32(memref<*xi32>)",
        "}",
    ])


def describe(p: Program) -> str:
    def one(s: object, indent: str) -> list[str]:
        if isinstance(s, Loop):
            return [f"{indent}for {s.trips}:"] + [x for b in s.body for x in one(b, indent + "  ")]
        return [f"{indent}{s}"]

    return "\n".join([f"n={p.n} buffers={p.buffers}"] + [x for s in p.steps
                                                          for x in one(s, "  ")])
