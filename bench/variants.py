"""Interleaved A/B of xmux compile variants (and gcc) on the bench kernels, in one process.

    .venv/bin/python bench/variants.py                                   # default vs W=8 vs W=16
    .venv/bin/python bench/variants.py --kernels reduce_wg --variants default --gcc
    .venv/bin/python bench/variants.py --kernels vecadd,conv3x3 --variants default,vw8,vw8nt

Variants: ``default`` (xmux.compile as is), ``vwN`` (``vector_width=N``), ``vwNnt``
(``vector_width=N, force_no_tail=True``); ``--reqd`` also compiles each with
``mux.reqd_work_group_size`` = the launch's local size (as bench/run.py's xmux-reqd row).
Every variant is checked against the float64 reference first; times are ``bench/timing.py``'s
``interleaved`` (bursts, order balanced for carry-over, medians); the ratio column is the
round-by-round median ratio against the first variant. Sizes: bench/workloads.py FULL
(``--quick``: QUICK). The disk cache is off.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run as bench_run  # noqa: E402
import timing  # noqa: E402
import workloads as wl  # noqa: E402

bl = wl.baseline()


def variant_options(label: str) -> dict:
    if label == "default":
        return {}
    m = re.fullmatch(r"vw(\d+)(nt)?", label)
    if m is None:
        raise SystemExit(f"unknown variant {label!r} (default, vwN, vwNnt)")
    return {"vector_width": int(m.group(1)), "force_no_tail": bool(m.group(2))}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", default="vecadd,saxpy,conv3x3,matmul_naive")
    ap.add_argument("--variants", default="default,vw8,vw16")
    ap.add_argument("--reqd", action="store_true", help="also the reqd_work_group_size forms")
    ap.add_argument("--gcc", action="store_true", help="also the gcc -O3 reference (ref.c)")
    ap.add_argument("--threads", type=int, default=None,
                    help="xmux launch threads (and OMP_NUM_THREADS of the gcc reference)")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    os.environ["XMUX_CACHE"] = "0"
    import xmux

    s = wl.QUICK if args.quick else wl.FULL
    if args.quick:
        bl.WARMUP, bl.REPS_MIN, bl.ROUNDS_MIN, bl.BURST_S = 1, 3, 2, 0.01
        timing.WARM_S = 0.001
    bl.COOLDOWN_S["xmux"] = 0.02
    d = wl.make_data(s)
    ref = wl.references(d)
    gcc = None
    if args.gcc:
        if args.threads is not None:  # libgomp reads it when ref.c's library loads
            os.environ["OMP_NUM_THREADS"] = str(args.threads)
        bl.BUILD_DIR = tempfile.mkdtemp(prefix="xmux_variants_")
        lib, _, _ = bl.build_ref()
        gcc = bench_run.gcc_backends(lib, d, ref, s)
    o = bench_run.Outputs(d, s)
    failed = False
    for name in args.kernels.split(","):
        g, lsz = wl.launch_shape(name, s)
        a = o.kernel_args(name)
        backends = []
        forms = [(None, "")] + ([(lsz, "-reqd")] if args.reqd else [])
        for reqd, suffix in forms:
            for label in args.variants.split(","):
                prog = xmux.compile(bench_run.kernel_text(name, reqd), cache=False,
                                    **variant_options(label))
                k = prog.kernel(name)
                kw = {} if args.threads is None else {"threads": args.threads}
                for _ in range(2):  # the second launch builds the local-size variant
                    o.reset()
                    k(*a, global_size=g, local_size=lsz, **kw)
                failed |= not bench_run.check(name, label + suffix, o.result(name), ref)

                def call(k=k, kw=kw, a=a, g=g, lsz=lsz) -> None:
                    k(*a, global_size=g, local_size=lsz, **kw)

                backends.append(bl.Backend(label + suffix, "xmux", call=call))
        if gcc is not None and name in gcc:
            backends.append(gcc[name])
        res = timing.interleaved(backends)
        first = backends[0].label
        print(f"{name} {wl.size_label(name, s)}")
        for b in backends:
            r = res[b.label]
            ratio = r["ratio_vs"].get(first)
            rs = "1.000" if ratio is None else f"{ratio:.3f}"
            print(f"  {b.label:<14} median {r['wall_ms']['median']:8.3f} ms  "
                  f"x{rs} vs {first}  ({r['reps']} reps)")
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
