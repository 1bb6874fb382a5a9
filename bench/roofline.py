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

As a picture (``--plot``; needs matplotlib)::

    .venv/bin/python bench/roofline.py --plot roofline.svg            # bench/RESULTS.md's numbers
    .venv/bin/python bench/run.py --quick --json r.json               # or measure now (~1 min,
    .venv/bin/python bench/roofline.py --plot roofline.svg --json r.json  # quick sizes)

the roofs (FMA peaks at 512 and 256 bits, triad and read-only bandwidth) on log-log axes of
arithmetic intensity and GFLOP/s, each kernel placed at xmux's achieved GFLOP/s. Without
matplotlib an .svg is still drawn (``plot_svg``: the same roofs and points, written by hand),
other formats are not; the points also go to ``roofline.csv`` beside the requested file, and
a table to stdout.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import workloads as wl

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
    bl = wl.baseline()  # loaded here: --plot needs no shared baseline
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


# ---------------------------------------------------------------------------------------
# The picture (--plot)
# ---------------------------------------------------------------------------------------

RESULTS_MD = wl.BENCH_DIR / "RESULTS.md"


@dataclass
class Roofline:
    """The limits and the kernels placed against them; ``source`` says where they come
    from (printed with the picture)."""

    source: str
    triad_gbs: float
    read_gbs: float
    fma512: float
    fma256: float
    #: (kernel, flop/byte, xmux GFLOP/s, vector bits)
    points: list[tuple[str, float, float, int]]


def from_results_md(path: Path = RESULTS_MD) -> Roofline:
    """The roofline section of a written RESULTS.md (the bench's stored numbers)."""
    text = path.read_text()
    sec = text[text.index("## Roofline"):]
    sec = sec[: sec.find("\n## ", 4) if "\n## " in sec[4:] else len(sec)]

    def num(pattern: str) -> float:
        m = re.search(pattern, sec)
        if m is None:
            raise ValueError(f"{path}: no match for {pattern!r} in the roofline section")
        return float(m.group(1))

    points = []
    for row in re.findall(r"^\| (\w+) \| ([\d.e+-]+) \|(.*)\|$", sec, re.M):
        cells = [c.strip() for c in row[2].split("|")]
        points.append((row[0], float(row[1]), float(cells[3]), int(cells[-1])))
    date = re.search(r"on (\d{4}-\d\d-\d\d)", text)
    where = re.search(r"measured in this run on (.*?), (\d+) threads", sec)
    source = (f"stored numbers of bench/{path.name}, not measured now"
              + (f" ({date.group(1)}" if date else " (")
              + (f", {where.group(1)}, {where.group(2)} threads)" if where else ")"))
    return Roofline(source, num(r"STREAM triad ([\d.]+) GB/s"), num(r"read-only sum ([\d.]+)"),
                    num(r"FMA peak ([\d.]+) GFLOP/s at 512"), num(r"GFLOP/s at 512 bits, ([\d.]+)"),
                    points)


def from_json(path: Path) -> Roofline:
    """A run's raw results (``bench/run.py --json``), measured then."""
    import json

    R = json.loads(path.read_text())
    lim = R.get("roofline")
    if not lim:
        raise SystemExit(f"{path}: no roofline measurement in these results")
    S = wl.Sizes(**R["sizes"]) if "sizes" in R else (wl.QUICK if R.get("quick") else wl.FULL)
    w = R.get("vector_widths", {})
    points = []
    for name in (*wl.KERNELS, *wl.KERNELS_WG):
        x = _median(R.get("steady", {}).get(name, {}).get("xmux"))
        if x is None:
            continue
        nbytes, flops = work(name, S)
        points.append((name, flops / nbytes, flops / (x * 1e-3) / 1e9,
                       w.get(name, w.get("_default", 512))))
    quick = " (--quick sizes)" if R.get("quick") else ""
    return Roofline(f"measured by bench/run.py{quick}, {path.name}", lim["triad_gbs"],
                    lim["read_gbs"], lim["fma512_gflops"], lim["fma256_gflops"], points)


