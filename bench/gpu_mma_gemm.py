"""fp16 GEMM on tensor cores: xmux's ``gpu.subgroup_mma_*`` (WMMA) against cuBLAS and NVRTC.

Run on a machine with an NVIDIA GPU and CuPy (torch optional: cuBLAS through
``torch.matmul``, else ``cupy.matmul``):

    python bench/gpu_mma_gemm.py                       # 4096^3, prints a table
    python bench/gpu_mma_gemm.py --json out.json       # and writes the rows
    python bench/gpu_mma_gemm.py --sweep               # + other tilings, 1 and 2 stages
    python bench/gpu_mma_gemm.py --size 1024 --bn 128  # other sizes / tiles
    python bench/gpu_mma_gemm.py --print-mlir          # the kernel (no GPU needed)

C = A B with A (M x K), B (K x N) f16 row-major and C f32 (f32 accumulators). One algorithm in
two spellings, in one process:

- xmux: MLIR text with upstream's ``gpu.subgroup_mma_*`` ops (as ``convert-vector-to-gpu``
  clients write them), compiled with ``xmux.compile(..., target="nvptx")`` (WMMA intrinsics:
  ``wmma.load`` / ``wmma.mma.sync`` / ``wmma.store``);
- NVRTC: the same tiling in CUDA C++ with ``nvcuda::wmma`` (``cupy.RawModule``; the same
  WMMA instructions as inline PTX when NVRTC finds no ``<mma.h>``).

Tiling: a block of ``WARPS_M x WARPS_N`` warps computes a ``BM x BN`` tile of C; each step of
``BK`` along K copies the A (BM x BK) and B (BK x BN) tiles into shared memory (rows padded by
8 halves against bank conflicts), a barrier, then every warp multiplies its
``(BM / WARPS_M) x (BN / WARPS_N)`` tile of 16x16 fragments held in registers (loop-carried
accumulators), a barrier. By default the next step's tiles are loaded into registers while
this one computes (``--no-prefetch``: not); ``--double-buffer`` stores them into a second
shared-memory stage instead, one barrier per step. Copies: xmux 8 bytes (i64 words, see
``mlir()``), CUDA 16 (``--cuda-copy-bytes 8`` for the same width). cuBLAS is
``torch.matmul`` of the f16 matrices (f16 output, f32 accumulate). Kernel time: CUDA events
around ``REPS`` launches, median of ``ROUNDS`` rounds after a warm-up. Checks: each result
against a float32 product of the first rows (TF32 off); the JSON has xmux's largest
difference from the NVRTC kernel (same fragment order: expected 0).

Goals of issue 31: xmux >= 40% of cuBLAS, within 1.2x of the NVRTC WMMA kernel.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import gpu as gpu_bench  # noqa: E402  (bench/gpu.py: its CUDA-event timer)

REPS = 10
ROUNDS = 5
PAD = 8  # halves added to each shared-memory row (16 bytes: keeps 16-byte alignment)


@dataclass(frozen=True)
class Tiles:
    m: int = 4096
    n: int = 4096
    k: int = 4096
    bm: int = 128
    bn: int = 128
    bk: int = 32
    warps_m: int = 2
    warps_n: int = 4
    prefetch: bool = True  # load the next K step's tiles into registers during this one
    cuda_copy_bytes: int = 16  # the CUDA kernels' copy width (xmux's: 8, i64 words)
    stages: int = 1  # 2: double-buffered shared memory (one barrier per K step)

    @property
    def threads(self) -> int:
        return 32 * self.warps_m * self.warps_n

    @property
    def frags(self) -> tuple[int, int]:
        """16x16 fragments per warp along M and N."""
        return self.bm // self.warps_m // 16, self.bn // self.warps_n // 16

    @property
    def shared_bytes(self) -> int:
        """Static shared memory (48 KiB at most without opting in)."""
        return 2 * self.stages * (self.bm * (self.bk + PAD) + self.bk * (self.bn + PAD))

    def check(self) -> None:
        if not self.valid():
            raise SystemExit(f"tiles do not divide the problem (or exceed 48 KiB of shared "
                             f"memory): {self}")

    def valid(self) -> bool:
        fm, fn = self.frags
        return (self.m % self.bm == 0 and self.n % self.bn == 0 and self.k % self.bk == 0
              and self.bk % 16 == 0 and fm >= 1 and fn >= 1
              and fm * 16 * self.warps_m == self.bm and fn * 16 * self.warps_n == self.bn
              and (self.bm * self.bk // 4) % self.threads == 0
              and (self.bk * self.bn // 4) % self.threads == 0
              and self.stages in (1, 2) and (self.stages == 1 or self.prefetch)
              and self.shared_bytes <= 48 * 1024)


def mlir(t: Tiles) -> str:
    """The kernel in upstream MLIR's gpu dialect (custom syntax, as mlir-opt prints).

    A and B arrive as i64 words (4 halves each; the same bytes): xmux aligns a vector access
    to its element, as numpy arrays are, so an f16 ``vector.load`` would be 8 scalar loads,
    while i64 words copy 8 bytes per instruction. The shared buffer is one workgroup
    attribution of bytes with two ``memref.view``\\ s per tile (``stages`` x rows x
    columns): i64 words for the copies, f16 for ``gpu.subgroup_mma_load_matrix``."""
    t.check()
    fm, fn = t.frags
    S = t.stages  # noqa: N806
    lda, ldb = t.bk + PAD, t.bn + PAD
    a_t, b_t = f"memref<{t.m}x{t.k // 4}xi64>", f"memref<{t.k}x{t.n // 4}xi64>"
    c_t = f"memref<{t.m}x{t.n}xf32>"
    ws = "#gpu.address_space<workgroup>"
    a_bytes, b_bytes = 2 * t.bm * lda * S, 2 * t.bk * ldb * S
    sm_t = f"memref<{a_bytes + b_bytes}xi8, {ws}>"
    as_t, bs_t = f"memref<{S}x{t.bm}x{lda}xf16, {ws}>", f"memref<{S}x{t.bk}x{ldb}xf16, {ws}>"
    as64_t = f"memref<{S}x{t.bm}x{lda // 4}xi64, {ws}>"
    bs64_t = f"memref<{S}x{t.bk}x{ldb // 4}xi64, {ws}>"
    A, B, C = ('!gpu.mma_matrix<16x16xf16, "AOp">', '!gpu.mma_matrix<16x16xf16, "BOp">',
               '!gpu.mma_matrix<16x16xf32, "COp">')
    acc = [(i, j) for i in range(fm) for j in range(fn)]
    L: list[str] = []
    e = L.append
    e("gpu.module @gemm_module {")
    e(f"  gpu.func @mma_gemm(%A: {a_t}, %B: {b_t}, %C: {c_t}) workgroup(%smem : {sm_t}) "
      "kernel {")
    for name, v in [("c0", 0), ("c1", 1), ("c32", 32), ("bm", t.bm), ("bn", t.bn),
                    ("bk", t.bk), ("wn", t.warps_n), ("kend", t.k), ("wtm", t.bm // t.warps_m),
                    ("wtn", t.bn // t.warps_n), ("boff", a_bytes), ("klast", t.k - t.bk)]:
        e(f"    %{name} = arith.constant {v} : index")
    e("    %zero = arith.constant 0.000000e+00 : f32")
    e(f"    %As = memref.view %smem[%c0][] : {sm_t} to {as_t}")
    e(f"    %As64 = memref.view %smem[%c0][] : {sm_t} to {as64_t}")
    e(f"    %Bs = memref.view %smem[%boff][] : {sm_t} to {bs_t}")
    e(f"    %Bs64 = memref.view %smem[%boff][] : {sm_t} to {bs64_t}")
    e("    %tid = gpu.thread_id x")
    e("    %bx = gpu.block_id x")
    e("    %by = gpu.block_id y")
    e("    %w = arith.divui %tid, %c32 : index")
    e("    %wm = arith.divui %w, %wn : index")
    e("    %wnn = arith.remui %w, %wn : index")
    e("    %row0 = arith.muli %by, %bm : index")
    e("    %col0 = arith.muli %bx, %bn : index")
    e(f"    %col0w = arith.divui %col0, %{_const(L, 4)} : index")
    e("    %wr = arith.muli %wm, %wtm : index")
    e("    %wc = arith.muli %wnn, %wtn : index")
    for i in range(fm):
        e(f"    %ar{i} = arith.addi %wr, %{_const(L, 16 * i)} : index")
        e(f"    %cr{i} = arith.addi %row0, %ar{i} : index")
    for j in range(fn):
        e(f"    %bc{j} = arith.addi %wc, %{_const(L, 16 * j)} : index")
        e(f"    %cc{j} = arith.addi %col0, %bc{j} : index")
    e(f"    %z = gpu.subgroup_mma_constant_matrix %zero : {C}")
    # global -> shared in i64 words (4 halves): shared positions hoisted, global ones per k
    copies: list[tuple[str, int, str, str, str, str]] = []
    for tile, rows, words, src, dst, st, sh in (
        ("ta", t.bm, t.bk // 4, "A", "As64", a_t, as64_t),
        ("tb", t.bk, t.bn // 4, "B", "Bs64", b_t, bs64_t),
    ):
        for v in range(rows * words // t.threads):
            e(f"    %{tile}i{v} = arith.addi %tid, %{_const(L, v * t.threads)} : index")
            e(f"    %{tile}r{v} = arith.divui %{tile}i{v}, %{_const(L, words)} : index")
            e(f"    %{tile}c{v} = arith.remui %{tile}i{v}, %{_const(L, words)} : index")
            copies.append((tile, v, src, dst, st, sh))

    def global_loads(k: str, tag: str, indent: str) -> list[str]:
        """Load this thread's words of the tiles at K offset ``%{k}``; their names."""
        e(f"{indent}%kw{tag} = arith.divui %{k}, %{_const(L, 4)} : index")
        names = []
        for tile, v, src, _dst, st, _sh in copies:
            r0, c0_ = ("%row0", f"%kw{tag}") if tile == "ta" else (f"%{k}", "%col0w")
            e(f"{indent}%{tile}gr{v}{tag} = arith.addi {r0}, %{tile}r{v} : index")
            e(f"{indent}%{tile}gc{v}{tag} = arith.addi {c0_}, %{tile}c{v} : index")
            e(f"{indent}%{tile}v{v}{tag} = memref.load %{src}[%{tile}gr{v}{tag}, "
              f"%{tile}gc{v}{tag}] : {st}")
            names.append(f"%{tile}v{v}{tag}")
        return names

    def shared_stores(words: list[str], stage: str, indent: str) -> None:
        for (tile, v, _src, dst, _st, sh), w in zip(copies, words, strict=True):
            e(f"{indent}memref.store {w}, %{dst}[%{stage}, %{tile}r{v}, %{tile}c{v}] : {sh}")

    def next_loads() -> list[str]:  # the last step reloads its own tiles (no branch)
        e("      %kn0 = arith.addi %k, %bk : index")
        e("      %kn = arith.minui %kn0, %klast : index")
        return global_loads("kn", "n", "      ")

    inits = [f"%x{i}_{j} = %z" for i, j in acc]
    types = [C] * len(acc)
    outs = [f"%acc{i}_{j}" for i, j in acc]
    if S == 2:  # the next step's tiles go to the other stage: one barrier per step
        shared_stores(global_loads("c0", "p", "    "), "c0", "    ")
        e("    gpu.barrier")
        inits.append("%st = %c0")
        types.append("index")
        outs.append("%stout")
    elif t.prefetch:  # the next step's words wait in registers while this one computes
        first = global_loads("c0", "p", "    ")
        inits += [f"%w{n} = {x}" for n, x in enumerate(first)]
        types += ["i64"] * len(first)
        outs += [f"%wout{n}" for n in range(len(first))]
    e(f"    {', '.join(outs)} = scf.for %k = %c0 to %kend step %bk iter_args("
      f"{', '.join(inits)}) -> ({', '.join(types)}) {{")
    nxt: list[str] = []
    stage = "st" if S == 2 else "c0"
    if S == 2:
        nxt = next_loads()
    else:
        words = ([f"%w{n}" for n in range(len(copies))] if t.prefetch
                 else global_loads("k", "", "      "))
        shared_stores(words, "c0", "      ")
        e("      gpu.barrier")
        if t.prefetch:
            nxt = next_loads()
    cur = {(i, j): f"%x{i}_{j}" for i, j in acc}
    for kk in range(0, t.bk, 16):
        kc = _const(L, kk)
        for i in range(fm):
            e(f"      %fa{kk}_{i} = gpu.subgroup_mma_load_matrix %As[%{stage}, %ar{i}, %{kc}] "
              f"{{leadDimension = {lda} : index}} : {as_t} -> {A}")
        for j in range(fn):
            e(f"      %fb{kk}_{j} = gpu.subgroup_mma_load_matrix %Bs[%{stage}, %{kc}, %bc{j}] "
              f"{{leadDimension = {ldb} : index}} : {bs_t} -> {B}")
        for i, j in acc:
            e(f"      %d{kk}_{i}_{j} = gpu.subgroup_mma_compute %fa{kk}_{i}, %fb{kk}_{j}, "
              f"{cur[(i, j)]} : {A}, {B} -> {C}")
            cur[(i, j)] = f"%d{kk}_{i}_{j}"
    yields = [cur[a] for a in acc]
    if S == 2:
        e("      %st1 = arith.subi %c1, %st : index")
        shared_stores(nxt, "st1", "      ")
        e("      gpu.barrier")
        yields.append("%st1")
    else:
        e("      gpu.barrier")
        yields += nxt
    e(f"      scf.yield {', '.join(yields)} : {', '.join(types)}")
    e("    }")
    for i, j in acc:
        e(f"    gpu.subgroup_mma_store_matrix %acc{i}_{j}, %C[%cr{i}, %cc{j}] "
          f"{{leadDimension = {t.n} : index}} : {C}, {c_t}")
    e("    gpu.return")
    e("  }")
    e("}")
    consts = [f"    %k{v} = arith.constant {v} : index" for v in sorted(_CONSTS)]
    _CONSTS.clear()
    return "\n".join([*L[:2], *consts, *L[2:]])


