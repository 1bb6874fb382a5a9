"""Differential testing of the barrier scheduler: generated kernels (``gen.py``) compiled by
xmux and run on random launches, compared exactly with the numpy model (``model.py``) and,
when the branch has it, the reference interpreter ``xmux.interpret``.

Per batch of kernels (one module per build, so one compile serves several kernels):

- build ``base``: ``xmux.compile(module, sub_group_size=N)`` (N of the batch), plus, for each
  kernel with barriers, a twin whose body starts with ``cf.br`` (a multi-block body: the
  same kernel, scheduled by region dispatch instead of structured fission);
- build ``vec``: the same module at ``vector_width=W`` (W of the batch: 2, 4 or 8).

Per kernel a few launches from ``LAUNCHES`` (1-D/2-D/3-D, local sizes 1, odd, powers of two,
global sizes that are not multiples, offsets), on ``threads=1`` or the default, on the base
build, the vector build and the dispatch twin; one launch repeated with full groups (the
second launch runs the per-local-size variant). Kernels with ``mux.reqd_work_group_size``
launch with that size.

``python -m tests.fuzz.harness campaign --n 1000 --seed 0 --jobs 2`` runs a campaign in worker
subprocesses (a batch that hangs or kills its worker is re-run kernel by kernel, so the
culprit is named), minimises mismatches (``shrink.py``) and writes standalone repros to
``fuzz-failures/``.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .gen import SLOTS, Illegal, Kernel, generate, has_sync
from .model import run_model
from .shrink import classify, minimise, skeleton

ROOT = Path(__file__).resolve().parents[2]

LAUNCHES = [
    ((1,), (1,)), ((5,), (1,)), ((7,), (3,)), ((16,), (8,)), ((13,), (4,)), ((5,), (5,)),
    ((37,), (16,)), ((64,), (64,)), ((21,), (7,)), ((70,), (32,)), ((12,), (2,)),
    ((6, 5), (3, 2)), ((8, 4), (4, 4)), ((7, 3), (7, 3)), ((5, 9), (2, 4)), ((9, 2), (3, 1)),
    ((4, 3, 3), (2, 2, 2)), ((3, 3, 5), (3, 1, 2)), ((2, 2, 2), (2, 2, 2)), ((3, 2, 4), (1, 2, 3)),
]
SUB_GROUP_SIZES = [1, 1, 2, 3, 4, 8]
#: the target the kernels run on (``--target``; workers inherit it): on ``nvptx`` the GPU runs
#: the work-items, its sub-groups are warps of 32, and there is no vector build or ``threads``
TARGET = os.environ.get("XMUX_FUZZ_TARGET", "cpu")
WARP = 32
VECTOR_WIDTHS = [2, 4, 8]


@dataclass
class Run:
    """One launch of one kernel: which build, sizes, arguments, threads."""

    build: str  # base | vec | cfg
    gsize: tuple
    lsize: tuple
    offset: tuple | None
    threads: int | None
    scalars: tuple  # p0, p1, k0, k1
    data_seed: int
    repeat: bool = False  # launch twice (the second: the local-size variant)


@dataclass
class Result:
    seed: int
    status: str  # ok | mismatch | compile-error | run-error | illegal
    runs: int = 0
    illegal_runs: int = 0
    detail: str = ""
    repro: list = field(default_factory=list)
    signature: str = ""


def _interpret():
    import xmux

    return getattr(xmux, "interpret", None)


def plan(k: Kernel, seed: int, vec: bool, n_launches: int = 4) -> list[Run]:
    r = random.Random(seed * 7919 + 1)
    runs = []
    if k.reqd:
        rq = k.reqd
        pool = []
        for m in ((1, 1, 1), (2, 1, 1), (1, 2, 1), (3, 1, 2)):
            pool.append((tuple(rq[d] * m[d] for d in range(3)), tuple(rq)))
    else:
        pool = LAUNCHES
    picks = r.sample(pool, min(n_launches, len(pool)))
    builds = (["base", "vec"] if vec else ["base"]) + (["cfg"] if has_sync(k.body) else [])
    for i, (g, loc) in enumerate(picks):
        off = None
        if r.random() < 0.2:
            off = tuple(r.randint(0, 5) for _ in g)
        runs.append(Run(
            build=builds[i % len(builds)] if i else "base", gsize=g, lsize=loc, offset=off,
            threads=r.choice([None, 1]),
            scalars=(r.randint(-20, 20), r.choice([0, 1, 2, 3, -1, 77, -12345]),
                     r.randint(0, 3), r.randint(0, 3)),
            data_seed=r.randrange(2**31)))
    full = [run for run in runs if all(g % loc == 0 for g, loc in zip(run.gsize, run.lsize,
                                                                     strict=True))]
    if full and r.random() < 0.25:
        full[0].repeat = True
    return runs


def inputs(run: Run):
    g = int(np.prod(run.gsize))
    rng = np.random.default_rng(run.data_seed)
    a = rng.integers(-100, 100, g, dtype=np.int32)
    out = rng.integers(-9, 9, g * SLOTS, dtype=np.int32)
    return a, out


def expected(k: Kernel, run: Run, sg: int):
    a, out = inputs(run)
    return run_model(k, a, out, run.scalars, run.gsize, run.lsize, sg, run.offset)


def launch(kern, run: Run):
    """The compiled result(s): one array, or two for a repeated launch."""
    a, out0 = inputs(run)
    res = []
    for _ in range(2 if run.repeat else 1):
        out = out0.copy()
        kw = dict(global_size=run.gsize, local_size=run.lsize)
        if run.offset:
            kw["global_offset"] = run.offset
        if run.threads and TARGET == "cpu":
            kw["threads"] = run.threads
        kern(a, out, *run.scalars, **kw)
        res.append(out)
    return res


def interp_check(src: str, k: Kernel, run: Run, sg: int, want) -> str | None:
    """The reference interpreter's verdict on the model, when the branch has it."""
    f = _interpret()
    if f is None:
        return None
    a, out = inputs(run)
    kw = dict(global_size=run.gsize, local_size=run.lsize, races=True)
    if run.offset:
        kw["global_offset"] = run.offset
    if sg > 1:
        kw["sub_group_size"] = sg
    try:
        f(src, k.name, a, out, *run.scalars, **kw)
    except Exception as e:  # noqa: BLE001 - reported, not fatal
        return f"interpreter raised {type(e).__name__}: {e}"
    if not np.array_equal(out, want):
        return "interpreter disagrees with the model"
    return None


