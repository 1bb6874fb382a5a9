"""Randomized differential test of privatize-global-atomics: generated kernels whose global
arrays take result-less atomics (every privatizable kind, 8- to 64-bit, static and dynamic
sizes, under scf.if, in inner loops, around work-group barriers, arrays passed twice)
compiled and run on 1-4 threads against the reference interpreter (``xmux.interpret``,
which runs the kernel before any scheduling pass)."""

from __future__ import annotations

import numpy as np
import pytest

import xmux

KINDS = ("addi", "ori", "andi", "maxs", "maxu", "mins", "minu")
NUMPY = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}


def _kernel(rng: np.random.Generator) -> tuple[str, list[tuple[str, int, int, bool]]]:
    """MLIR of a kernel and its arrays: (kind, width, bins, static size)."""
    arrays = [(str(rng.choice(KINDS)), int(rng.choice(list(NUMPY))),
               int(rng.choice([1, 5, 64, 300, 2000])), bool(rng.integers(2)))
              for _ in range(rng.integers(1, 4))]
    if rng.integers(3) == 0:  # a second argument of the first array's kind and size
        arrays[0] = (*arrays[0][:3], False)
        arrays.append(arrays[0])
    types = [f"memref<{nb if static else '?'}xi{w}>" for _, w, nb, static in arrays]
    params = ", ".join(f"%a{j}: {t}" for j, t in enumerate(types))
    lines = [
        "%i = mux.get_global_id 0 : index",
        "%l = mux.get_local_id 0 : index",
        "%v = memref.load %x[%i] : memref<?xi32>",
        "%vi = arith.index_cast %v : i32 to index",
        "%c0 = arith.constant 0 : index",
        "%c1 = arith.constant 1 : index",
        "%one = arith.constant 1 : i32",
        "%zero = arith.constant 0 : i32",
        "%c50 = arith.constant 50 : i32",
        "%vm = arith.remui %v, %c50 : i32",
        "%vm1 = arith.addi %vm, %one : i32",
        "%neg = arith.subi %zero, %vm1 : i32",  # -50..-1
    ]
    barrier = "mux.work_group_barrier work_group, <acq_rel, work_group_memory>"
    for j, (kind, w, nb, _) in enumerate(arrays):
        if rng.integers(4) == 0:
            lines.append(barrier)
        for u in range(rng.integers(1, 3)):
            p = f"%a{j}u{u}"
            c = int(rng.integers(1, 7))
            lines += [f"{p}c = arith.constant {c} : index",
                      f"{p}nb = arith.constant {nb} : index"]
            index = str(rng.choice(["v", "i", "l"]))
            src = {"v": "%vi", "i": "%i", "l": "%l"}[index]
            lines += [f"{p}s = arith.muli {src}, {p}c : index",
                      f"{p}b = arith.remui {p}s, {p}nb : index"]
            value = str(rng.choice(["%v", "%one", "%neg"]))
            cast = (f"{p}w = arith.trunci {value} : i32 to i{w}" if w < 32 else
                    f"{p}w = arith.extsi {value} : i32 to i{w}" if w > 32 else
                    f"{p}w = arith.addi {value}, %one : i32")
            rmw = f"memref.atomic_rmw {kind} {p}w, %a{j}[{p}b] : (i{w}, {types[j]}) -> i{w}"
            shape = int(rng.integers(3))
            if shape == 0:
                lines += [cast, f"{p}r = {rmw}"]
            elif shape == 1:  # under a condition
                lines += [f"{p}m = arith.andi %v, %one : i32",
                          f"{p}z = arith.cmpi eq, {p}m, %one : i32",
                          f"scf.if {p}z {{", cast, f"{p}r = {rmw}", "}"]
            else:  # in an inner loop
                lines += [f"{p}n = arith.constant {int(rng.integers(1, 4))} : index",
                          f"scf.for {p}t = %c0 to {p}n step %c1 {{", cast, f"{p}r = {rmw}", "}"]
    body = "\n  ".join(lines)
    src = (f"func.func @k(%x: memref<?xi32>, {params}) attributes "
           f"{{mux.kernel = \"entry_point\"}} {{\n  {body}\n  return\n}}\n")
    return src, arrays


@pytest.mark.parametrize("seed", range(16))
def test_generated_kernels_match_the_interpreter(seed):
    rng = np.random.default_rng(1600 + seed)
    src, arrays = _kernel(rng)
    local = int(rng.choice([16, 64, 100]))
    n = int(rng.choice([local * 20, local * 13 + 7, 2500, local * 80]))
    threads = int(rng.integers(1, 5))
    x = rng.integers(0, 1 << 20, n, dtype=np.int32)
    start = [rng.integers(-100, 100, nb).astype(NUMPY[w]) for _, w, nb, _ in arrays]
    # an array passed twice (same kind and type: deterministic) must take the shared path
    twice = [(a, b) for a in range(len(arrays)) for b in range(a)
             if arrays[a][:3] == arrays[b][:3] and not arrays[a][3] and not arrays[b][3]]
    k = xmux.compile(src, cache=False)["k"]
    got = [s.copy() for s in start]
    want = [s.copy() for s in start]
    for a, b in twice[: int(rng.integers(2))]:  # passed twice, or two arrays
        got[a], want[a] = got[b], want[b]
    k(x, *got, global_size=n, local_size=local, threads=threads)
    xmux.interpret(src, "k", x, *want, global_size=(n,), local_size=(local,))
    for j, (g, w) in enumerate(zip(got, want, strict=True)):
        np.testing.assert_array_equal(g, w, err_msg=f"array {j} {arrays[j]}\n{src}")
