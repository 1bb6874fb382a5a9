"""Every mux work-item query in 1-D/2-D/3-D NDRanges with offsets and odd sizes, vs numpy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import xmux

DIM_QUERIES = [
    "get_global_id",
    "get_local_id",
    "get_group_id",
    "get_global_size",
    "get_local_size",
    "get_enqueued_local_size",
    "get_global_offset",
    "get_num_groups",
]
PLAIN_QUERIES = [
    "get_work_dim",
    "get_global_linear_id",
    "get_local_linear_id",
    "get_sub_group_id",
    "get_sub_group_local_id",
    "get_sub_group_size",
    "get_max_sub_group_size",
    "get_num_sub_groups",
]
COLUMNS = [(q, d) for q in DIM_QUERIES for d in range(3)] + [(q, None) for q in PLAIN_QUERIES]


def _kernel_source() -> str:
    """One kernel storing every query (as i64) at out[column, z, y, x] of its work-item."""
    lines = [
        "func.func @queries(%out: memref<?x?x?x?xi64>) attributes {mux.kernel = \"entry_point\"} {",
    ]
    for d in range(3):
        lines.append(f"  %gid{d} = mux.get_global_id {d} : index")
        lines.append(f"  %off{d} = mux.get_global_offset {d} : index")
        lines.append(f"  %p{d} = arith.subi %gid{d}, %off{d} : index")
    for col, (q, d) in enumerate(COLUMNS):
        dim = f" {d}" if d is not None else ""
        lines.append(f"  %q{col} = mux.{q}{dim} : i64")
        lines.append(f"  %c{col} = arith.constant {col} : index")
        lines.append(f"  memref.store %q{col}, %out[%c{col}, %p2, %p1, %p0] : memref<?x?x?x?xi64>")
    lines += ["  func.return", "}"]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def queries_kernel() -> xmux.Kernel:
    return xmux.compile(_kernel_source()).kernel("queries")


def expected(gsz: tuple, lsz: tuple, off: tuple) -> np.ndarray:
    dim = len(gsz)
    G = list(gsz) + [1] * (3 - dim)
    L = list(lsz) + [1] * (3 - dim)
    Off = list(off) + [0] * (3 - dim)
    out = np.zeros((len(COLUMNS), G[2], G[1], G[0]), np.int64)
    for i2, i1, i0 in itertools.product(range(G[2]), range(G[1]), range(G[0])):
        i = (i0, i1, i2)
        grp = [i[d] // L[d] for d in range(3)]
        lid = [i[d] % L[d] for d in range(3)]
        ls = [min(L[d], G[d] - grp[d] * L[d]) for d in range(3)]
        vals = {
            "get_global_id": [Off[d] + i[d] for d in range(3)],
            "get_local_id": lid,
            "get_group_id": grp,
            "get_global_size": G,
            "get_local_size": ls,
            "get_enqueued_local_size": L,
            "get_global_offset": Off,
            "get_num_groups": [-(-G[d] // L[d]) for d in range(3)],
        }
        llid = lid[2] * ls[1] * ls[0] + lid[1] * ls[0] + lid[0]
        plain = {
            "get_work_dim": dim,
            "get_global_linear_id": i[2] * G[1] * G[0] + i[1] * G[0] + i[0],
            "get_local_linear_id": llid,
            "get_sub_group_id": llid,
            "get_sub_group_local_id": 0,
            "get_sub_group_size": 1,
            "get_max_sub_group_size": 1,
            "get_num_sub_groups": ls[0] * ls[1] * ls[2],
        }
        for col, (q, d) in enumerate(COLUMNS):
            out[col, i2, i1, i0] = vals[q][d] if d is not None else plain[q]
    return out


CASES = [
    ((1,), (1,), (0,)),
    ((7,), (7,), (3,)),
    ((13,), (4,), (5,)),  # non-dividing: last group has 1 work-item
    ((64,), (16,), (1000,)),
    ((13, 3), (13, 3), (2, 9)),
    ((13, 3), (5, 2), (0, 1)),
    ((7, 6), (3, 4), (11, 0)),
    ((5, 3, 4), (2, 3, 3), (1, 2, 3)),
    ((3, 7, 2), (3, 2, 1), (0, 0, 7)),
    ((100, 31), (8, 7), (3, 5)),  # above the inline threshold: slices on the thread pool
    ((5, 9, 61), (2, 4, 8), (1, 1, 1)),
]


@pytest.mark.parametrize("gsz,lsz,off", CASES, ids=lambda v: "x".join(map(str, v)))
@pytest.mark.parametrize("threads", [1, 2])
def test_queries_match_reference(queries_kernel, gsz, lsz, off, threads):
    dim = len(gsz)
    G = list(gsz) + [1] * (3 - dim)
    out = np.full((len(COLUMNS), G[2], G[1], G[0]), -1, np.int64)
    queries_kernel(out, global_size=gsz, local_size=lsz, global_offset=off, threads=threads)
    want = expected(gsz, lsz, off)
    for col, (q, d) in enumerate(COLUMNS):
        name = q if d is None else f"{q}({d})"
        np.testing.assert_array_equal(out[col], want[col], err_msg=f"{name} for {gsz}/{lsz}/{off}")
