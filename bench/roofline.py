"""The roofline section of bench/RESULTS.md: each kernel against the machine's measured limits.

``measure(lib, quick)`` measures the limits in the benchmark's process with the shared ref.c
(gcc -O3 -fopenmp, every core the run uses):

* bandwidth, STREAM-style (each array read or written once, no write-allocate traffic): the
  triad and the read-only sum at the bench's working-set size (16 MiB arrays, what vecadd and
  saxpy stream: 2^22 floats), and the triad on 512 MiB arrays (DRAM; not with ``--quick``);
* the FMA peak at 512 and 256 bits: 16 independent FMA chains per thread (ref.c's
  ``peak_fma_*``).

``section(R, S)`` turns the steady-state medians of bench/run.py into achieved GB/s and GFLOP/s
(the shared baseline's accounting, ``work``) and divides by the limit that bounds the kernel:
``min(FMA peak, arithmetic intensity × bandwidth)``, the classic roofline. The bandwidth is
the working-set triad (a kernel whose inputs are cache-resident can beat the DRAM one); the
read-only sum is the limit of the reductions, which write almost nothing. The FMA peak is the
one at the vector width xmux ran the kernel with (``runtime/tuning.py`` logs its choice on
hosts with 512-bit vectors; elsewhere 256).
"""

from __future__ import annotations

import re

import workloads as wl

bl = wl.baseline()

#: kernel -> the bandwidth it is judged by
READ_ONLY = ("reduce_local", "reduce_wg")
#: tuning log line: "<kernel>...: ... -> 512-bit"
_CHOICE = re.compile(r"^(\w+).*-> (\d+)-bit")


