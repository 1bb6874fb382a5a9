"""Kernels made divergent on purpose: does the checking mode report every divergent barrier
the reference interpreter reports (issue 36)?

A mutant is a legal generated kernel (``gen.generate(seed)``) in which the control of one
``scf.if`` / ``scf.for`` / ``scf.while`` holding a work-group barrier or collective is made
to depend on per-work-item data, combined with the original control so that only some
work-items of some groups disagree. The mutation is done on ``gen``'s AST (plain ``Op``
statements inserted before the construct, or in a while's ``before`` block), so the mutant
prints with ``Kernel.mlir()`` and runs in the numpy model like any generated kernel.

Per mutant and launch (a few shapes from ``harness.LAUNCHES``): the interpreter runs it;
when it raises ``DivergentBarrierError`` the mutant is compiled with ``checks=True`` and the
same launch must raise ``xmux.CheckError`` naming a "divergent barrier" (a compile error
naming one counts too: the compile-time check of ``local id == x``). Launches the
interpreter passes run on the compiled kernel as well: a check firing there is a false
alarm. Mutants run in worker subprocesses that announce each phase, so a compiled launch
that hangs is a counted ``hang``, not a stuck campaign. The schedule work-item-loops chose
(``structured`` fission or ``dispatch``, recorded by wrapping ``apply_with_barriers``) is kept
with every result: the run-time check is only emitted by structured fission.

``python -m tests.fuzz.divergent --n 300 --seed 0 --jobs 2`` runs a campaign; misses get a
repro in ``fuzz-failures/divergent/`` (``seed<S>.mlir`` + ``seed<S>.py``, exits 1 while the
check misses it).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import queue
import random
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .gen import Barrier, Coll, For, If, Illegal, Kernel, Op, While, cmp, generate, walk
from .harness import LAUNCHES, ROOT, Run, inputs
from .model import run_model
from .shrink import minimise, skeleton

MESSAGE = "divergent barrier"  # what xmux.CheckError / the compile-time check say

# ---------------------------------------------------------------------------------------
# Targets and mutation (AST level)
# ---------------------------------------------------------------------------------------


@dataclass
class Target:
    """A construct holding a work-group barrier or collective, and where it stands."""

    stmt: If | For | While
    parent: list  # the block (list of statements) holding it
    depth: int  # enclosing constructs
    direct: bool  # a wg barrier / collective directly in one of its blocks (barrier rule)


def _blocks_of(s: Any) -> list[list]:
    if isinstance(s, If):
        return [s.then, s.else_]
    if isinstance(s, For):
        return [s.body]
    if isinstance(s, While):
        return [s.before, s.after]
    return []


def _is_sync(s: Any) -> bool:
    return isinstance(s, (Barrier, Coll)) and s.scope == "wg"


def targets(body: list, depth: int = 0) -> list[Target]:
    out: list[Target] = []
    for s in body:
        blocks = _blocks_of(s)
        if not blocks:
            continue
        if any(_is_sync(x) for b in blocks for x in walk(b)):
            direct = any(_is_sync(x) for b in blocks for x in b)
            out.append(Target(s, body, depth, direct))
        for b in blocks:
            out += targets(b, depth + 1)
    return out


@dataclass
class Mutation:
    kind: str  # if | for | while
    depth: int
    direct: bool
    pred: str  # the per-work-item predicate
    how: str  # how it was combined with the original control
    text: str = ""  # a one-line description for repros


class _Names:
    """Fresh SSA names that cannot clash with the generator's (``%x_N``, ``%c_N``...)."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self, p: str = "dv") -> str:
        self.n += 1
        return f"%{p}{self.n}_m"