_CONSTS: set[int] = set()


def _const(_lines: list[str], v: int) -> str:
    """The name of an index constant ``v`` (declared at the top of the kernel)."""
    _CONSTS.add(v)
    return f"k{v}"


def _cuda_copies(t: Tiles, vec: str) -> tuple[str, str, str, str]:
    """The global -> shared copies and barriers of ``cuda()`` / ``cuda_ptx()``, as in
    ``mlir()`` (``t.cuda_copy_bytes`` each: 16, CUDA's natural ``uint4``, or 8 as xmux's i64
    words): code before the K loop, at the top of a step (up to its first barrier), before
    its compute, after it (up to the end of the step)."""
    h = t.cuda_copy_bytes // 2  # halves per copy
    if h == 4:
        vec = {"uint4": "uint2", "u4": "u2"}[vec]
    na, nb = t.bm * t.bk // h // t.threads, t.bk * t.bn // h // t.threads
    pos_a = f"int idx = tid + v * {t.threads}, r = idx / {t.bk // h}, c = idx % {t.bk // h} * {h};"
    pos_b = f"int idx = tid + v * {t.threads}, r = idx / {t.bn // h}, c = idx % {t.bn // h} * {h};"
    ga = f"*(const {vec}*)&A[(long)(row0 + r) * {t.k} + KK + c]"
    gb = f"*(const {vec}*)&B[(long)(KK + r) * {t.n} + col0 + c]"
    sync = "    __syncthreads();\n"

    def copy(k: str, stage: str, a: str, b: str) -> str:
        """Stores into stage ``stage`` of what ``a`` / ``b`` give (``KK``: the K offset)."""
        return (f"    #pragma unroll\n    for (int v = 0; v < {na}; v++) {{ {pos_a} "
                f"*({vec}*)&As[{stage}][r][c] = {a.replace('KK', k)}; }}\n"
                f"    #pragma unroll\n    for (int v = 0; v < {nb}; v++) {{ {pos_b} "
                f"*({vec}*)&Bs[{stage}][r][c] = {b.replace('KK', k)}; }}\n")

    def load(k: str) -> str:
        return (f"    #pragma unroll\n    for (int v = 0; v < {na}; v++) {{ {pos_a} "
                f"ra[v] = {ga.replace('KK', k)}; }}\n"
                f"    #pragma unroll\n    for (int v = 0; v < {nb}; v++) {{ {pos_b} "
                f"rb[v] = {gb.replace('KK', k)}; }}\n")

    if not t.prefetch:
        return "  const int st = 0;\n", copy("k", "0", ga, gb) + sync, "", sync
    regs = f"  {vec} ra[{na}], rb[{nb}];\n{load('0')}"
    nxt = f"    const int kn = min(k + {t.bk}, {t.k - t.bk});\n{load('kn')}"
    if t.stages == 1:
        return (regs + "  const int st = 0;\n", copy("k", "0", "ra[v]", "rb[v]") + sync, nxt,
                sync)
    return (regs + copy("0", "0", "ra[v]", "rb[v]") + sync + "  int st = 0;\n", "", nxt,
            copy("k", "st ^ 1", "ra[v]", "rb[v]") + sync + "    st ^= 1;\n")


