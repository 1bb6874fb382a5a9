"""PoCL side of bench/run.py: a persistent worker run by the PoCL venv's python.

pyopencl lives in a separate venv (``../shared/bench/setup.sh``, default /tmp/benchvenv), so
run.py starts this script there and talks to it over stdin/stdout, one JSON line per reply;
that keeps PoCL's runs interleaved with the in-process xmux / gcc / numpy runs.

    /tmp/benchvenv/bin/python bench/pocl_worker.py [--quick]

Kernels come from the shared ``kernels.cl`` (built once at start-up with PoCL's kernel cache
off, as in the baseline). Protocol (commands on stdin):

    verify DIR      NaN-fill outputs, run every kernel once, save DIR/<name>.npy;
                    replies {"first_launch_ms": {name: ms}} (work-group function JIT included)
    run NAME N      N timed launches; replies [{"wall": s, "event": s}, ...] where event is
                    the profiling-event time COMMAND_START -> COMMAND_END
    quit

The first line printed is a hello record (platform, device, build time) or {"error": ...}.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads  # noqa: E402  (sets PoCL's environment before pyopencl loads)

workloads.baseline()

import numpy as np  # noqa: E402


def reply(obj: object) -> None:
    print(json.dumps(obj), flush=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    s = workloads.QUICK if args.quick else workloads.FULL
    try:
        import pyopencl as cl
    except ImportError as e:
        reply({"error": f"pyopencl not importable: {e}"})
        return 1
    plats = [p for p in cl.get_platforms() if "Portable Computing Language" in p.name]
    if not plats:
        reply({"error": "no PoCL platform (run ../shared/bench/setup.sh)"})
        return 1
    dev = plats[0].get_devices(device_type=cl.device_type.CPU)[0]
    ctx = cl.Context([dev])
    q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    src = (workloads.SHARED_DIR / "kernels.cl").read_text()
    t = time.perf_counter()
    prg = cl.Program(ctx, src).build()
    build_ms = (time.perf_counter() - t) * 1e3

    d = workloads.make_data(s)
    mf = cl.mem_flags

    def ro(a: np.ndarray) -> cl.Buffer:
        return cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)

    nv, nm = s.n_vec, s.n_mm
    buf = {
        "a": ro(d["a"]), "b": ro(d["b"]), "c": cl.Buffer(ctx, mf.READ_WRITE, 4 * nv),
        "x": ro(d["x"]), "y": cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=d["y0"]),
        "A": ro(d["A"]), "B": ro(d["B"]), "C": cl.Buffer(ctx, mf.READ_WRITE, 4 * nm * nm),
        "imgp": ro(d["img_pad"]), "out": cl.Buffer(ctx, mf.READ_WRITE, 4 * s.conv_w * s.conv_h),
        "w": ro(d["w"]),
        "r": ro(d["r"]), "part": cl.Buffer(ctx, mf.READ_WRITE, 4 * (s.n_red // s.lsz_red[0])),
        "probe": cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=d["probe"]),
    }
    npart = s.n_red // s.lsz_red[0]
    i32 = np.int32
    # name -> (kernels.cl kernel, args, output buffer, output shape)
    table = {
        "vecadd": ("vecadd", [buf["a"], buf["b"], buf["c"]], "c", (nv,)),
        # launch-overhead probe: the first N_SMALL elements, 16 work-groups
        workloads.SMALL: ("vecadd", [buf["a"], buf["b"], buf["c"]], "c", (workloads.N_SMALL,)),
        "saxpy": ("saxpy", [d["alpha"], buf["x"], buf["y"]], "y", (nv,)),
        "matmul_naive": ("matmul_naive", [i32(nm), buf["A"], buf["B"], buf["C"]], "C", (nm, nm)),
        "conv3x3": ("conv3x3_const",
                    [i32(s.conv_w), i32(s.conv_w + 2), buf["imgp"], buf["out"], buf["w"]],
                    "out", (s.conv_h, s.conv_w)),
        "matmul_tiled": ("matmul_tiled", [i32(nm), buf["A"], buf["B"], buf["C"]], "C",
                         (nm, nm)),
        "reduce_local": ("reduce_local", [buf["r"], buf["part"]], "part", (npart,)),
        # reduce_wg (work_group_reduce_add) is left out: PoCL 3.1 cannot build it
    }
    for name in workloads.PROBES:  # in place on `probe`; one kernel object per iteration count
        table[name] = ("barrier_probe", [buf["probe"], i32(workloads.probe_iters(name))],
                       "probe", (s.n_probe,))
    gos = {}
    for name, (kname, kargs, _, _) in table.items():
        k = cl.Kernel(prg, kname)
        k.set_args(*kargs)
        g, lsz = workloads.launch_shape(name, s)
        gos[name] = (lambda k=k, g=g, lsz=lsz: cl.enqueue_nd_range_kernel(q, k, g, lsz))

    reply({"platform_version": plats[0].version, "device": dev.name,
           "max_compute_units": dev.max_compute_units, "build_ms": build_ms,
           "pid": os.getpid()})

    for line in sys.stdin:
        cmd = line.split()
        if not cmd or cmd[0] == "quit":
            break
        try:
            if cmd[0] == "verify":
                first = {}
                for name, (_, _, out, shape) in table.items():
                    for key in ("c", "C", "out", "part"):
                        cl.enqueue_fill_buffer(q, buf[key], np.float32(np.nan), 0, buf[key].size)
                    cl.enqueue_copy(q, buf["y"], d["y0"])
                    cl.enqueue_copy(q, buf["probe"], d["probe"])
                    q.finish()
                    t = time.perf_counter()
                    gos[name]().wait()
                    first[name] = (time.perf_counter() - t) * 1e3
                    host = np.empty(shape, np.float32)
                    cl.enqueue_copy(q, host, buf[out])
                    np.save(os.path.join(cmd[1], f"{name}.npy"), host)
                reply({"first_launch_ms": first})
            elif cmd[0] == "run":
                go, samples = gos[cmd[1]], []
                for _ in range(int(cmd[2])):
                    t = time.perf_counter()
                    e = go()
                    e.wait()
                    wall = time.perf_counter() - t
                    samples.append({"wall": wall,
                                    "event": (e.profile.end - e.profile.start) * 1e-9})
                reply(samples)
            else:
                reply({"error": f"unknown command {cmd[0]!r}"})
        except Exception as e:  # report, keep serving
            reply({"error": f"{type(e).__name__}: {e}"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