def _predicate(r: random.Random, fresh: _Names, ops: list) -> tuple[str, str]:
    """Ops computing an i1 that differs between work-items (for some launches, some groups
    only), appended to ``ops``; returns (its name, a description)."""

    def const(ty: str, v: int) -> str:
        d = fresh("k")
        ops.append(Op(d, ty, "const", imm=v))
        return d

    kind = r.choice(["data-gt", "data-lt", "data-bits", "lid-eq", "lid-ge", "lid-last",
                     "gid-mod", "group-lid", "arg-lid"])
    p = fresh("p")
    if kind == "data-gt":  # a[gid] is in [-100, 100): a few work-items
        t = r.choice([60, 85, 95])
        ops.append(cmp(p, "sgt", "%v", const("i32", t), "i32"))
        return p, f"a[gid] > {t}"
    if kind == "data-lt":
        t = r.choice([-60, -85, -95])
        ops.append(cmp(p, "slt", "%v", const("i32", t), "i32"))
        return p, f"a[gid] < {t}"
    if kind == "data-bits":
        m, k = r.choice([(7, 3), (15, 0), (3, 1)])
        b = fresh()
        ops.append(Op(b, "i32", "and", ["%v", const("i32", m)]))
        ops.append(cmp(p, "eq", b, const("i32", k), "i32"))
        return p, f"(a[gid] & {m}) == {k}"
    if kind == "lid-eq":
        k = r.choice([0, 1, 2, 3, 6])
        ops.append(cmp(p, "eq", "%lidi", const("i32", k), "i32"))
        return p, f"lid == {k}"
    if kind == "lid-ge":
        k = r.choice([1, 2, 3, 5, 9])
        ops.append(cmp(p, "sge", "%lidi", const("i32", k), "i32"))
        return p, f"lid >= {k}"
    if kind == "lid-last":
        n, m = fresh(), fresh()
        ops.append(Op(n, "i32", "toi32", ["%n"]))
        ops.append(Op(m, "i32", "sub", [n, const("i32", 1)]))
        ops.append(cmp(p, "eq", "%lidi", m, "i32"))
        return p, "lid == group size - 1"
    if kind == "gid-mod":
        m, k = r.choice([(5, 0), (7, 3), (11, 10)])
        g, x = fresh(), fresh()
        ops.append(Op(g, "i32", "toi32", ["%gid"]))
        ops.append(Op(x, "i32", "remu", [g], m))
        ops.append(cmp(p, "eq", x, const("i32", k), "i32"))
        return p, f"gid % {m} == {k}"
    if kind == "group-lid":  # only group (1, *, *) disagrees
        q, gi, c1, c2 = fresh("q"), fresh(), fresh("c"), fresh("c")
        ops.append(Op(q, "index", "q", [], ("get_group_id", 0)))
        ops.append(Op(gi, "i32", "toi32", [q]))
        ops.append(cmp(c1, "eq", gi, const("i32", 1), "i32"))
        ops.append(cmp(c2, "eq", "%lidi", const("i32", r.choice([0, 1])), "i32"))
        ops.append(Op(p, "i1", "and", [c1, c2]))
        return p, "group_id(0) == 1 && lid == 0|1"
    # arg-lid: uniform for some p0 (all or none), divergent for others
    ops.append(cmp(p, "sgt", "%lidi", "%p0", "i32"))
    return p, "lid > p0"


def mutate(k: Kernel, r: random.Random, direct_only: bool = False
           ) -> tuple[Kernel, Mutation] | None:
    """A copy of ``k`` with the control of one barrier construct made per-work-item, or None
    when ``k`` has no such construct. Deeper constructs are picked a little more often, so
    that every nesting depth is seen."""
    k = copy.deepcopy(k)
    ts = targets(k.body)
    direct = [t for t in ts if t.direct]
    nested = [t for t in ts if not t.direct]
    if direct_only:
        ts = direct
    elif nested and (r.random() < 0.2 or not direct):
        # barriers only deeper: not uniform by the barrier rule, so region dispatch (no
        # run-time check there); a fifth of the mutants measure that gap
        ts = nested
    else:
        ts = direct
    if not ts:
        return None
    t = r.choices(ts, [1 + t.depth for t in ts])[0]
    fresh = _Names()
    pre: list = []  # ops inserted right before the construct
    p, pdesc = _predicate(r, fresh, pre)
    s = t.stmt
    if isinstance(s, If):
        how = r.choice(["and", "and", "or", "xor", "replace"])
        if how == "replace":
            s.cond = p
        else:
            c = fresh("c")
            pre.append(Op(c, "i1", how, [s.cond, p]))
            s.cond = c
        m = Mutation("if", t.depth, t.direct, pdesc, how)
    elif isinstance(s, For):
        how = r.choice(["ub+1", "ub+2", "zero-trip", "lb+1", "step+1"])
        if how == "step+1":  # a per-work-item step: work-item-loops normalises the loop
            st2, sel = fresh("b"), fresh("b")
            pre.append(Op(st2, "index", "add", [s.step, "%c1"]))
            pre.append(Op(sel, "index", "select", [p, st2, s.step]))
            s.step = sel
        elif how == "lb+1":
            lb2 = fresh("b")
            pre.append(Op(lb2, "index", "add", [s.lb, "%c1"]))
            sel = fresh("b")
            pre.append(Op(sel, "index", "select", [p, lb2, s.lb]))
            s.lb = sel
        else:
            alt = s.lb
            if how != "zero-trip":
                alt = fresh("b")
                k2 = fresh("k")
                pre.append(Op(k2, "index", "const", imm=int(how[-1])))
                pre.append(Op(alt, "index", "add", [s.ub, k2]))
            sel = fresh("b")
            pre.append(Op(sel, "index", "select", [p, alt, s.ub]))
            s.ub = sel
        m = Mutation("for", t.depth, t.direct, pdesc, f"{how} where p")
    else:
        assert isinstance(s, While)
        how = r.choice(["stop", "stop", "extra"])
        cnt = s.bargs[0]  # the generator's counter: index, from 0, +1 per iteration
        tail: list = []
        new = fresh("c")
        if how == "stop":  # work-items with p leave after j iterations
            j = r.choice([0, 1, 2])
            kj, lt, tr, np_, ok = fresh("k"), fresh("c"), fresh("k"), fresh("c"), fresh("c")
            tail += [Op(kj, "index", "const", imm=j), cmp(lt, "ult", cnt, kj, "index"),
                     Op(tr, "i1", "const", imm=True), Op(np_, "i1", "xor", [p, tr]),
                     Op(ok, "i1", "or", [lt, np_]), Op(new, "i1", "and", [s.cond, ok])]
            how = f"stop after {j} where p"
        else:  # work-items with p run one more iteration than the bound
            first = s.before[0]
            assert isinstance(first, Op) and first.op == "cmp"
            b1, lt, ex = fresh("b"), fresh("c"), fresh("c")
            pre.append(Op(b1, "index", "add", [first.args[1], "%c1"]))
            tail += [cmp(lt, "ult", cnt, b1, "index"), Op(ex, "i1", "and", [p, lt]),
                     Op(new, "i1", "or", [s.cond, ex])]
            how = "one extra iteration where p"
        s.before.extend(tail)
        s.cond = new
        m = Mutation("while", t.depth, t.direct, pdesc, how)
    at = next(i for i, x in enumerate(t.parent) if x is s)
    t.parent[at:at] = pre
    m.text = (f"scf.{m.kind} at depth {m.depth} ({'direct' if m.direct else 'nested'} "
              f"barrier): p = {m.pred}; {m.how}")
    return k, m