def compile_module(kernels: list[Kernel], build: str, sg: int, vw: int,
                   specialize: bool = False):
    """One module: the kernels (``base``: with their dispatch twins, ``cfg``: the twins
    only, ``vec``: the kernels at vector width ``vw``)."""
    import xmux

    parts = []
    for k in kernels:
        if build in ("base", "cfg") and has_sync(k.body):
            parts.append(k.mlir(k.name + "_cfg", cfg_body=True))
        if build != "cfg":
            parts.append(k.mlir())
    if not parts:
        return None
    if TARGET != "cpu":
        return xmux.compile("\n".join(parts), cache=False, target=TARGET)
    opts = dict(cache=False, sub_group_size=sg, specialize=specialize)
    if build == "vec":
        opts["vector_width"] = vw
    return xmux.compile("\n".join(parts), **opts)


def _diff(got, want) -> str:
    bad = np.nonzero(got != want)[0]
    i = bad[:6]
    return (f"{len(bad)} of {len(want)} outputs differ; at {i.tolist()}: got "
            f"{got[i].tolist()} want {want[i].tolist()}")


def check_runs(k: Kernel, runs: list[Run], progs: dict, sg: int, interp: bool = True
               ) -> tuple[str, int, int, str, Run | None]:
    """(status, runs, illegal runs, detail, failing run). The interpreter, when the branch
    has it, checks the model on the first legal launch and on every mismatch (a compiled
    result equal to the interpreter's but not the model's is ``model-disagree``)."""
    n = ill = 0
    checked = not interp
    for run in runs:
        try:
            want = expected(k, run, sg)
        except Illegal:
            ill += 1
            continue
        if not checked:
            checked = True
            why = interp_check(k.mlir(), k, run, sg, want)
            if why:
                return "model-disagree", n, ill, why, run
        prog = progs.get("base" if run.build == "cfg" else run.build)
        if prog is None:
            continue
        name = k.name + ("_cfg" if run.build == "cfg" else "")
        n += 1
        try:
            if run.repeat:  # its own program, so that the variant compiles one kernel
                prog = compile_module([k], run.build, sg, progs["vw"], specialize=True)
            got = launch(prog.kernel(name), run)
        except Exception as e:  # noqa: BLE001
            return "run-error", n, ill, f"{type(e).__name__}: {e}", run
        for i, g in enumerate(got):
            if not np.array_equal(g, want):
                which = " (second launch: local-size variant)" if i else ""
                why = interp_check(k.mlir(), k, run, sg, want) if interp else None
                if why:
                    return "model-disagree", n, ill, why + "; " + _diff(g, want), run
                return "mismatch", n, ill, _diff(g, want) + which, run
    return ("ok" if n else "illegal"), n, ill, "", None