def cuda(t: Tiles) -> str:
    """The same algorithm in CUDA C++ with nvcuda::wmma."""
    fm, fn = t.frags
    before, top, mid, end = _cuda_copies(t, "uint4")
    return rf"""
#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void __launch_bounds__({t.threads})
wmma_gemm(const half* __restrict__ A, const half* __restrict__ B, float* __restrict__ C) {{
  __shared__ __align__(16) half As[{t.stages}][{t.bm}][{t.bk + PAD}];
  __shared__ __align__(16) half Bs[{t.stages}][{t.bk}][{t.bn + PAD}];
  const int tid = threadIdx.x, w = tid / 32, wm = w / {t.warps_n}, wn = w % {t.warps_n};
  const int row0 = blockIdx.y * {t.bm}, col0 = blockIdx.x * {t.bn};
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[{fm}][{fn}];
  #pragma unroll
  for (int i = 0; i < {fm}; i++)
    #pragma unroll
    for (int j = 0; j < {fn}; j++) wmma::fill_fragment(acc[i][j], 0.0f);
{before}
  for (int k = 0; k < {t.k}; k += {t.bk}) {{
{top}{mid}    #pragma unroll
    for (int kk = 0; kk < {t.bk}; kk += 16) {{
      wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a[{fm}];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b[{fn}];
      #pragma unroll
      for (int i = 0; i < {fm}; i++)
        wmma::load_matrix_sync(a[i], &As[st][wm * {t.bm // t.warps_m} + 16 * i][kk], {t.bk + PAD});
      #pragma unroll
      for (int j = 0; j < {fn}; j++)
        wmma::load_matrix_sync(b[j], &Bs[st][kk][wn * {t.bn // t.warps_n} + 16 * j], {t.bn + PAD});
      #pragma unroll
      for (int i = 0; i < {fm}; i++)
        #pragma unroll
        for (int j = 0; j < {fn}; j++) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }}
{end}  }}
  #pragma unroll
  for (int i = 0; i < {fm}; i++)
    #pragma unroll
    for (int j = 0; j < {fn}; j++)
      wmma::store_matrix_sync(&C[(long)(row0 + wm * {t.bm // t.warps_m} + 16 * i) * {t.n}
                                 + col0 + wn * {t.bn // t.warps_n} + 16 * j],
                              acc[i][j], {t.n}, wmma::mem_row_major);
}}
"""