def mutant(seed: int, direct_only: bool = False) -> tuple[Kernel, Mutation] | None:
    """The mutant of seed ``seed`` (its kernel: ``generate(seed)``), or None."""
    return mutate(generate(seed), random.Random(seed * 1000003 + 17), direct_only)


def plan_runs(k: Kernel, seed: int, n: int = 3) -> list[Run]:
    """``n`` launches; local size 1 is left out (one work-item cannot diverge)."""
    r = random.Random(seed * 7919 + 5)
    if k.reqd:
        rq = k.reqd
        pool = [(tuple(rq[d] * m[d] for d in range(3)), tuple(rq))
                for m in ((1, 1, 1), (2, 1, 1), (3, 1, 1), (2, 2, 1))]
    else:
        pool = [x for x in LAUNCHES if int(np.prod(x[1])) > 1]
    runs = []
    for g, loc in r.sample(pool, min(n, len(pool))):
        off = tuple(r.randint(0, 5) for _ in g) if r.random() < 0.2 else None
        runs.append(Run("base", g, loc, off, r.choice([None, 1]),
                        (r.randint(-20, 20), r.choice([0, 1, 2, 3, -1, 77, -12345]),
                         r.randint(0, 3), r.randint(0, 3)), r.randrange(2**31)))
    return runs


# ---------------------------------------------------------------------------------------
# One mutant: interpreter, model, compiled launches
# ---------------------------------------------------------------------------------------

_SCHEDULES: dict[str, str] = {}


def record_schedules() -> None:
    """Remember work-item-loops' schedule per kernel (structured / dispatch): the run-time
    check exists only in structured fission."""
    import xmux.transforms.work_item_loops as wil

    if getattr(wil, "_divergent_fuzz", False):
        return
    orig = wil.apply_with_barriers
    why: list[str] = []

    def dump(text: str) -> None:  # the plan dump, kept only for dispatch's reason
        if "region dispatch" in text:
            why.append(text.split("region dispatch", 1)[1].strip(" ()"))

    def wrapped(kernel, dump_plan=False, check_barriers=False):  # type: ignore[no-untyped-def]
        why.clear()
        res = orig(kernel, True, check_barriers)
        name = kernel.sym_name.data
        _SCHEDULES[name] = res if res != "dispatch" else f"dispatch ({'; '.join(why)})"
        return res

    wil._dump = dump
    wil.apply_with_barriers = wrapped
    wil._divergent_fuzz = True  # type: ignore[attr-defined]


@dataclass
class Outcome:
    seed: int
    status: str  # no-target | not-divergent | interp-error | caught | missed | hang | error
    mutation: dict = field(default_factory=dict)
    launches: list = field(default_factory=list)  # per launch: interp, model, compiled
    schedule: str = ""  # structured | dispatch (why) | compile-time | "" (not compiled)
    orig_schedule: str = ""  # misses: the schedule of the legal kernel before mutation
    detail: str = ""
    repro: list = field(default_factory=list)