def batch_options(batch_seed: int) -> tuple[int, int, bool]:
    """Sub-group size, vector width, whether the batch has a vector build."""
    r = random.Random(batch_seed ^ 0x5EED)
    sg, vw, vec = r.choice(SUB_GROUP_SIZES), r.choice(VECTOR_WIDTHS), r.random() < 0.5
    return (WARP, vw, False) if TARGET == "nvptx" else (sg, vw, vec)


def run_batch(seeds: list[int], out_dir: Path | None, minimise_budget: float = 0.0,
              log=print, options: tuple[int, int, bool] | None = None) -> list[Result]:
    """Check the kernels of ``seeds`` (one compile per build); ``options``: sub-group size,
    vector width, whether to build at that width (default: from the first seed)."""
    sg, vw, vec = options or batch_options(seeds[0])
    _self_test_faults(seeds)
    kernels = [generate(s) for s in seeds]
    results = {s: Result(s, "ok") for s in seeds}
    progs_by_kernel: dict[int, dict] = {s: {"vw": vw} for s in seeds}
    builds = ("base", "vec") if vec else ("base",)
    for build in builds:
        good = list(kernels)
        try:
            prog = compile_module(good, build, sg, vw)
            for k in good:
                progs_by_kernel[k.seed][build] = prog
        except Exception:  # noqa: BLE001 - find the kernel(s) that do not compile
            for k in good:
                try:
                    progs_by_kernel[k.seed][build] = compile_module([k], build, sg, vw)
                except Exception as e:  # noqa: BLE001
                    res = results[k.seed]
                    if res.status == "ok":
                        res.status = "compile-error"
                        res.detail = f"{build}: {type(e).__name__}: {str(e)[:400]}"
                        res.signature = f"compile-error {build}: " + _first_line(e)
    for k in kernels:
        res = results[k.seed]
        if res.status != "ok":
            if out_dir is not None:
                res.repro = write_repro(out_dir, k, None, sg, vw, "cfg" in res.detail[:4],
                                        res.detail, res.status)
            continue
        runs = plan(k, k.seed, vec)
        status, n, ill, detail, bad = check_runs(k, runs, progs_by_kernel[k.seed], sg)
        res.status, res.runs, res.illegal_runs, res.detail = status, n, ill, detail
        if status in ("mismatch", "run-error") and bad is not None:
            small = k
            if minimise_budget > 0:
                small = minimise_kernel(k, bad, sg, vw, minimise_budget, log)
            res.signature = signature(small, bad, sg, vw)
            if small is not k:
                detail = _recheck(small, bad, progs_by_kernel, sg, vw) or detail
            if out_dir is not None:
                res.repro = write_repro(out_dir, small, bad, sg, vw, bad.build == "cfg",
                                        detail, status)
    return [results[s] for s in seeds]


def fast_verify() -> None:
    """Verify the IR after work-item-loops (the pass under test) and after the pipeline, not
    after every pass (``XMUX_VERIFY_EACH``, which the test suite sets: about a third of the
    compile time). For campaign workers (``--fast``), never for the test suite."""
    from xmux.transforms.work_item_loops import WorkItemLoopsPass

    os.environ.pop("XMUX_VERIFY_EACH", None)
    if getattr(WorkItemLoopsPass, "_fuzz_fast", False):
        return
    apply = WorkItemLoopsPass.apply

    def verified_apply(self, ctx, op):
        apply(self, ctx, op)
        op.verify()

    WorkItemLoopsPass.apply = verified_apply
    WorkItemLoopsPass._fuzz_fast = True


