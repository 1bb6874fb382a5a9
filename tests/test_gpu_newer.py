"""Thread-block clusters and the newer lane ops (issue 31) through xmux.compile against
numpy, and their errors. The lit examples examples/gpu/clusters.mlir and lane_ops.mlir run
the same ops compiled and interpreted (and on the GPU: tests/test_nvptx_examples.py);
tests/filecheck/{gpu,convert_gpu_to_mux,gpu_launch_outlining,nvptx}/ check their IR."""

from __future__ import annotations

import numpy as np
import pytest

import xmux
from xmux.errors import XmuxError

# A 3-D grid of 4 x 6 x 2 blocks in clusters of 2 x 3 x 1; each block stores its cluster
# queries (12 values) at its linear block index.
CLUSTERS = """
func.func @host(%out: memref<?xindex>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  gpu.launch_func @m::@k clusters in (%c2, %c3, %c1) blocks in (%c4, %c6, %c2)
      threads in (%c1, %c1, %c1) args(%out : memref<?xindex>)
  return
}
gpu.module @m {
  gpu.func @k(%out: memref<?xindex>) kernel {
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %bz = gpu.block_id z
    %gx = gpu.grid_dim x
    %gy = gpu.grid_dim y
    %row = arith.muli %bz, %gy : index
    %r2 = arith.addi %row, %by : index
    %r3 = arith.muli %r2, %gx : index
    %block = arith.addi %r3, %bx : index
    %c12 = arith.constant 12 : index
    %base = arith.muli %block, %c12 : index
    %v0 = gpu.cluster_id x
    %v1 = gpu.cluster_id y
    %v2 = gpu.cluster_id z
    %v3 = gpu.cluster_dim x
    %v4 = gpu.cluster_dim y
    %v5 = gpu.cluster_dim z
    %v6 = gpu.cluster_block_id x
    %v7 = gpu.cluster_block_id y
    %v8 = gpu.cluster_block_id z
    %v9 = gpu.cluster_dim_blocks x
    %v10 = gpu.cluster_dim_blocks y
    %v11 = gpu.cluster_dim_blocks z
    STORES
    gpu.return
  }
}
""".replace("STORES", "\n    ".join(
    f"%i{k} = arith.constant {k} : index\n    %p{k} = arith.addi %base, %i{k} : index\n"
    f"    memref.store %v{k}, %out[%p{k}] : memref<?xindex>" for k in range(12)))


def _gpu() -> bool:
    from xmux.runtime import cuda

    return cuda.available()


@pytest.mark.parametrize("target", [
    "cpu", pytest.param("nvptx", marks=pytest.mark.skipif(
        not _gpu(), reason="no CUDA device (CuPy)"))])
def test_cluster_queries_match_numpy(target):
    """On the GPU: real sm_90 clusters (.reqnctapercluster 2, 3, 1, a plain launch)."""
    grid, cluster = np.array([4, 6, 2]), np.array([2, 3, 1])
    out = np.full(grid.prod() * 12, -1, np.int64)
    prog = xmux.compile(CLUSTERS, target=target)
    prog.kernel("k")(out, global_size=tuple(grid), local_size=(1, 1, 1))  # copied back
    z, y, x = np.meshgrid(*(np.arange(n) for n in grid[::-1]), indexing="ij")
    block = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1)  # x fastest, as stored
    n = len(block)
    want = np.concatenate([block // cluster, np.tile(grid // cluster, (n, 1)),
                           block % cluster, np.tile(cluster, (n, 1))], axis=1)
    np.testing.assert_array_equal(out.reshape(n, 12), want)


def _launch(clusters: str, grid: str, second: str = "") -> str:
    return f"""
    func.func @host(%n: index) {{
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      gpu.launch_func @m::@k clusters in ({clusters}) blocks in ({grid}) threads in (%c1, %c1, %c1)
      {second}
      return
    }}
    gpu.module @m {{ gpu.func @k() kernel {{ %0 = gpu.cluster_id x
      gpu.return }} }}"""


@pytest.mark.parametrize("src, message", [
    (_launch("%n, %c1, %c1", "%c2, %c1, %c1"),
     "gpu.launch_func @m::@k in @host: cluster sizes must be positive constants"),
    (_launch("%c2, %c1, %c1", "%c3, %c1, %c1"),
     r"gpu.launch_func @m::@k in @host: the grid's x size is not a multiple of the cluster's "
     r"\(2\): 3 blocks"),
    (_launch("%c2, %c1, %c1", "%c2, %c1, %c1", "gpu.launch_func @m::@k clusters in (%c1, %c1, "
             "%c1) blocks in (%c2, %c1, %c1) threads in (%c1, %c1, %c1)"),
     r"clusters of \[1, 1, 1\] blocks, but another launch of @k uses \[2, 1, 1\]"),
    ("""gpu.module @m { gpu.func @k(%v: vector<2x2xf32>) kernel { %l = gpu.lane_id
       %r = gpu.warp_execute_on_lane_0(%l)[32] args(%v : vector<2x2xf32>) -> (f32) {
       ^bb0(%w: vector<64x2xf32>):
         %c = arith.constant 0.0 : f32
         gpu.yield %c : f32 }
       gpu.return } }""",
     r"'gpu.warp_execute_on_lane_0' in @k: distributing vector<64x2xf32> \(1-D vectors only\)"),
    ("gpu.module @m { gpu.func @k(%f: f32) kernel { %r, %ok = gpu.rotate %f, 1, 64 : f32\n"
     "gpu.return } }", r"'gpu.rotate' in @k: width 64 is wider than the sub-group \(32\)"),
])
def test_errors_name_the_op(src, message):
    with pytest.raises(XmuxError, match=message):
        xmux.compile(src)


@pytest.mark.parametrize("body, message", [
    ("%r, %ok = gpu.rotate %f, 1, 12 : f32", "'gpu.rotate' width must be a power of two, got 12"),
    ("%r, %ok = gpu.rotate %f, 16, 16 : f32", r"'gpu.rotate' offset must be in \[0, 16\), got 16"),
    ("%r = gpu.subgroup_broadcast %f, specific_lane : f32",
     "takes a lane id with specific_lane, and only then"),
    ("%l = gpu.lane_id\n gpu.warp_execute_on_lane_0(%l)[32] args(%v : vector<4xf32>) {"
     "\n ^bb0(%w: vector<64xf32>):\n }",
     "vector<4xf32> is not vector<64xf32> distributed over 32 lanes along one dimension"),
])
def test_verifier_errors(body, message):
    src = (f"gpu.module @m {{ gpu.func @k(%f: f32, %v: vector<4xf32>) kernel {{ {body}\n"
           "gpu.return } }")
    with pytest.raises(Exception, match=message):
        xmux.compile(src)