def _kw(run: Run) -> dict:
    kw: dict[str, Any] = dict(global_size=run.gsize, local_size=run.lsize)
    if run.offset:
        kw["global_offset"] = run.offset
    return kw


def interp_verdict(src: str, name: str, run: Run) -> str:
    """``divergent``, ``ok`` or ``error: <type>`` (another interpreter error first)."""
    import xmux
    from xmux.runtime.interpreter.errors import DivergentBarrierError

    a, out = inputs(run)
    try:
        xmux.interpret(src, name, a, out, *run.scalars, **_kw(run))
    except DivergentBarrierError:
        return "divergent"
    except Exception as e:  # noqa: BLE001 - recorded
        return f"error: {type(e).__name__}: {str(e)[:160]}"
    return "ok"


def model_verdict(k: Kernel, run: Run) -> str:
    """The numpy model's view, for the record: ``divergent`` when a work-group barrier or
    collective is reached by part of a group. The model also stops at a sub-group
    collective under divergent control (the generator never makes one), legal at sub-group
    size 1: that verdict is not compared."""
    a, out = inputs(run)
    try:
        run_model(k, a, out, run.scalars, run.gsize, run.lsize, 1, run.offset)
    except Illegal as e:
        text = str(e)
        if text.startswith("sg collective"):
            return f"n/a: {text}"
        return "divergent" if "reached by" in text else f"illegal: {text}"
    except Exception as e:  # noqa: BLE001 - recorded
        return f"error: {type(e).__name__}"
    return "ok"


def compiled_verdict(kern: Any, run: Run) -> str:
    """``caught`` (CheckError naming a divergent barrier), ``silent`` (no error),
    ``check: ...`` (another check) or ``error: ...``."""
    import xmux

    a, out = inputs(run)
    kw = _kw(run)
    if run.threads:
        kw["threads"] = run.threads
    try:
        kern(a, out, *run.scalars, **kw)
    except xmux.CheckError as e:
        return "caught" if MESSAGE in str(e) else f"check: {str(e)[:200]}"
    except Exception as e:  # noqa: BLE001 - recorded
        return f"error: {type(e).__name__}: {str(e)[:200]}"
    return "silent"


#: ``--vector-width``: work-item-loops' vector + scalar tail schedule for the checked build
VECTOR_WIDTH = int(os.environ.get("XMUX_DIVERGENT_FUZZ_VW", "0"))


def compile_checked(src: str) -> Any:
    import xmux

    return xmux.compile(src, checks=True, cache=False, specialize=False,
                        vector_width=VECTOR_WIDTH)


def run_mutant(seed: int, direct_only: bool = False,
               phase: Callable[[str], None] = lambda p: None,
               all_launches: bool = True) -> Outcome:
    """Check one mutant. ``phase(name)`` is called before each step (the worker reports it,
    so its parent knows what hung). ``all_launches``: also run the launches the interpreter
    passes on the compiled kernel (false alarms)."""
    mm = mutant(seed, direct_only)
    if mm is None:
        return Outcome(seed, "no-target")
    k, m = mm
    res = Outcome(seed, "not-divergent", asdict(m))
    src = k.mlir()
    runs = plan_runs(k, seed)
    verdicts = []
    for i, run in enumerate(runs):
        phase(f"interpret {i}")
        verdicts.append(interp_verdict(src, k.name, run))
        res.launches.append({"gsize": run.gsize, "lsize": run.lsize, "offset": run.offset,
                             "interp": verdicts[-1], "model": model_verdict(k, run)})
    if "divergent" not in verdicts:
        res.status = "interp-error" if any(v.startswith("error") for v in verdicts) \
            else "not-divergent"
        return res
    phase("compile")
    _SCHEDULES.pop(k.name, None)
    try:
        kern = compile_checked(src).kernel(k.name)
    except Exception as e:  # noqa: BLE001
        text = str(e)
        if MESSAGE in text:  # the compile-time check (control comparing the local id)
            res.status, res.schedule = "caught", "compile-time"
            for lr, v in zip(res.launches, verdicts, strict=True):
                if v == "divergent":
                    lr["compiled"] = "caught at compile time"
            return res
        res.status, res.detail = "error", f"compile: {type(e).__name__}: {text[:300]}"
        return res
    res.schedule = _SCHEDULES.get(k.name, "?")
    missed = errors = 0
    for i, (run, v) in enumerate(zip(runs, verdicts, strict=True)):
        if v != "divergent" and not all_launches:
            continue
        phase(f"launch {i}")
        if os.environ.get("XMUX_DIVERGENT_HANG_SEED") == str(seed):  # tests the watchdog
            time.sleep(3600)
        c = compiled_verdict(kern, run)
        res.launches[i]["compiled"] = c
        if v == "divergent":
            missed += c == "silent"
            errors += c != "caught" and c != "silent"
        elif c == "caught" and v == "ok":  # the interpreter ran it all: a false alarm
            res.launches[i]["false_alarm"] = True
    if missed:
        res.status = "missed"
    elif errors:
        res.status = "error"
        res.detail = next(lr["compiled"] for lr in res.launches
                          if lr["interp"] == "divergent" and lr.get("compiled") != "caught")
    else:
        res.status = "caught"
    return res