def _self_test_faults(seeds: list[int]) -> None:
    """``XMUX_FUZZ_CRASH_SEED`` / ``XMUX_FUZZ_HANG_SEED``: abort / hang on that seed, to test
    the campaign's recovery."""
    crash = os.environ.get("XMUX_FUZZ_CRASH_SEED")
    hang = os.environ.get("XMUX_FUZZ_HANG_SEED")
    if crash and int(crash) in seeds:
        os.abort()
    if hang and int(hang) in seeds:
        time.sleep(3600)


def _recheck(k: Kernel, run: Run, progs, sg: int, vw: int) -> str | None:
    """The mismatch of the minimised kernel, for the repro's header."""
    try:
        want = expected(k, run, sg)
        prog = compile_module([k], run.build, sg, vw, specialize=run.repeat)
        got = launch(prog.kernel(k.name + ("_cfg" if run.build == "cfg" else "")), run)
    except Exception:  # noqa: BLE001
        return None
    for i, g in enumerate(got):
        if not np.array_equal(g, want):
            return _diff(g, want) + (" (second launch: local-size variant)" if i else "")
    return None


def _first_line(e: Exception) -> str:
    s = str(e).strip().splitlines()
    return (s[-1] if s else type(e).__name__)[:160]


def signature(k: Kernel, run: Run, sg: int, vw: int) -> str:
    b = {"base": "fission/default", "vec": f"vector_width={vw}", "cfg": "region dispatch"}[
        run.build]
    extra = []
    if run.repeat:
        extra.append("repeat")
    if k.reqd:
        extra.append("reqd")
    if k.order:
        extra.append("order")
    if sg > 1 and k.uses_sub_groups():
        extra.append(f"sg={sg}")
    return (f"{classify(k)}: {skeleton(k.body)}  [{b}{', ' if extra else ''}"
            f"{', '.join(extra)}]")


def minimise_kernel(k: Kernel, run: Run, sg: int, vw: int, budget: float, log) -> Kernel:
    """The smallest kernel (and launch) that still mismatches."""
    import copy

    def fails(c: Kernel, r: Run = run) -> bool:
        try:
            want = expected(c, r, sg)
        except Illegal:
            return False
        except Exception:  # noqa: BLE001 - a candidate the model cannot run
            return False
        try:
            prog = compile_module([c], r.build, sg, vw, specialize=r.repeat)
            got = launch(prog.kernel(c.name + ("_cfg" if r.build == "cfg" else "")), r)
        except Exception:  # noqa: BLE001 - a different failure: not this one
            return False
        return any(not np.array_equal(g, want) for g in got)

    # a simpler launch first
    for attempt in _simpler_runs(k, run):
        if fails(k, attempt):
            run.__dict__.update(attempt.__dict__)
            break
    t0 = time.time()
    small = minimise(k, fails, budget_s=budget)
    log(f"seed {k.seed}: minimised {k.size()} -> {small.size()} statements in "
        f"{time.time() - t0:.0f}s")
    return copy.deepcopy(small)


def _simpler_runs(k: Kernel, run: Run):
    import copy

    for threads in ([1] if run.threads != 1 else []):
        r = copy.deepcopy(run)
        r.threads = threads
        yield r
    if run.offset:
        r = copy.deepcopy(run)
        r.offset = None
        yield r
    if not k.reqd and len(run.gsize) > 0:
        g = tuple(min(gs, ls) for gs, ls in zip(run.gsize, run.lsize, strict=True))
        if g != run.gsize:
            r = copy.deepcopy(run)
            r.gsize = g
            yield r


# ---------------------------------------------------------------------------------------
# Repros
# ---------------------------------------------------------------------------------------

