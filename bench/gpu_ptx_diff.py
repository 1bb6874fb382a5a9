"""xmux's PTX against NVRTC's for the kernels of bench/gpu.py: the instruction mix, per kernel.

No GPU needed: NVRTC compiles CUDA C++ to PTX on the CPU. It is not a dependency of xmux;
this script uses it when it finds ``libnvrtc.so.12`` (``--nvrtc PATH``, ``$XMUX_NVRTC``, the
``nvidia-cuda-nvrtc-cu12`` wheel on ``sys.path``, or the system's library):

    pip download nvidia-cuda-nvrtc-cu12 --no-deps -d /tmp/nvrtc && (cd /tmp/nvrtc && unzip -q *.whl)
    python bench/gpu_ptx_diff.py --nvrtc /tmp/nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12
    python bench/gpu_ptx_diff.py --kernel reduce_wg --dump /tmp/ptx   # both PTX texts too
    python bench/gpu_ptx_diff.py --sass DIR   # also the SASS mix: ptxas (pip's
        # nvidia-cuda-nvcc-cu12), cuobjdump and nvdisasm (nvidia-cuda-cuobjdump /
        # nvidia-cuda-nvdisasm) found in DIR or on PATH

For each kernel: xmux's PTX entry that bench/gpu.py launches (the read-only variant when the
kernel has one: the bench's buffers are disjoint) beside NVRTC's entry for the CUDA C++ of
``bench/gpu.py`` (``CUDA``), compiled with the options CuPy's RawModule passes there. The mix
counts PTX opcodes with their state space and qualifiers but not their operand type
(``ld.global.nc``, ``shfl.sync.down``, ``mul.wide``, ``mad.lo``: LLVM writes ``.b32`` where
NVVM writes ``.f32``), over the whole entry and over the instructions inside loops (between
a label and a branch back to it), and prints the opcodes whose counts differ.
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import importlib.util
import os
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

#: bench/gpu.py's NVRTC kernel → how xmux builds the same kernel there
KERNELS = {
    "vecadd": ("vecadd.mlir", "vecadd"),
    "reduce_wg": ("reduce_wg.mlir", "reduce_wg"),
    "matmul_tiled": ("matmul_tiled.mlir", "matmul_tiled"),
    "matmul_naive": ("matmul_naive.mlir", "matmul_naive"),
    "acc_sum": ("acc_sum.mlir.in", "acc_sum_acc_parallel_0"),
}
#: operand types: dropped from opcodes so that LLVM's and NVVM's spellings compare
_TYPES = re.compile(r"\.(?:[bsuf](?:8|16|32|64)|pred|v[248])(?=\.|$)")


def find_nvrtc(explicit: str | None) -> str | None:
    candidates = [explicit, os.environ.get("XMUX_NVRTC")]
    for entry in sys.path:
        candidates += glob.glob(os.path.join(entry, "nvidia", "cuda_nvrtc", "lib",
                                             "libnvrtc.so.*"))
    candidates += ["libnvrtc.so.12", "libnvrtc.so"]
    for c in candidates:
        if not c:
            continue
        try:
            ctypes.CDLL(c)
        except OSError:
            continue
        return c
    return None


def nvrtc_ptx(lib_path: str, source: str, arch: str) -> str:
    lib = ctypes.CDLL(lib_path)
    prog = ctypes.c_void_p()
    if lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), b"gpu.cu", 0, None, None):
        raise SystemExit("nvrtcCreateProgram failed")
    opts = [b"-std=c++17", f"--gpu-architecture=compute_{arch[3:]}".encode()]
    status = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    if status:
        raise SystemExit(f"NVRTC failed:\n{log.value.decode()}")
    lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetPTX(prog, ptx)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return ptx.value.decode()


def xmux_ptx(file: str, arch: str) -> str:
    import xmux

    os.environ.setdefault("XMUX_NVPTX_ARCH", arch)
    path = HERE / "kernels" / file
    if file.endswith(".in"):  # bench/gpu.py's OpenACC launch shape
        source: object = path.read_text().format(t="f32", gangs=132 * 8, workers=4, vl=32)
    else:
        source = path
    return xmux.compile(source, target="nvptx", cache=False).ptx


def entry(ptx: str, name: str) -> str:
    """The text of PTX entry ``name`` (its body, from ``.entry`` to the closing brace)."""
    m = re.search(rf"^\.visible \.entry {re.escape(name)}\(", ptx, re.M)
    if m is None:
        raise SystemExit(f"no entry {name} in the PTX")
    end = ptx.find("\n}\n", m.start())
    return ptx[m.start(): end + 3]


def launched_entry(ptx: str, kernel: str) -> str:
    """The read-only variant bench/gpu.py's disjoint buffers select, else the kernel; its
    32-bit address twin where there is one (the bench's arrays fit in 31 bits), unless
    ``XMUX_NVPTX_INDEX32=0`` (as at launch)."""
    from xmux.abi.nvptx_variants import index32_name, parse_variant

    names = re.findall(r"^\.visible \.entry ([^\s(]+)\(", ptx, re.M)
    chosen = next((n for n in names if parse_variant(n, kernel) is not None), kernel)
    if os.environ.get("XMUX_NVPTX_INDEX32", "1") != "0" and index32_name(chosen) in names:
        return index32_name(chosen)
    return chosen


def instructions(body: str) -> list[tuple[str, bool]]:
    """(opcode without operand types, inside a loop) for each instruction of an entry."""
    lines = [ln.strip() for ln in body.split("{", 1)[1].splitlines()]
    labels: dict[str, int] = {}
    ops: list[tuple[int, str]] = []
    loops: list[tuple[int, int]] = []
    for ln in lines:
        if not ln or ln.startswith(("//", ".reg", ".shared", ".local", ".pragma", "}", "{")):
            continue
        if ln.endswith(":"):
            labels[ln[:-1]] = len(ops)
            continue
        text = ln.split("//")[0].strip().rstrip(";")
        if text.startswith("@"):  # a predicate guard
            text = text.split(None, 1)[1]
        opcode = text.split(None, 1)[0]
        target = text.split()[-1] if opcode.startswith("bra") else None
        if target in labels:
            loops.append((labels[target], len(ops)))
        ops.append((len(ops), _TYPES.sub("", opcode)))
    return [(op, any(lo <= i <= hi for lo, hi in loops)) for i, op in ops]


def sass(tools: str, ptx: str, entry_name: str, arch: str) -> str:
    """The SASS of one entry of ``ptx`` (ptxas, then cuobjdump -sass, which runs nvdisasm)."""
    import shutil
    import subprocess
    import tempfile

    def tool(name: str) -> str:
        found = sorted(glob.glob(os.path.join(tools, "**", "bin", name), recursive=True))
        path = found[0] if found else shutil.which(name)
        if path is None:
            raise SystemExit(f"--sass: no {name} under {tools} or on PATH")
        return path

    cuobjdump, nvdisasm = tool("cuobjdump"), tool("nvdisasm")
    env = dict(os.environ, PATH=os.path.dirname(nvdisasm) + os.pathsep + os.environ["PATH"])
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "m.ptx").write_text(ptx)
        subprocess.run([tool("ptxas"), f"-arch={arch}", "-o", f"{d}/m.cubin", f"{d}/m.ptx"],
                       check=True)
        out = subprocess.run([cuobjdump, "-sass", "-fun", entry_name, f"{d}/m.cubin"],
                             check=True, capture_output=True, text=True, env=env).stdout
    return "\n".join(
        re.sub(r"^\s*/\*[0-9a-f]{4}\*/\s*", "", ln).split(" ;")[0]
        for ln in out.splitlines() if re.match(r"^\s*/\*[0-9a-f]{4}\*/", ln))


def sass_mix(ours: str, theirs: str) -> list[str]:
    """Opcodes (predicate and modifiers dropped) whose counts differ, over the whole SASS."""

    def ops(text: str) -> Counter:
        names = []
        for ln in text.splitlines():
            words = [w for w in ln.replace(";", " ").split() if not w.startswith("@")]
            if words and words[0] != "NOP":
                names.append(words[0].split(".")[0])
        return Counter(names)

    ca, cb = ops(ours), ops(theirs)
    diff = sorted((op for op in ca.keys() | cb.keys() if ca[op] != cb[op]),
                  key=lambda op: (-abs(ca[op] - cb[op]), op))
    out = [f"  SASS: xmux {sum(ca.values())}, NVRTC {sum(cb.values())} instructions "
           "(every path: count, not time)"]
    out += [f"        {op:<28} {ca[op]:>5} {cb[op]:>6} {ca[op] - cb[op]:>+5}" for op in diff]
    return out


def sass_loops(text: str) -> list[int]:
    """Instructions (NOPs aside) of each SASS loop of ``sass()``'s text: from a backward
    ``BRA``'s target to the branch (every sm_70+ instruction is 16 bytes: line i is at 16 i)."""
    lines = text.splitlines()
    out = []
    for i, ln in enumerate(lines):
        m = re.search(r"\bBRA(?:\.\w+)*\s+(0x[0-9a-f]+)", ln)
        if m and int(m.group(1), 16) // 16 <= i:
            body = lines[int(m.group(1), 16) // 16: i + 1]
            out.append(sum(1 for x in body if x.split() and x.split()[0] != "NOP"))
    return out


def mix_table(name: str, ours: str, theirs: str) -> list[str]:
    a, b = instructions(ours), instructions(theirs)
    out = [f"instructions: xmux {len(a)}, NVRTC {len(b)}; in loops: xmux "
           f"{sum(inner for _, inner in a)}, NVRTC {sum(inner for _, inner in b)}"]
    for scope, pick in (("whole entry", lambda _x: True), ("in loops", lambda x: x)):
        ca = Counter(op for op, inner in a if pick(inner))
        cb = Counter(op for op, inner in b if pick(inner))
        diff = sorted((op for op in ca.keys() | cb.keys() if ca[op] != cb[op]),
                      key=lambda op: (-abs(ca[op] - cb[op]), op))
        if not diff:
            out.append(f"  {scope}: same mix")
            continue
        out.append(f"  {scope}: {'opcode':<28} {'xmux':>5} {'NVRTC':>6} {'diff':>5}")
        out += [f"  {'':{len(scope)}}  {op:<28} {ca[op]:>5} {cb[op]:>6} {ca[op] - cb[op]:>+5}"
                for op in diff]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nvrtc", help="path of libnvrtc.so.12")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--kernel", action="append", choices=sorted(KERNELS),
                    help="only these kernels (default: all)")
    ap.add_argument("--dump", help="write <kernel>.xmux.ptx and <kernel>.nvrtc.ptx here")
    ap.add_argument("--sass", metavar="DIR",
                    help="also compare the SASS (ptxas, cuobjdump, nvdisasm under DIR or on PATH)")
    args = ap.parse_args()
    lib = find_nvrtc(args.nvrtc)
    if lib is None:
        print("NVRTC not found (--nvrtc PATH, $XMUX_NVRTC, or pip's nvidia-cuda-nvrtc-cu12)")
        return 2
    spec = importlib.util.spec_from_file_location("bench_gpu", HERE / "gpu.py")
    gpu = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(gpu)  # type: ignore[union-attr]
    theirs_ptx = nvrtc_ptx(lib, gpu.CUDA, args.arch)
    for cuda_name in args.kernel or list(KERNELS):
        file, kernel = KERNELS[cuda_name]
        ours_ptx = xmux_ptx(file, args.arch)
        name = launched_entry(ours_ptx, kernel)
        ours, theirs = entry(ours_ptx, name), entry(theirs_ptx, cuda_name)
        print(f"== {cuda_name}: xmux entry {name} vs NVRTC entry {cuda_name}")
        print("\n".join(mix_table(cuda_name, ours, theirs)))
        if args.sass:
            a = sass(args.sass, ours_ptx, name, args.arch)
            b = sass(args.sass, theirs_ptx, cuda_name, args.arch)
            print("\n".join(sass_mix(a, b)))
            print(f"  SASS loops (instructions each): xmux {sass_loops(a)}, NVRTC {sass_loops(b)}")
            if args.dump:
                (Path(args.dump) / f"{cuda_name}.xmux.sass").write_text(a)
                (Path(args.dump) / f"{cuda_name}.nvrtc.sass").write_text(b)
        print()
        if args.dump:
            d = Path(args.dump)
            d.mkdir(parents=True, exist_ok=True)
            (d / f"{cuda_name}.xmux.ptx").write_text(ours)
            (d / f"{cuda_name}.nvrtc.ptx").write_text(theirs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