# ---------------------------------------------------------------------------------------
# Repros of misses
# ---------------------------------------------------------------------------------------

REPRO_PY = '''"""xmux divergent-barrier fuzz repro seed {seed}: the reference interpreter reports a
divergent barrier, the checking mode ({sched}) does not. Run: python {pyname}. Exits 1
while the check misses it."""
import pathlib
import sys

import numpy as np

import xmux
from xmux.runtime.interpreter.errors import DivergentBarrierError

src = pathlib.Path(__file__).with_suffix(".mlir").read_text()
a = np.array({a}, dtype=np.int32)
out0 = np.array({out}, dtype=np.int32)
args = ({scalars})
sizes = dict(global_size={gsize}, local_size={lsize}{offset})
try:
    xmux.interpret(src, "{name}", a, out0.copy(), *args, **sizes)
    print("the interpreter reports nothing: not a repro any more")
except DivergentBarrierError as e:
    print("interpreter:", str(e).splitlines()[0])
kernel = xmux.compile(src, checks=True, cache=False, specialize=False).kernel("{name}")
try:
    kernel(a, out0.copy(), *args, **sizes{threads})
except xmux.CheckError as e:
    print("caught:", str(e).splitlines()[0])
    sys.exit(0)
print("MISSED: the checked launch ran without reporting the divergent barrier")
sys.exit(1)
'''


def write_repro(out_dir: Path, k: Kernel, m: dict, run: Run, schedule: str,
                suffix: str = "", status: str = "missed") -> list[str]:
    out_dir.mkdir(parents=True, exist_ok=True)
    base = out_dir / f"seed{k.seed}{suffix}"  # names built by hand: ".min" is no suffix
    head = [
        f"// xmux divergent-barrier fuzz: seed {k.seed}, {status} (schedule: {schedule})",
        f"// mutation: {m.get('text', '')}",
        f"// launch: global_size={run.gsize} local_size={run.lsize} "
        f"global_offset={run.offset} threads={run.threads}",
        f"// scalars: p0={run.scalars[0]} p1={run.scalars[1]} k0={run.scalars[2]} "
        f"k1={run.scalars[3]}; a, out: see {base.name}.py",
        f"// shape: {skeleton(k.body)}",
    ]
    mlir, py = Path(f"{base}.mlir"), Path(f"{base}.py")
    mlir.write_text("\n".join(head) + "\n" + k.mlir())
    a, out = inputs(run)
    py.write_text(REPRO_PY.format(
        seed=k.seed, sched=schedule, pyname=base.name + ".py", a=a.tolist(),
        out=out.tolist(), scalars=", ".join(map(str, run.scalars)) + ",", gsize=run.gsize,
        lsize=run.lsize, offset=f", global_offset={run.offset}" if run.offset else "",
        name=k.name, threads=f", threads={run.threads}" if run.threads else ""))
    return [str(mlir), str(py)]


def minimise_miss(k: Kernel, run: Run, budget: float,
                  log: Callable[[str], None]) -> tuple[Kernel, str]:
    """The smallest kernel the interpreter calls divergent on ``run`` and the checked build
    runs silently (with its schedule)."""
    last = {"schedule": "?"}

    def still_missed(c: Kernel) -> bool:
        # the model first: shrinking constants can make a loop run away (step 0), which
        # would hang the interpreter and the compiled launch; the model bounds its steps
        if model_verdict(c, run) != "divergent":
            return False
        src = c.mlir()
        if interp_verdict(src, c.name, run) != "divergent":
            return False
        try:
            kern = compile_checked(src).kernel(c.name)
        except Exception:  # noqa: BLE001 - a different failure
            return False
        if compiled_verdict(kern, run) != "silent":
            return False
        last["schedule"] = _SCHEDULES.get(c.name, "?")
        return True

    small = minimise(k, still_missed, budget_s=budget, log=log)
    return small, last["schedule"]


# ---------------------------------------------------------------------------------------
# Workers and campaigns
# ---------------------------------------------------------------------------------------