REPRO_PY = '''"""xmux fuzz repro {name}: {status}. Run: python {pyname} (from the repository root
or anywhere with xmux installed). Exits 1 while the bug is there."""
import pathlib
import sys

import numpy as np

import xmux

src = pathlib.Path(__file__).with_suffix(".mlir").read_text()
a = np.array({a}, dtype=np.int32)
out0 = np.array({out}, dtype=np.int32)
expected = {expected}
prog = xmux.compile(src, cache=False{copts})
kernel = prog.kernel("{kname}")
bad = 0
for launch in range({launches}):
    out = out0.copy()
    kernel(a, out, {scalars}, global_size={gsize}, local_size={lsize}{lopts})
    if expected is not None and not np.array_equal(out, np.array(expected, dtype=np.int32)):
        diff = np.nonzero(out != np.array(expected, dtype=np.int32))[0]
        print(f"launch {{launch + 1}}: {{len(diff)}} outputs differ, "
              f"first at {{diff[:8].tolist()}}")
        print("  got     ", out[diff[:8]].tolist())
        print("  expected", np.array(expected)[diff[:8]].tolist())
        bad = 1
interp = getattr(xmux, "interpret", None)
if interp is not None:
    ref = out0.copy()
    interp(src, "{kname}", a, ref, {scalars}, global_size={gsize}, local_size={lsize}{iopts})
    if expected is not None and not np.array_equal(ref, np.array(expected, dtype=np.int32)):
        print("note: xmux.interpret disagrees with the fuzzer's model")
print("MISMATCH" if bad else "ok")
sys.exit(bad)
'''


def write_repro(out_dir: Path, k: Kernel, run: Run | None, sg: int, vw: int, cfg: bool,
                detail: str, status: str) -> list[str]:
    out_dir.mkdir(parents=True, exist_ok=True)
    base = f"seed{k.seed}"
    mlir_path = out_dir / f"{base}.mlir"
    py_path = out_dir / f"{base}.py"
    src = k.mlir(k.name + ("_cfg" if cfg else ""), cfg_body=cfg)
    copts = f", sub_group_size={sg}" if sg > 1 else ""
    if run is not None and run.build == "vec":
        copts += f", vector_width={vw}"
    head = [f"// xmux fuzz repro: kernel seed {k.seed}, {status}",
            f"// {detail}"]
    if run is not None:
        head += [
            f"// build: xmux.compile(src, cache=False{copts})"
            + ("  (body starts with cf.br: region dispatch)" if cfg else ""),
            f"// launch: global_size={run.gsize} local_size={run.lsize} "
            f"global_offset={run.offset} threads={run.threads}"
            + (" -- launched twice: the second launch runs the local-size variant"
               if run.repeat else ""),
            f"// scalars: p0={run.scalars[0]} p1={run.scalars[1]} k0={run.scalars[2]} "
            f"k1={run.scalars[3]}; a, out: see {py_path.name}",
            f"// shape: {skeleton(k.body)}",
            f"// class: {classify(k)}",
        ]
    mlir_path.write_text("\n".join(head) + "\n" + src)
    if run is None:
        return [str(mlir_path)]
    a, out = inputs(run)
    try:
        want = expected(k, run, sg).tolist()
    except Illegal:
        want = None
    lopts = ""
    if run.offset:
        lopts += f", global_offset={run.offset}"
    if run.threads:
        lopts += f", threads={run.threads}"
    iopts = (f", global_offset={run.offset}" if run.offset else "") + (
        f", sub_group_size={sg}" if sg > 1 else "")
    py_path.write_text(REPRO_PY.format(
        name=base, status=status, pyname=py_path.name, a=a.tolist(), out=out.tolist(),
        expected=want, copts=copts, kname=k.name + ("_cfg" if cfg else ""),
        launches=2 if run.repeat else 1,
        scalars=", ".join(str(x) for x in run.scalars), gsize=run.gsize, lsize=run.lsize,
        lopts=lopts, iopts=iopts))
    return [str(mlir_path), str(py_path)]


# ---------------------------------------------------------------------------------------
# Campaigns: worker subprocesses, hangs and crashes caught
# ---------------------------------------------------------------------------------------