def work(name: str, s: wl.Sizes) -> tuple[int, int]:
    """(bytes moved, flops) of one launch, STREAM-style (as the shared baseline counts)."""
    f4 = 4
    if name == "vecadd":
        return 3 * f4 * s.n_vec, s.n_vec
    if name == "saxpy":
        return 3 * f4 * s.n_vec, 2 * s.n_vec
    if name in ("matmul_naive", "matmul_tiled"):
        return 3 * f4 * s.n_mm**2, 2 * s.n_mm**3
    if name in READ_ONLY:
        return f4 * s.n_red + f4 * (s.n_red // s.lsz_red[0]), s.n_red
    if name == "conv3x3":
        pixels = s.conv_w * s.conv_h
        return f4 * ((s.conv_w + 2) * (s.conv_h + 2) + pixels), 17 * pixels
    raise KeyError(name)


def measure(lib, quick: bool) -> dict:
    """The machine's limits: GB/s and GFLOP/s (see the module docstring)."""
    res: dict = {"threads": bl.NTHREADS}
    foot = bl.stream(lib, 1 << 12 if quick else bl.STREAM_FOOT_N,
                     1 << 12 if quick else bl.STREAM_READ_FOOT_N)
    res["triad_gbs"] = foot["triad"]["median_gbs"]
    res["read_gbs"] = foot["read"]["median_gbs"]
    res["foot_mib"] = foot["triad"]["array_mib"]
    if not quick:
        dram = bl.stream(lib, bl.STREAM_DRAM_N, 1 << 12)
        res["dram_triad_gbs"] = dram["triad"]["median_gbs"]
    iters = 200_000 if quick else bl.PEAK_ITERS
    for bits, fn, lanes in ((512, lib.peak_fma_512, 16), (256, lib.peak_fma_256, 8)):
        flops = 2.0 * 16 * lanes * iters * bl.NTHREADS
        sr = bl.series(lambda fn=fn: fn(iters), reps_min=5)
        res[f"fma{bits}_gflops"] = flops / (sr["wall_ms"]["median"] * 1e-3) / 1e9
    bl.log(f"[roofline] triad {res['triad_gbs']:.1f} GB/s @{res['foot_mib']:.0f} MiB, read "
           f"{res['read_gbs']:.1f}, DRAM triad {res.get('dram_triad_gbs', float('nan')):.1f}; "
           f"FMA peak {res['fma512_gflops']:.0f} (512-bit) / {res['fma256_gflops']:.0f} "
           f"(256-bit) GFLOP/s")
    return res


def widths(log_lines: list[str], has512: bool) -> dict[str, int]:
    """The vector width xmux kept per kernel (the last choice logged), default by the host."""
    out: dict[str, int] = {}
    for line in log_lines:
        m = _CHOICE.match(line)
        if m:
            out[m.group(1)] = int(m.group(2))
    out["_default"] = 512 if has512 else 256
    return out


def _median(r: dict | None) -> float | None:
    if not r:
        return None
    return r.get("event_ms", r["wall_ms"])["median"]


def section(R: dict, S: wl.Sizes) -> list[str]:
    lim = R.get("roofline")
    if not lim:
        return []
    w = R.get("vector_widths", {})
    L = ["## Roofline: how far from the hardware\n"]
    L.append(
        f"Limits measured in this run on {R['software']['cpu']}, {lim['threads']} threads "
        f"(`bench/roofline.py`, gcc -O3 -fopenmp): STREAM triad "
        f"{lim['triad_gbs']:.1f} GB/s and read-only sum {lim['read_gbs']:.1f} GB/s at the "
        f"bench's working set ({lim['foot_mib']:.0f} MiB arrays)"
        + (f", triad {lim['dram_triad_gbs']:.1f} GB/s from DRAM (512 MiB arrays)"
           if "dram_triad_gbs" in lim else "")
        + f"; FMA peak {lim['fma512_gflops']:.0f} GFLOP/s at 512 bits, "
        f"{lim['fma256_gflops']:.0f} at 256. Bytes and flops are counted as the shared baseline "
        "does (each array read or written once; matmul 2n³ flops). **bound** = "
        "min(FMA peak at the vector width xmux kept, intensity × bandwidth), the roofline; "
        "the reductions are judged by the read-only bandwidth, the rest by the triad. "
        "**% of bound** says how close each backend comes to it.\n")
    L.append("| kernel | flop/byte | bound | xmux ms | xmux GB/s | xmux GFLOP/s | xmux % of bound "
             "| gcc % of bound | PoCL % of bound | vector bits |")
    L.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in (*wl.KERNELS, *wl.KERNELS_WG):
        g = R["steady"].get(name, {})
        x = _median(g.get("xmux"))
        if x is None:
            continue
        nbytes, flops = work(name, S)
        ai = flops / nbytes
        bits = w.get(name, w.get("_default", 512))
        peak = lim[f"fma{bits}_gflops"]
        bw = lim["read_gbs"] if name in READ_ONLY else lim["triad_gbs"]
        bound_gflops = min(peak, ai * bw)
        kind = (f"FMA {peak:.0f} GFLOP/s" if peak <= ai * bw
                else f"{'read' if name in READ_ONLY else 'triad'} {bw:.0f} GB/s")

        def pct(ms: float | None, flops: int = flops, bound: float = bound_gflops) -> str:
            return "—" if ms is None else f"{flops / (ms * 1e-3) / 1e9 / bound * 100:.0f}%"

        L.append(f"| {name} | {ai:.3g} | {kind} | {x:.3g} | {nbytes / (x * 1e-3) / 1e9:.1f} | "
                 f"{flops / (x * 1e-3) / 1e9:.1f} | {pct(x)} | {pct(_median(g.get('gcc')))} | "
                 f"{pct(_median(g.get('pocl')))} | {bits} |")
    L.append("\nFor the compute-bound rows (matmul) the gap to 100% is the code: loads and "
             "stores per FMA, not the memory. gcc's i-k-j matmul is a loop, not a tuned GEMM; "
             "numpy's BLAS is the row's practical ceiling (Kernel-time tables).\n")
    return L