def worker_main(out_dir: Path, direct_only: bool, minimise_budget: float,
                max_minimise_dispatch: int = 1) -> None:
    """Read seeds (one per line) on stdin; answer ``{"phase": ...}`` lines while working and
    one ``{"result": ...}`` line per seed. Misses in structured fission are all minimised;
    those in region dispatch (no run-time check there by design) only the first
    ``max_minimise_dispatch``: they are many and alike."""
    os.environ.setdefault("XMUX_CACHE", "0")
    os.environ.pop("XMUX_VERIFY_EACH", None)  # a campaign: verification costs a third
    record_schedules()

    def say(obj: dict) -> None:
        print(json.dumps(obj), flush=True)

    dispatch_minimised = 0
    for line in sys.stdin:
        seed = int(line)
        try:
            res = run_mutant(seed, direct_only, phase=lambda p: say({"phase": p}))
            if res.status == "missed":
                k, m = mutant(seed, direct_only)  # type: ignore[misc]
                runs = plan_runs(k, seed)
                i = next(i for i, lr in enumerate(res.launches)
                         if lr["interp"] == "divergent" and lr.get("compiled") == "silent")
                res.repro = write_repro(out_dir, k, res.mutation, runs[i], res.schedule)
                say({"phase": "compile original"})
                orig = generate(seed)
                compile_checked(orig.mlir())
                res.orig_schedule = _SCHEDULES.get(orig.name, "?")
                dispatch = res.schedule.startswith("dispatch")
                if minimise_budget > 0 and (not dispatch or
                                            dispatch_minimised < max_minimise_dispatch):
                    dispatch_minimised += dispatch
                    say({"phase": "minimise", "partial": asdict(res)})
                    small, sched = minimise_miss(k, runs[i], minimise_budget,
                                                 lambda s: print(s, file=sys.stderr))
                    res.repro += write_repro(out_dir, small, res.mutation, runs[i], sched,
                                             ".min")
        except Exception:  # noqa: BLE001 - the harness failed on this seed: report it
            res = Outcome(seed, "error", detail="harness: " + traceback.format_exc()[-600:])
        say({"result": asdict(res)})


#: seconds a phase may take before the worker counts as hung (compile on a loaded VM is slow)
PHASE_TIMEOUT = {"launch": 60.0, "interpret": 240.0, "compile": 300.0}