def write_csv(r: Roofline, path: Path) -> None:
    with path.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["kernel", "flop_per_byte", "xmux_gflops", "bound_gflops", "bound",
                      "vector_bits"])
        for name, ai, gflops, bits in r.points:
            bound, kind = _bound(r, name, ai, bits)
            out.writerow([name, f"{ai:.4g}", f"{gflops:.4g}", f"{bound:.4g}", kind, bits])


def _bound(r: Roofline, name: str, ai: float, bits: int) -> tuple[float, str]:
    peak = r.fma512 if bits == 512 else r.fma256
    bw = r.read_gbs if name in READ_ONLY else r.triad_gbs
    return (peak, f"FMA {bits}-bit") if peak <= ai * bw else (ai * bw, "bandwidth")


def plot(r: Roofline, out: Path) -> bool:
    """The roofline picture at ``out`` (format from its extension); False without
    matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    ais = [p[1] for p in r.points] or [1.0]
    lo, hi = min(min(ais) / 4, 0.02), max(max(ais) * 4, 200)
    xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for peak, label, style in ((r.fma512, "FMA peak, 512-bit", "-"),
                               (r.fma256, "FMA peak, 256-bit", "--")):
        ax.plot(xs, [min(peak, x * r.triad_gbs) for x in xs], style, color="black",
                label=f"{label}: {peak:.0f} GFLOP/s (triad {r.triad_gbs:.0f} GB/s)")
    ax.plot(xs, [min(r.fma512, x * r.read_gbs) for x in xs], ":", color="gray",
            label=f"read-only sum {r.read_gbs:.0f} GB/s (reductions)")
    roofs = ax.legend(fontsize=8, loc="lower right")
    marks = []  # kernels in a legend of their own: their points often overlap
    for i, (name, ai, gflops, bits) in enumerate(r.points):
        bound, _ = _bound(r, name, ai, bits)
        (m,) = ax.plot([ai], [gflops], "osD^vP*X"[i % 8], markersize=8, alpha=0.8,
                       label=f"{name}: {gflops:.1f} GFLOP/s, {gflops / bound * 100:.0f}% of bound")
        marks.append(m)
    ax.add_artist(roofs)
    ax.legend(handles=marks, fontsize=8, loc="upper left")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (flop / byte)")
    ax.set_ylabel("GFLOP/s (xmux)")
    ax.set_title(f"xmux roofline — {r.source}", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return True


def plot_svg(r: Roofline, out: Path) -> None:
    """The roofline as an SVG written by hand (no matplotlib): log-log axes of arithmetic
    intensity and GFLOP/s, the roofs as polylines, each kernel a labelled point."""
    import math
    from xml.sax.saxutils import escape

    w, h, left, right, top, bottom = 860, 560, 70, 250, 40, 50
    ais = [p[1] for p in r.points] or [1.0]
    x0, x1 = min(min(ais) / 4, 0.02), max(max(ais) * 4, 200)
    gf = [p[2] for p in r.points] + [r.fma512]
    y0, y1 = min(min(gf) / 4, x0 * r.read_gbs), max(gf) * 2

    def px(x: float) -> float:
        return left + (math.log10(x / x0) / math.log10(x1 / x0)) * (w - left - right)

    def py(y: float) -> float:
        return h - bottom - (math.log10(y / y0) / math.log10(y1 / y0)) * (h - top - bottom)

    def roof(peak: float, bw: float) -> str:
        xs = [x0 * (x1 / x0) ** (i / 100) for i in range(101)]
        return " ".join(f"{px(x):.1f},{py(min(peak, x * bw)):.1f}" for x in xs)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
             'font-family="sans-serif" font-size="11">',
             f'<rect width="{w}" height="{h}" fill="white"/>',
             f'<text x="{left}" y="20" font-size="12">xmux roofline — {escape(r.source)}</text>']
    for exp in range(math.floor(math.log10(x0)), math.ceil(math.log10(x1)) + 1):
        if x0 <= 10**exp <= x1:
            x = px(10**exp)
            parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{h - bottom}" '
                         'stroke="#ddd"/>')
            parts.append(f'<text x="{x:.1f}" y="{h - bottom + 15}" text-anchor="middle">'
                         f'{10**exp:g}</text>')
    for exp in range(math.floor(math.log10(y0)), math.ceil(math.log10(y1)) + 1):
        if y0 <= 10**exp <= y1:
            y = py(10**exp)
            parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{w - right}" y2="{y:.1f}" '
                         'stroke="#ddd"/>')
            parts.append(f'<text x="{left - 5}" y="{y + 4:.1f}" text-anchor="end">'
                         f'{10**exp:g}</text>')
    parts.append(f'<text x="{(left + w - right) / 2}" y="{h - 12}" text-anchor="middle">'
                 'arithmetic intensity (flop / byte)</text>')
    parts.append(f'<text x="16" y="{(top + h - bottom) / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 16 {(top + h - bottom) / 2})">GFLOP/s (xmux)</text>')
    roofs = [(r.fma512, r.triad_gbs, "black", "", f"FMA 512-bit {r.fma512:.0f} GFLOP/s, "
              f"triad {r.triad_gbs:.0f} GB/s"),
             (r.fma256, r.triad_gbs, "black", "6,4", f"FMA 256-bit {r.fma256:.0f} GFLOP/s"),
             (r.fma512, r.read_gbs, "gray", "2,3", f"read-only sum {r.read_gbs:.0f} GB/s")]
    for i, (peak, bw, color, dash, label) in enumerate(roofs):
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-dasharray="{dash}" '
                     f'points="{roof(peak, bw)}"/>')
        ly = top + 15 + 16 * i
        parts.append(f'<line x1="{w - right + 10}" y1="{ly - 4}" x2="{w - right + 35}" '
                     f'y2="{ly - 4}" stroke="{color}" stroke-dasharray="{dash}"/>')
        parts.append(f'<text x="{w - right + 40}" y="{ly}">{escape(label)}</text>')
    colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"]
    for i, (name, ai, gflops, bits) in enumerate(r.points):
        bound, _ = _bound(r, name, ai, bits)
        c = colors[i % len(colors)]
        parts.append(f'<circle cx="{px(ai):.1f}" cy="{py(gflops):.1f}" r="5" fill="{c}" '
                     f'fill-opacity="0.8"><title>{escape(name)}</title></circle>')
        ly = top + 75 + 16 * i
        parts.append(f'<circle cx="{w - right + 22}" cy="{ly - 4}" r="5" fill="{c}"/>')
        parts.append(f'<text x="{w - right + 40}" y="{ly}">{escape(name)}: {gflops:.1f} '
                     f'GFLOP/s, {gflops / bound * 100:.0f}%</text>')
    parts.append("</svg>")
    out.write_text("\n".join(parts) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="the bench's roofline as a picture")
    ap.add_argument("--plot", metavar="OUT.svg", required=True,
                    help="write the picture here (.svg, .png, .pdf); roofline.csv beside it "
                    "without matplotlib")
    ap.add_argument("--json", type=Path, help="results of `bench/run.py --json FILE` (default: "
                    "the stored numbers of bench/RESULTS.md)")
    ap.add_argument("--results", type=Path, default=RESULTS_MD, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    r = from_json(args.json) if args.json else from_results_md(args.results)
    out = Path(args.plot)
    print(f"roofline: {r.source}")
    if plot(r, out):
        print(f"wrote {out}")
        return 0
    csv_path = out.with_suffix(".csv")
    write_csv(r, csv_path)
    if out.suffix == ".svg":
        plot_svg(r, out)
        print(f"wrote {out} (drawn without matplotlib) and {csv_path}")
    else:
        print(f"matplotlib not installed (pip install matplotlib): wrote {csv_path} instead "
              f"(without it only .svg is drawn)")
    print(f"roofs: triad {r.triad_gbs:.1f} GB/s, read {r.read_gbs:.1f} GB/s, FMA "
          f"{r.fma512:.0f} (512-bit) / {r.fma256:.0f} (256-bit) GFLOP/s")
    for name, ai, gflops, bits in r.points:
        bound, kind = _bound(r, name, ai, bits)
        print(f"  {name:14} {ai:8.3g} flop/B {gflops:8.1f} GFLOP/s  "
              f"{gflops / bound * 100:4.0f}% of {kind} bound")
    return 0


if __name__ == "__main__":
    sys.exit(main())