def cuda_ptx(t: Tiles) -> str:
    """``cuda(t)`` without ``<mma.h>`` (an NVRTC without the toolkit's headers): the same
    kernel with the WMMA instructions nvcuda::wmma emits written as inline PTX."""
    fm, fn = t.frags
    before, top, mid, end = _cuda_copies(t, "u4")
    regs = ",".join(f"%{i}" for i in range(8))
    return rf"""
struct alignas(16) u4 {{ unsigned x, y, z, w; }};
struct alignas(8) u2 {{ unsigned x, y; }};
__device__ __forceinline__ unsigned smem(const void* p) {{
  unsigned r;
  asm("{{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }}" : "=r"(r) : "l"(p));
  return r;
}}
#define LOAD(kind, r, p, ld) asm volatile("wmma.load." kind \
    ".sync.aligned.row.m16n16k16.shared.f16 {{{regs}}}, [%8], %9;" \
    : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), \
      "=r"(r[7]) : "r"(smem(p)), "r"(ld))
extern "C" __global__ void __launch_bounds__({t.threads})
wmma_gemm(const unsigned short* __restrict__ A, const unsigned short* __restrict__ B,
          float* __restrict__ C) {{
  __shared__ alignas(16) unsigned short As[{t.stages}][{t.bm}][{t.bk + PAD}];
  __shared__ alignas(16) unsigned short Bs[{t.stages}][{t.bk}][{t.bn + PAD}];
  const int tid = threadIdx.x, w = tid / 32, wm = w / {t.warps_n}, wn = w % {t.warps_n};
  const int row0 = blockIdx.y * {t.bm}, col0 = blockIdx.x * {t.bn};
  float acc[{fm}][{fn}][8];
  #pragma unroll
  for (int i = 0; i < {fm}; i++)
    #pragma unroll
    for (int j = 0; j < {fn}; j++)
      #pragma unroll
      for (int e = 0; e < 8; e++) acc[i][j][e] = 0.0f;
{before}
  for (int k = 0; k < {t.k}; k += {t.bk}) {{
{top}{mid}    #pragma unroll
    for (int kk = 0; kk < {t.bk}; kk += 16) {{
      unsigned a[{fm}][8], b[{fn}][8];
      #pragma unroll
      for (int i = 0; i < {fm}; i++)
        LOAD("a", a[i], &As[st][wm * {t.bm // t.warps_m} + 16 * i][kk], {t.bk + PAD});
      #pragma unroll
      for (int j = 0; j < {fn}; j++)
        LOAD("b", b[j], &Bs[st][kk][wn * {t.bn // t.warps_n} + 16 * j], {t.bn + PAD});
      #pragma unroll
      for (int i = 0; i < {fm}; i++)
        #pragma unroll
        for (int j = 0; j < {fn}; j++) {{
          float* d = acc[i][j];
          asm volatile("wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32 {{{regs}}}, "
                       "{{%8,%9,%10,%11,%12,%13,%14,%15}}, {{%16,%17,%18,%19,%20,%21,%22,%23}}, "
                       "{{{regs}}};"
                       : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
                         "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                       : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]),
                         "r"(a[i][4]), "r"(a[i][5]), "r"(a[i][6]), "r"(a[i][7]),
                         "r"(b[j][0]), "r"(b[j][1]), "r"(b[j][2]), "r"(b[j][3]),
                         "r"(b[j][4]), "r"(b[j][5]), "r"(b[j][6]), "r"(b[j][7]));
        }}
    }}
{end}  }}
  #pragma unroll
  for (int i = 0; i < {fm}; i++)
    #pragma unroll
    for (int j = 0; j < {fn}; j++) {{
      float* d = acc[i][j];
      float* p = &C[(long)(row0 + wm * {t.bm // t.warps_m} + 16 * i) * {t.n}
                    + col0 + wn * {t.bn // t.warps_n} + 16 * j];
      asm volatile("wmma.store.d.sync.aligned.row.m16n16k16.f32 [%0], "
                   "{{%1,%2,%3,%4,%5,%6,%7,%8}}, %9;"
                   :: "l"(p), "f"(d[0]), "f"(d[1]), "f"(d[2]), "f"(d[3]), "f"(d[4]),
                      "f"(d[5]), "f"(d[6]), "f"(d[7]), "r"({t.n}) : "memory");
    }}
}}
"""