class _Worker:
    def __init__(self, args: list[str]) -> None:
        self.p = subprocess.Popen(
            [sys.executable, "-m", "tests.fuzz.divergent", "worker", *args], cwd=ROOT,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.q: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            self.q.put(line)
        self.q.put(None)

    def ask(self, seed: int, minimise_budget: float, scale: float) -> tuple[dict, bool]:
        """(the result for ``seed``, whether the worker is still usable). A phase over its
        timeout gives ``hang`` (a compiled launch) or ``timeout``, a dead worker ``crash``;
        a miss keeps its verdict when only its minimisation hangs or dies."""
        assert self.p.stdin is not None
        try:
            self.p.stdin.write(f"{seed}\n")
            self.p.stdin.flush()
        except BrokenPipeError:
            return asdict(Outcome(seed, "crash", detail="worker gone")), False
        phase, partial = "interpret", None
        while True:
            limit = PHASE_TIMEOUT.get(phase.split()[0], minimise_budget * 2 + 120) * scale
            try:
                line = self.q.get(timeout=limit)
            except queue.Empty:
                line, why = None, f"no answer in {limit:.0f}s during {phase}"
            else:
                why = f"worker died during {phase}"
            if line is None:
                if partial is not None:  # the verdict stands; only its minimisation failed
                    partial["detail"] += "minimisation: " + why
                    return partial, False
                what = "crash" if "died" in why else \
                    "hang" if phase.startswith("launch") else "timeout"
                return asdict(Outcome(seed, what, detail=why)), False
            msg = json.loads(line)
            if "phase" in msg:
                phase, partial = msg["phase"], msg.get("partial", partial)
                continue
            return msg["result"], True

    def kill(self) -> None:
        self.p.kill()
        self.p.wait(10)


def pick_seeds(n: int, seed: int, direct_only: bool) -> tuple[list[int], int]:
    """The first ``n`` seeds from ``seed`` whose kernel has a target, and how many seeds
    were skipped for having none."""
    out, s, skipped = [], seed, 0
    while len(out) < n:
        k = generate(s)
        ts = targets(k.body)
        if any(t.direct for t in ts) if direct_only else ts:
            out.append(s)
        else:
            skipped += 1
        s += 1
    return out, skipped


def campaign(seeds: list[int], jobs: int, out_dir: Path, direct_only: bool = False,
             minimise_budget: float = 0.0, scale: float = 1.0, max_minimise_dispatch: int = 1,
             log: Callable[[str], None] = print) -> list[dict]:
    """Run the mutants of ``seeds`` on ``jobs`` workers; one result dict per seed."""
    todo: queue.Queue = queue.Queue()
    for s in seeds:
        todo.put(s)
    wargs = ["--out", str(out_dir), "--minimise", str(minimise_budget),
             "--max-minimise-dispatch", str(max_minimise_dispatch)]
    if direct_only:
        wargs.append("--direct-only")
    results: list[dict] = []
    lock = threading.Lock()
    t0 = time.time()

    def loop() -> None:
        w = _Worker(wargs)
        while True:
            try:
                s = todo.get_nowait()
            except queue.Empty:
                break
            r, alive = w.ask(s, minimise_budget, scale)
            if not alive:
                w.kill()
                w = _Worker(wargs)
            if r["status"] in ("hang", "timeout", "crash"):
                k, m = mutant(s, direct_only)  # type: ignore[misc]
                r["mutation"] = asdict(m)
                if r["status"] == "hang":  # the launch that hung, for a repro
                    i = int(r["detail"].split("during launch ")[1])
                    r["repro"] = write_repro(out_dir, k, r["mutation"], plan_runs(k, s)[i],
                                             "?", status="hang")
            with lock:
                results.append(r)
                if r["status"] not in ("caught", "not-divergent", "no-target"):
                    log(f"  seed {s}: {r['status']} [{r.get('schedule', '')}] "
                        f"{r['mutation'].get('text', '')} {r['detail'][:200]}"
                        + (f"\n    repro: {r['repro'][0]}" if r["repro"] else ""))
                if len(results) % 10 == 0:
                    log(f"[{len(results)}/{len(seeds)}] {time.time() - t0:.0f}s")
        w.kill()

    threads = [threading.Thread(target=loop) for _ in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sorted(results, key=lambda r: r["seed"])


def _tally(xs: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for x in xs:
        out[x] = out.get(x, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def summarise(results: list[dict]) -> dict:
    counts: dict[str, int] = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    compiled = [r for r in results if r["schedule"]]
    div = [r for r in results if any(lr["interp"] == "divergent" for lr in r["launches"])]
    lcount = {"launches": 0, "interp_divergent": 0, "caught": 0, "caught_compile_time": 0,
              "missed": 0, "false_alarms": 0, "interp_errors": 0,
              "model_disagrees_with_interp": 0}
    for r in results:
        for lr in r["launches"]:
            lcount["launches"] += 1
            d = lr["interp"] == "divergent"
            lcount["interp_divergent"] += d
            lcount["interp_errors"] += lr["interp"].startswith("error")
            c = lr.get("compiled", "")
            lcount["caught"] += d and c == "caught"
            lcount["caught_compile_time"] += d and c == "caught at compile time"
            lcount["missed"] += d and c == "silent"
            lcount["false_alarms"] += bool(lr.get("false_alarm"))
            if lr["interp"] in ("ok", "divergent") and lr["model"] in ("ok", "divergent"):
                lcount["model_disagrees_with_interp"] += lr["interp"] != lr["model"]

    def by(key: str, rs: list[dict]) -> dict:
        out: dict[str, dict[str, int]] = {}
        for r in rs:
            v = str(r["mutation"].get(key))
            out.setdefault(v, {})
            out[v][r["status"]] = out[v].get(r["status"], 0) + 1
        return dict(sorted(out.items()))

    misses = [r for r in results if r["status"] == "missed"]
    causes = _tally(
        "the mutated construct holds its barriers only deeper (not uniform by the barrier "
        "rule)" if not r["mutation"]["direct"] else
        "another construct of the legal kernel already takes region dispatch"
        if r["orig_schedule"].startswith("dispatch") else
        "structured fission" if r["schedule"] == "structured" else
        "region dispatch caused by the mutation elsewhere" for r in misses)
    return {
        "mutants": sum(r["status"] != "no-target" for r in results),
        "interp_divergent": len(div),
        "caught": counts.get("caught", 0),
        "missed": len(misses),
        "missed_structured": sum(r["schedule"] == "structured" for r in misses),
        "missed_dispatch": sum(r["schedule"].startswith("dispatch") for r in misses),
        "missed_dispatch_already_before_mutation": sum(
            r["orig_schedule"].startswith("dispatch") for r in misses),
        "missed_by_cause": causes,
        "hangs": counts.get("hang", 0),
        "other_errors": sum(counts.get(s, 0) for s in ("error", "crash", "timeout")),
        "not_divergent": counts.get("not-divergent", 0),
        "interp_error_only": counts.get("interp-error", 0),
        "counts": counts,
        "schedules_of_compiled": _tally(r["schedule"].split(" (")[0] for r in compiled),
        "dispatch_reasons": _tally(r["schedule"] for r in compiled
                                   if r["schedule"].startswith("dispatch")),
        "launch_counts": lcount,
        "by_kind": by("kind", results),
        "by_depth": by("depth", results),
        "by_direct": by("direct", results),
        "by_pred": by("pred", results),
        "failures": [{"seed": r["seed"], "status": r["status"], "schedule": r["schedule"],
                      "schedule_before_mutation": r["orig_schedule"],
                      "mutation": r["mutation"].get("text", ""), "detail": r["detail"][:300],
                      "repro": r["repro"]}
                     for r in results if r["status"] in
                     ("missed", "hang", "error", "crash", "timeout")],
        "model_disagreements": [
            {"seed": r["seed"], "mutation": r["mutation"].get("text", ""), "launch": lr}
            for r in results for lr in r["launches"]
            if {lr["interp"], lr["model"]} == {"ok", "divergent"}],
        # launches the interpreter runs through that the checked build reports
        "false_alarms": [{"seed": r["seed"], "schedule": r["schedule"],
                          "mutation": r["mutation"].get("text", ""),
                          "launches": [lr for lr in r["launches"] if lr.get("false_alarm")]}
                         for r in results if any(lr.get("false_alarm")
                                                 for lr in r["launches"])],
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.divergent")
    if argv[:1] == ["worker"]:
        ap.add_argument("worker")
        ap.add_argument("--out", required=True)
        ap.add_argument("--minimise", type=float, default=0.0)
        ap.add_argument("--max-minimise-dispatch", type=int, default=1)
        ap.add_argument("--direct-only", action="store_true")
        a = ap.parse_args(argv)
        worker_main(Path(a.out), a.direct_only, a.minimise, a.max_minimise_dispatch)
        return 0
    ap.add_argument("--n", type=int, default=100, help="mutants")
    ap.add_argument("--seed", type=int, default=0, help="first kernel seed")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "fuzz-failures" / "divergent"))
    ap.add_argument("--direct-only", action="store_true",
                    help="mutate only constructs with a barrier directly inside")
    ap.add_argument("--minimise", type=float, default=60.0, help="seconds per miss")
    ap.add_argument("--max-minimise-dispatch", type=int, default=1,
                    help="misses in region dispatch minimised per worker")
    ap.add_argument("--timeout-scale", type=float, default=1.0,
                    help="multiply the per-phase timeouts (loaded machines)")
    ap.add_argument("--summary", help="also write the summary JSON here")
    ap.add_argument("--vector-width", type=int, default=0,
                    help="compile the checked build at this vector width (workers inherit)")
    a = ap.parse_args(argv)
    os.environ["XMUX_DIVERGENT_FUZZ_VW"] = str(a.vector_width)
    out = Path(a.out)
    seeds, skipped = pick_seeds(a.n, a.seed, a.direct_only)
    print(f"divergent fuzz: {a.n} mutants from seeds {seeds[0]}..{seeds[-1]} ({skipped} "
          f"kernels without a barrier construct skipped), {a.jobs} jobs, repros in {out}",
          flush=True)
    t0 = time.time()
    results = campaign(seeds, a.jobs, out, a.direct_only, a.minimise, a.timeout_scale,
                       a.max_minimise_dispatch)
    s = summarise(results)
    s = {"command": "python -m tests.fuzz.divergent " + " ".join(argv),
         "seeds": [seeds[0], seeds[-1]], "kernels_skipped_no_target": skipped,
         "seconds": round(time.time() - t0, 1), **s}
    out.mkdir(parents=True, exist_ok=True)
    with open(out / f"results-{seeds[0]}-{seeds[-1]}.jsonl", "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in results)
    text = json.dumps(s, indent=1)
    (out / f"summary-{seeds[0]}-{seeds[-1]}.json").write_text(text)
    if a.summary:
        Path(a.summary).write_text(text)
    print(f"\n{s['mutants']} mutants in {s['seconds']}s: {s['interp_divergent']} "
          f"interpreter-divergent, {s['caught']} caught, {s['missed']} missed "
          f"({s['missed_structured']} structured, {s['missed_dispatch']} dispatch), "
          f"{s['hangs']} hangs, {s['other_errors']} other errors; "
          f"{s['not_divergent']} not divergent, {s['interp_error_only']} interpreter errors")
    print("launches:", s["launch_counts"])
    for f in s["failures"]:
        print(f"  seed {f['seed']}: {f['status']} [{f['schedule']}] {f['mutation']} "
              f"{f['detail'][:160]}" + (f"\n    repro: {f['repro'][0]}" if f["repro"] else ""))
    for f in s["false_alarms"]:
        print(f"  seed {f['seed']}: false alarm on {len(f['launches'])} launch(es) "
              f"[{f['schedule']}] {f['mutation']}")
    return 1 if s["missed"] or s["hangs"] or s["other_errors"] or s["false_alarms"] else 0


if __name__ == "__main__":
    sys.exit(main())