def worker_main(out_dir: Path, minimise_budget: float, max_minimise: int,
                fast: bool = False) -> None:
    """Read batches (JSON lists of seeds) on stdin, answer one JSON line per batch."""
    os.environ.setdefault("XMUX_CACHE", "0")
    if fast:
        fast_verify()
    else:
        os.environ["XMUX_VERIFY_EACH"] = "1"
    done = 0
    for line in sys.stdin:
        seeds = json.loads(line)
        budget = minimise_budget if done < max_minimise else 0.0
        try:
            res = run_batch(seeds, out_dir, budget, log=lambda m: print(m, file=sys.stderr))
        except Exception:  # noqa: BLE001 - the whole batch failed: report it
            res = [Result(s, "harness-error", detail=traceback.format_exc()[-800:])
                   for s in seeds]
        done += sum(r.status == "mismatch" for r in res)
        print(json.dumps([asdict(r) for r in res]), flush=True)


class _Worker:
    def __init__(self, args: list[str]):
        self.p = subprocess.Popen(
            [sys.executable, "-m", "tests.fuzz.harness", "worker", *args], cwd=ROOT,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.q: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.q.put(line)
        self.q.put(None)

    def ask(self, seeds: list[int], timeout: float):
        try:
            self.p.stdin.write(json.dumps(seeds) + "\n")
            self.p.stdin.flush()
        except BrokenPipeError:
            return "crash", None
        try:
            line = self.q.get(timeout=timeout)
        except queue.Empty:
            return "hang", None
        if line is None:
            return "crash", None
        return "ok", json.loads(line)

    def kill(self):
        try:
            self.p.kill()
            self.p.wait(5)
        except Exception:  # noqa: BLE001
            pass


def campaign(n: int, seed: int, jobs: int, batch: int, out_dir: Path, timeout: float,
             minimise_budget: float, max_minimise: int, quiet: bool = False,
             max_seconds: float = 0.0, fast: bool = True) -> dict:
    """Run seeds ``seed .. seed+n-1``; with ``max_seconds`` no new batch starts after that
    long (the summary then covers the seeds done)."""
    seeds = list(range(seed, seed + n))
    batches = [seeds[i:i + batch] for i in range(0, n, batch)]
    wargs = ["--out", str(out_dir), "--minimise", str(minimise_budget),
             "--max-minimise", str(max(1, max_minimise // max(1, jobs)))]
    if fast:
        wargs.append("--fast")
    todo: queue.Queue = queue.Queue()
    for b in batches:
        todo.put(b)
    results: list[dict] = []
    lock = threading.Lock()
    t0 = time.time()

    def record(rs):
        with lock:
            results.extend(rs)
            if not quiet:
                done = len(results)
                bad = [r for r in rs if r["status"] not in ("ok", "illegal")]
                for r in bad:
                    print(f"  seed {r['seed']}: {r['status']}: {r['detail'][:200]}"
                          + (f"\n    repro: {r['repro'][0]}" if r["repro"] else ""),
                          flush=True)
                el = time.time() - t0
                print(f"[{done}/{n}] {el:.0f}s, {done / el:.2f} kernels/s", flush=True)

    def one(seeds_, w):
        """Run a batch; on a hang or crash re-run its seeds one by one."""
        st, rs = w.ask(seeds_, timeout * len(seeds_) + minimise_budget * 3)
        if st == "ok":
            record(rs)
            return w
        w.kill()
        if len(seeds_) == 1:
            record([asdict(Result(seeds_[0], st, detail=f"worker {st} (timeout "
                                  f"{timeout:.0f}s per kernel)" if st == "hang" else
                                  "worker died (segfault or abort)"))])
            if out_dir is not None:
                k = generate(seeds_[0])
                write_repro(out_dir, k, None, *batch_options(seeds_[0])[:2], False, st, st)
            return _Worker(wargs)
        for s in seeds_:
            w = one([s], _Worker(wargs))
        return w

    def loop():
        w = _Worker(wargs)
        while not (max_seconds and time.time() - t0 > max_seconds):
            try:
                b = todo.get_nowait()
            except queue.Empty:
                break
            w = one(b, w)
        w.kill()

    threads = [threading.Thread(target=loop) for _ in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    el = time.time() - t0
    counts: dict[str, int] = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    sigs: dict[str, list[int]] = {}
    for r in results:
        if r["status"] not in ("ok", "illegal"):
            sigs.setdefault(r["signature"] or r["status"], []).append(r["seed"])
    done = sorted(r["seed"] for r in results)
    summary = {
        "target": TARGET,
        "seeds": [seed, seed + n - 1], "kernels": len(results), "seconds": round(el, 1),
        "kernels_per_second": round(len(results) / el, 3), "counts": counts,
        "seeds_done": _ranges(done),
        "launches": sum(r["runs"] for r in results),
        "illegal_launches_skipped": sum(r["illegal_runs"] for r in results),
        "classes": sigs,
        "failures": sorted(
            ({"seed": r["seed"], "status": r["status"], "detail": r["detail"][:300],
              "repro": r["repro"]} for r in results if r["status"] not in ("ok", "illegal")),
            key=lambda x: x["seed"]),
    }
    return summary


def _ranges(xs: list[int]) -> str:
    out, i = [], 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        out.append(f"{xs[i]}..{xs[j]}" if j > i else str(xs[i]))
        i = j + 1
    return ", ".join(out)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["acc"]:  # the OpenACC program fuzzer: acc_harness.py
        from .acc_harness import main as acc_main

        return acc_main(argv[1:])
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.harness")
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("campaign")
    c.add_argument("--n", type=int, default=100)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--jobs", type=int, default=2)
    c.add_argument("--batch", type=int, default=6)
    c.add_argument("--out", default=str(ROOT / "fuzz-failures"))
    c.add_argument("--timeout", type=float, default=60.0, help="seconds per kernel")
    c.add_argument("--minimise", type=float, default=90.0, help="seconds per mismatch")
    c.add_argument("--max-minimise", type=int, default=40)
    c.add_argument("--max-seconds", type=float, default=0.0,
                   help="start no batch after this long (0: run all)")
    c.add_argument("--target", choices=("cpu", "nvptx"), default=TARGET,
                   help="run the kernels on this target (nvptx: the GPU)")
    c.add_argument("--verify-all", action="store_true",
                   help="verify the IR after every pass (default: after work-item-loops)")
    w = sub.add_parser("worker")
    w.add_argument("--out")
    w.add_argument("--minimise", type=float, default=90.0)
    w.add_argument("--max-minimise", type=int, default=20)
    w.add_argument("--fast", action="store_true")
    o = sub.add_parser("one", help="check one seed in this process, minimise, write a repro")
    o.add_argument("seed", type=int)
    o.add_argument("--out", default=str(ROOT / "fuzz-failures"))
    o.add_argument("--minimise", type=float, default=120.0)
    args = ap.parse_args(argv)
    if args.cmd == "worker":
        worker_main(Path(args.out), args.minimise, args.max_minimise, args.fast)
        return 0
    if args.cmd == "one":
        r = run_batch([args.seed], Path(args.out), args.minimise)[0]
        print(json.dumps(asdict(r), indent=1))
        return 0 if r.status in ("ok", "illegal") else 1
    out = Path(args.out)
    os.environ["XMUX_FUZZ_TARGET"] = args.target  # the workers inherit it
    globals()["TARGET"] = args.target
    print(f"fuzz ({args.target}): seeds {args.seed}..{args.seed + args.n - 1}, {args.jobs} jobs, "
          f"batches of {args.batch}, repros in {out}", flush=True)
    s = campaign(args.n, args.seed, args.jobs, args.batch, out, args.timeout, args.minimise,
                 args.max_minimise, max_seconds=args.max_seconds, fast=not args.verify_all)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"summary-{args.seed}-{args.seed + args.n - 1}.json").write_text(
        json.dumps(s, indent=1))
    print(f"\nseeds {s['seeds_done']}: {s['kernels']} kernels, "
          f"{s['launches']} launches in {s['seconds']}s ({s['kernels_per_second']} kernels/s)")
    print("counts:", s["counts"])
    for sig, ss in sorted(s["classes"].items(), key=lambda x: -len(x[1])):
        print(f"  {len(ss):4d}  {sig}   seeds {ss[:8]}")
    bad = sum(v for k_, v in s["counts"].items() if k_ not in ("ok", "illegal"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