def _nvrtc(cp, t: Tiles):
    """(variant, kernel): ``nvcuda::wmma`` when NVRTC finds ``<mma.h>``, else inline PTX."""
    try:
        mod = cp.RawModule(code=cuda(t), options=("-std=c++17",))
        return "nvcuda::wmma", mod.get_function("wmma_gemm")
    except Exception as e:  # noqa: BLE001 - CuPy's CompileException and friends
        print(f"note: <mma.h> not usable by NVRTC ({str(e).splitlines()[0][:120]}); "
              "the same kernel with inline-PTX WMMA", file=sys.stderr)
        mod = cp.RawModule(code=cuda_ptx(t), options=("-std=c++17",))
        return "inline-PTX wmma", mod.get_function("wmma_gemm")


def _cublas(cp, A, B):
    """(name, f() -> C f16) for cuBLAS: torch.matmul when torch has CUDA, else cupy.matmul
    (the operands converted once: zero-copy through __cuda_array_interface__)."""
    try:
        import torch

        if torch.cuda.is_available():
            torch.backends.cuda.matmul.allow_tf32 = False
            a, b = torch.as_tensor(A, device="cuda"), torch.as_tensor(B, device="cuda")
            return f"cuBLAS (torch.matmul, torch {torch.__version__})", lambda: a @ b
    except ImportError:
        pass
    return f"cuBLAS (cupy.matmul, CuPy {cp.__version__})", lambda: cp.matmul(A, B)


#: ``--sweep``: tilings tried (xmux and NVRTC each), best xmux one reported against cuBLAS.
SWEEP = ((128, 128, 32, 2, 4), (128, 128, 64, 2, 4), (128, 256, 32, 2, 4),
         (256, 128, 32, 4, 2), (64, 128, 32, 2, 2))


def run(tilings: list[Tiles]) -> dict:
    import xmux
    from xmux.runtime import cuda as xcuda

    if not xcuda.available():
        raise SystemExit("bench/gpu_mma_gemm.py needs an NVIDIA GPU and CuPy (none here)")
    import cupy as cp

    t0 = tilings[0]
    timeit = gpu_bench._timer(cp, ROUNDS, REPS)
    flops = 2.0 * t0.m * t0.n * t0.k
    rows: list[dict] = []
    started = time.perf_counter()

    rng = cp.random.default_rng(0)
    A = (rng.random((t0.m, t0.k), dtype=cp.float32) * 2 - 1).astype(cp.float16)
    B = (rng.random((t0.k, t0.n), dtype=cp.float32) * 2 - 1).astype(cp.float16)
    A64, B64 = A.view(cp.int64), B.view(cp.int64)  # the same bytes, 4 halves per word
    check_rows = min(t0.m, 256)
    ref = A[:check_rows].astype(cp.float32) @ B.astype(cp.float32)
    tol = dict(rtol=1e-3, atol=1e-2)

    def row(impl: str, seconds: float, ok: bool, **extra) -> dict:
        rows.append({"impl": impl, "ms": seconds * 1e3, "TFLOPs": flops / seconds / 1e12,
                     "ok": bool(ok), **extra})
        return rows[-1]

    # -- cuBLAS -------------------------------------------------------------------------------
    name, blas = _cublas(cp, A, B)
    t_b = timeit(blas)
    c_b = cp.asarray(blas())[:check_rows].astype(cp.float32)
    row(name + ", f16 out", t_b, bool(cp.allclose(c_b, ref, rtol=1e-2, atol=5e-2)))

    pairs = []
    for t in tilings:
        tiles = f"{t.bm}x{t.bn}x{t.bk}, {t.warps_m}x{t.warps_n} warps" + (
            "" if t.prefetch else ", no prefetch") + (", 2 stages" if t.stages == 2 else "")
        grid = (t.n // t.bn, t.m // t.bm)
        # -- xmux ---------------------------------------------------------------------------
        c0 = time.perf_counter()
        prog = xmux.compile(mlir(t), target="nvptx")
        compile_s = time.perf_counter() - c0
        k = prog["mma_gemm"]
        wmma = {op: prog.ptx.count(f"wmma.{op}") for op in ("load", "mma", "store")}
        C_x = cp.zeros((t.m, t.n), cp.float32)
        gs, ls = (grid[0] * t.threads, grid[1]), (t.threads, 1)
        t_x = timeit(lambda k=k, C_x=C_x, gs=gs, ls=ls: k(A64, B64, C_x, global_size=gs,
                                                         local_size=ls))
        x = row(f"xmux nvptx (gpu.subgroup_mma), {tiles}", t_x,
                bool(cp.allclose(C_x[:check_rows], ref, **tol)), compile_s=compile_s,
                ptx_wmma=wmma, tiles=t.__dict__)
        # -- NVRTC wmma -----------------------------------------------------------------------
        c0 = time.perf_counter()
        variant, f = _nvrtc(cp, t)
        compile_s = time.perf_counter() - c0
        C_n = cp.zeros((t.m, t.n), cp.float32)
        t_n = timeit(lambda f=f, C_n=C_n, grid=grid, t=t: f(grid, (t.threads,), (A, B, C_n)))
        n = row(f"NVRTC CUDA C++ ({variant}), {tiles}", t_n,
                bool(cp.allclose(C_n[:check_rows], ref, **tol)), compile_s=compile_s,
                max_abs_diff_vs_xmux=float(cp.abs(C_x - C_n).max()), tiles=t.__dict__)
        pairs.append((t_x, t_n, x, n))

    t_x, t_n, x, n = min(pairs, key=lambda p: p[0])  # the fastest xmux tiling and its twin
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    return {
        "device": xcuda.device_name(), "sms": props["multiProcessorCount"],
        "cupy": cp.__version__, "size": [t0.m, t0.n, t0.k], "rows": rows,
        "best_xmux": x["impl"], "xmux_over_cublas": t_b / t_x, "xmux_time_over_nvrtc": t_x / t_n,
        "goals": {"xmux >= 40% of cuBLAS": t_b / t_x >= 0.4,
                  "xmux within 1.2x of NVRTC": t_x / t_n <= 1.2},
        "wall_s": time.perf_counter() - started,
    }


def report(r: dict) -> None:
    m, n, k = r["size"]
    print(f"device: {r['device']}, {r['sms']} SMs, CuPy {r['cupy']}; fp16 GEMM {m}x{n}x{k}, "
          "f32 accumulate\n")
    print("| implementation | ms | TFLOP/s | ok |")
    print("|---|---:|---:|---|")
    for x in r["rows"]:
        print(f"| {x['impl']} | {x['ms']:.3f} | {x['TFLOPs']:.1f} | {x['ok']} |")
    print(f"\nbest xmux: {r['best_xmux']}: {100 * r['xmux_over_cublas']:.0f}% of cuBLAS; its "
          f"time / NVRTC's (same tiling) = {r['xmux_time_over_nvrtc']:.2f}; goals: {r['goals']}; "
          f"wall {r['wall_s']:.1f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=4096, help="M = N = K (default 4096)")
    ap.add_argument("--bm", type=int, default=128)
    ap.add_argument("--bn", type=int, default=128)
    ap.add_argument("--bk", type=int, default=32)
    ap.add_argument("--warps-m", type=int, default=2)
    ap.add_argument("--warps-n", type=int, default=4)
    ap.add_argument("--sweep", action="store_true",
                    help=f"also the tilings {SWEEP} (bm, bn, bk, warps_m, warps_n), each with "
                         "one and two shared-memory stages where they fit")
    ap.add_argument("--no-prefetch", action="store_true",
                    help="copy each K step's tiles at its start (no register prefetch)")
    ap.add_argument("--double-buffer", action="store_true",
                    help="two shared-memory stages, one barrier per K step")
    ap.add_argument("--cuda-copy-bytes", type=int, choices=(8, 16), default=16,
                    help="the CUDA kernels' global->shared copy width (xmux copies 8 bytes)")
    ap.add_argument("--json", help="write the result to this file")
    ap.add_argument("--print-mlir", action="store_true", help="print the kernel and exit")
    ap.add_argument("--print-cuda", action="store_true", help="print the CUDA C++ and exit")
    ap.add_argument("--print-cuda-ptx", action="store_true",
                    help="print the inline-PTX CUDA C++ (NVRTC without <mma.h>) and exit")
    args = ap.parse_args()
    extra = {"prefetch": not args.no_prefetch, "cuda_copy_bytes": args.cuda_copy_bytes,
             "stages": 2 if args.double_buffer else 1}
    n = args.size
    t = Tiles(n, n, n, args.bm, args.bn, args.bk, args.warps_m, args.warps_n, **extra)
    t.check()
    if args.print_mlir or args.print_cuda or args.print_cuda_ptx:
        print(mlir(t) if args.print_mlir else cuda(t) if args.print_cuda else cuda_ptx(t))
        return 0
    tilings = [t]
    if args.sweep:  # each tiling with one and two shared-memory stages (where they fit)
        more = [Tiles(n, n, n, *c, **{**extra, "stages": st}) for c in SWEEP for st in (1, 2)]
        tilings += [x for x in more if x.valid() and x != t and (x.prefetch or x.stages == 1)]
    result = run(tilings)
    report(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0 if all(x["ok"] for x in result["rows"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
