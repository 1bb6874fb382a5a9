"""work-item-loops, define-mux-builtins and add-floating-point-control: IR checks run from
Python (verifying after every pass) and numerics of compiled kernels against numpy."""

from __future__ import annotations

import ctypes
import itertools
import platform

import numpy as np
import pytest
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

import xmux
from tests.kernel_texts import VECADD
from xmux import pipelines
from xmux.dialects import attrs, mux
from xmux.errors import NotSupportedError, XmuxError
from xmux.registry import get_all_passes, make_context
from xmux.transforms.add_floating_point_control import AddFloatingPointControlPass
from xmux.transforms.define_mux_builtins import DefineMuxBuiltinsPass
from xmux.transforms.work_item_loops import WorkItemLoopsPass

# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------


def parse(text: str) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def run(text: str, *passes) -> ModuleOp:
    module = parse(text)
    ctx = make_context()
    for p in passes:
        p.apply(ctx, module)
        module.verify()
    return module


def pipeline(fp_control: bool = False):
    """The CPU pipeline, without metadata passes not written yet (kernels here are marked)."""
    available = get_all_passes()
    names = [n for n in pipelines.KERNEL_STAGES if n in available]
    if fp_control:
        names.append("add-floating-point-control")
    names += pipelines.LOWERING_STAGES
    return [pipelines.make_pass(n) for n in names]


def compile_kernel(text: str, fp_control: bool = False):
    return xmux.compile(text, pipeline=pipeline(fp_control), cache=False)


def mux_ops(module: ModuleOp) -> list[str]:
    return [op.name for op in module.walk() if op.dialect_name() == "mux"]


# ---------------------------------------------------------------------------------------
# work-item-loops (IR)
# ---------------------------------------------------------------------------------------



def loop_nest(kernel: func.FuncOp) -> list[scf.ForOp]:
    """The work-item loops of a kernel, outermost first."""
    return [op for op in kernel.walk() if isinstance(op, scf.ForOp)]


def set_dims(loop: scf.ForOp) -> list[int]:
    return [
        op.dim.value.data for op in loop.body.block.ops if isinstance(op, mux.SetLocalIdOp)
    ]


@pytest.mark.parametrize(
    "order, expected",
    [((2, 1, 0), [2, 1, 0]), ((0, 1, 2), [0, 1, 2]), ((2, 0, 1), [2, 0, 1])],
)
def test_loop_order_follows_work_item_order(order, expected):
    text = VECADD.replace(
        '{mux.kernel = "entry_point"}',
        '{mux.kernel = "entry_point", mux.work_item_order = array<i64: '
        + ", ".join(map(str, order))
        + ">}",
    )
    module = run(text, WorkItemLoopsPass())
    kernel = attrs.entry_points(module)[0]
    loops = loop_nest(kernel)
    assert [set_dims(loop) for loop in loops] == [[d] for d in expected]
    assert [attrs.is_work_item_loop(loop) for loop in loops] == [False, False, True]
    # the kernel keeps its name and signature
    assert kernel.sym_name.data == "vecadd"
    assert len(kernel.function_type.inputs) == 3


def test_reqd_size_gives_constant_bounds_and_drops_unit_dims():
    text = VECADD.replace(
        '{mux.kernel = "entry_point"}',
        '{mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 2>}',
    )
    module = run(text, WorkItemLoopsPass())
    loops = loop_nest(attrs.entry_points(module)[0])
    assert [set_dims(loop) for loop in loops] == [[2], [0]]
    bounds = [loop.ub.owner.value.value.data for loop in loops]  # type: ignore[union-attr]
    assert bounds == [2, 8]
    assert not any(isinstance(op, mux.GetLocalSizeOp) for op in module.walk())


def test_barrier_splits_the_nest_and_leaves_a_fence():
    text = VECADD.replace(
        "func.return", "mux.work_group_barrier work_group, <acq_rel, work_group_memory>\n"
        "  func.return"
    )
    module = run(text, WorkItemLoopsPass())
    names = mux_ops(module)
    assert "mux.work_group_barrier" not in names
    assert names.count("mux.mem_barrier") == 1


def test_collective_must_be_lowered_first():
    text = """
    func.func @k(%x: i32) attributes {mux.kernel = "entry_point"} {
      %r = mux.work_group_reduce add %x : i32
      func.return
    }
    """
    with pytest.raises(NotSupportedError, match="'mux.work_group_reduce' in kernel @k must be"):
        run(text, WorkItemLoopsPass())


def test_kernel_with_results_is_rejected():
    text = """
    func.func @k(%x: f32) -> f32 attributes {mux.kernel = "entry_point"} {
      func.return %x : f32
    }
    """
    with pytest.raises(XmuxError, match="kernel @k: a kernel must return nothing"):
        run(text, WorkItemLoopsPass())


# ---------------------------------------------------------------------------------------
# define-mux-builtins (IR)
# ---------------------------------------------------------------------------------------


def test_no_mux_op_left_and_params_reach_helpers():
    text = """
    func.func @leaf() -> index {
      %l = mux.get_local_linear_id : index
      func.return %l : index
    }
    func.func @mid() -> index {
      %l = func.call @leaf() : () -> index
      func.return %l : index
    }
    func.func @unrelated(%x: index) -> index {
      func.return %x : index
    }
    func.func @k(%o: memref<?xindex>) attributes {mux.kernel = "entry_point"} {
      %i = mux.get_global_id 0 : index
      %l = func.call @mid() : () -> index
      memref.store %l, %o[%i] : memref<?xindex>
      mux.mem_barrier work_group, <acq_rel, work_group_memory>
      func.return
    }
    """
    module = run(text, WorkItemLoopsPass(), DefineMuxBuiltinsPass())
    assert mux_ops(module) == []
    funcs = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
    for name in ("leaf", "mid", "k"):
        assert attrs.has_scheduling_params(funcs[name]), name
        assert [a.name_hint for a in funcs[name].args[-3:]] == [
            "wi_info",
            "wg_info",
            "sched_info",
        ]
    assert not attrs.has_scheduling_params(funcs["unrelated"])
    assert len(funcs["unrelated"].args) == 1


def test_dma_events_vanish():
    text = """
    func.func @k(%l: memref<16xf32, 3>, %g: memref<?xf32>) {
      %n = arith.constant 64 : index
      %e = mux.dma_read_1d %l, %g width(%n) : memref<16xf32, 3>, memref<?xf32>
      %e2 = mux.dma_write_1d %g, %l width(%n) event(%e) : memref<?xf32>, memref<16xf32, 3>
      mux.dma_wait %e2
      func.return
    }
    """
    module = run(text, DefineMuxBuiltinsPass())
    assert mux_ops(module) == []
    assert "mux.event" not in str(module)


def test_dma_between_element_types_is_rejected():
    text = """
    func.func @k(%l: memref<16xi32, 3>, %g: memref<?xf32>, %n: index) {
      %e = mux.dma_read_1d %l, %g width(%n) : memref<16xi32, 3>, memref<?xf32>
      func.return
    }
    """
    with pytest.raises(NotSupportedError, match="different element types"):
        run(text, DefineMuxBuiltinsPass())


def test_sub_group_shuffle_is_not_supported_yet():
    text = """
    func.func @k(%x: i32, %i: i32) -> i32 {
      %r = mux.sub_group_shuffle %x, %i : i32
      func.return %r : i32
    }
    """
    with pytest.raises(NotSupportedError, match="'mux.sub_group_shuffle' in @k is not supported"):
        run(text, DefineMuxBuiltinsPass())


# ---------------------------------------------------------------------------------------
# Numerics: every query, against numpy
# ---------------------------------------------------------------------------------------

# (op, dim or None, result type)
QUERIES: list[tuple[str, int | None, str]] = [
    *[("get_global_id", d, "index") for d in range(3)],
    *[("get_local_id", d, "i32") for d in range(3)],
    *[("get_group_id", d, "i64") for d in range(3)],
    *[("get_num_groups", d, "index") for d in range(3)],
    *[("get_local_size", d, "index") for d in range(3)],
    *[("get_enqueued_local_size", d, "i32") for d in range(3)],
    *[("get_global_size", d, "index") for d in range(3)],
    *[("get_global_offset", d, "index") for d in range(3)],
    ("get_work_dim", None, "i32"),
    ("get_global_linear_id", None, "index"),
    ("get_local_linear_id", None, "i64"),
    ("get_sub_group_id", None, "i32"),
    ("get_sub_group_local_id", None, "i32"),
    ("get_sub_group_size", None, "i32"),
    ("get_max_sub_group_size", None, "i32"),
    ("get_num_sub_groups", None, "i32"),
]


def all_queries_kernel() -> str:
    n = len(QUERIES)
    lines = [
        f'func.func @queries(%out: memref<?x{n}xi64>) attributes {{mux.kernel = "entry_point"}} {{',
        "  %row = mux.get_global_linear_id : index",
    ]
    for col, (name, dim, type_) in enumerate(QUERIES):
        dim_text = "" if dim is None else f" {dim}"
        lines.append(f"  %q{col} = mux.{name}{dim_text} : {type_}")
        if type_ == "index":
            lines.append(f"  %v{col} = arith.index_cast %q{col} : index to i64")
        elif type_ == "i32":
            lines.append(f"  %v{col} = arith.extui %q{col} : i32 to i64")
        else:
            lines.append(f"  %v{col} = arith.addi %q{col}, %q{col} : i64")  # doubled, see below
        lines.append(f"  %c{col} = arith.constant {col} : index")
        lines.append(
            f"  memref.store %v{col}, %out[%row, %c{col}] : memref<?x{len(QUERIES)}xi64>"
        )
    lines += ["  func.return", "}"]
    return "\n".join(lines)


def expected_queries(work_dim, global_size, local_size, offset) -> np.ndarray:
    g = np.array(list(global_size) + [1] * (3 - work_dim))
    enq = np.array(list(local_size) + [1] * (3 - work_dim))
    off = np.array(list(offset) + [0] * (3 - work_dim))
    ng = -(-g // enq)
    out = np.zeros((int(np.prod(g)), len(QUERIES)), dtype=np.int64)
    for z, y, x in itertools.product(range(g[2]), range(g[1]), range(g[0])):
        rel = np.array([x, y, z])
        gid = rel + off
        group = rel // enq
        lid = rel % enq
        ls = np.minimum(enq, g - group * enq)
        glin = (rel[2] * g[1] + rel[1]) * g[0] + rel[0]
        llin = (lid[2] * ls[1] + lid[1]) * ls[0] + lid[0]
        values = {
            "get_global_id": gid,
            "get_local_id": lid,
            "get_group_id": 2 * group,  # i64 results are stored doubled
            "get_num_groups": ng,
            "get_local_size": ls,
            "get_enqueued_local_size": enq,
            "get_global_size": g,
            "get_global_offset": off,
            "get_work_dim": work_dim,
            "get_global_linear_id": glin,
            "get_local_linear_id": 2 * llin,
            "get_sub_group_id": llin,
            "get_sub_group_local_id": 0,
            "get_sub_group_size": 1,
            "get_max_sub_group_size": 1,
            "get_num_sub_groups": int(np.prod(ls)),
        }
        for col, (name, dim, _) in enumerate(QUERIES):
            v = values[name]
            out[glin, col] = v if dim is None else v[dim]
    return out


@pytest.fixture(scope="module")
def queries_program():
    return compile_kernel(all_queries_kernel())


@pytest.mark.parametrize(
    "global_size, local_size, offset",
    [
        ((7,), (3,), (0,)),  # non-uniform remainder group
        ((6, 5), (2, 2), (1, 3)),
        ((4, 3, 5), (2, 3, 2), (2, 0, 7)),
        ((1,), (1,), (0,)),
    ],
)
def test_every_query_matches_numpy(queries_program, global_size, local_size, offset):
    dim = len(global_size)
    total = int(np.prod(global_size))
    out = np.full((total, len(QUERIES)), -1, dtype=np.int64)
    queries_program["queries"](
        out, global_size=global_size, local_size=local_size, global_offset=offset
    )
    want = expected_queries(dim, global_size, local_size, offset)
    for col, (name, d, _) in enumerate(QUERIES):
        np.testing.assert_array_equal(out[:, col], want[:, col], err_msg=f"{name} {d}")


# ---------------------------------------------------------------------------------------
# Numerics: loop order, required size, CFG bodies, helpers, DMA, fences
# ---------------------------------------------------------------------------------------

# each work-item takes a ticket from an atomic counter (a plain load and store of a shared
# counter would be a data race: hoist-uniform-loads reads such a load once per loop nest)
ORDER_KERNEL = """
func.func @order(%out: memref<?xi64>, %ctr: memref<1xi64>)
    attributes {mux.kernel = "entry_point", mux.work_item_order = array<i64: ORDER>} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i64
  %i = mux.get_local_linear_id : index
  %n = "memref.atomic_rmw"(%one, %ctr, %c0) <{kind = 1 : i64}> : (i64, memref<1xi64>, index) -> i64
  memref.store %n, %out[%i] : memref<?xi64>
  func.return
}
"""


@pytest.mark.parametrize("order", [(2, 1, 0), (0, 1, 2), (2, 0, 1)])
def test_work_items_run_in_work_item_order(order):
    prog = compile_kernel(ORDER_KERNEL.replace("ORDER", ", ".join(map(str, order))))
    size = (2, 3, 4)
    out = np.full(24, -1, dtype=np.int64)
    prog["order"](out, np.zeros(1, dtype=np.int64), global_size=size, local_size=size)
    # the position in the run of each work-item: loops nest in `order`, outermost first
    want = np.zeros(size[::-1], dtype=np.int64)  # indexed [z, y, x]
    for step, ids in enumerate(itertools.product(*(range(size[d]) for d in order))):
        xyz = dict(zip(order, ids, strict=True))
        want[xyz[2], xyz[1], xyz[0]] = step
    np.testing.assert_array_equal(out, want.ravel())


def test_reqd_work_group_size_kernel():
    text = """
    func.func @k(%out: memref<?xi32>) attributes {mux.kernel = "entry_point",
        mux.reqd_work_group_size = array<i64: 4, 2, 1>} {
      %g = mux.get_global_linear_id : index
      %x = mux.get_local_id 0 : i32
      %y = mux.get_local_id 1 : i32
      %ten = arith.constant 10 : i32
      %t = arith.muli %y, %ten : i32
      %v = arith.addi %t, %x : i32
      memref.store %v, %out[%g] : memref<?xi32>
      func.return
    }
    """
    out = np.full(8 * 4, -1, dtype=np.int32)
    compile_kernel(text)["k"](out, global_size=(8, 4), local_size=(4, 2))
    x, y = np.meshgrid(np.arange(8), np.arange(4))
    np.testing.assert_array_equal(out, ((y % 2) * 10 + x % 4).ravel())


def test_multi_block_kernel():
    text = """
    func.func @guarded(%out: memref<?xi32>, %n: index) attributes {mux.kernel = "entry_point"} {
      %i = mux.get_global_id 0 : index
      %in = arith.cmpi ult, %i, %n : index
      cf.cond_br %in, ^store, ^done
    ^store:
      %v = arith.index_cast %i : index to i32
      memref.store %v, %out[%i] : memref<?xi32>
      func.return
    ^done:
      func.return
    }
    """
    out = np.full(16, -1, dtype=np.int32)
    compile_kernel(text)["guarded"](out, 11, global_size=(16,), local_size=(4,))
    np.testing.assert_array_equal(out, np.where(np.arange(16) < 11, np.arange(16), -1))


def test_helper_chain_reads_scheduling_structs():
    text = """
    func.func @gid2(%d: index) -> index {
      %g = mux.get_global_id 0 : index
      %l = mux.get_local_id 1 : index
      %s = arith.muli %l, %d : index
      %r = arith.addi %g, %s : index
      func.return %r : index
    }
    func.func @mid() -> index {
      %hundred = arith.constant 100 : index
      %r = func.call @gid2(%hundred) : (index) -> index
      func.return %r : index
    }
    func.func @k(%out: memref<?xindex>) attributes {mux.kernel = "entry_point"} {
      %i = mux.get_global_linear_id : index
      %v = func.call @mid() : () -> index
      memref.store %v, %out[%i] : memref<?xindex>
      func.return
    }
    """
    out = np.full(6 * 4, -1, dtype=np.int64)
    compile_kernel(text)["k"](out, global_size=(6, 4), local_size=(3, 2), global_offset=(5, 0))
    x, y = np.meshgrid(np.arange(6), np.arange(4))
    np.testing.assert_array_equal(out, (x + 5 + (y % 2) * 100).ravel())


def test_dma_2d_copies_a_tile():
    # every work-item copies the same 2x3 tile of a 5-wide matrix (idempotent), then reads
    # back its own element after the (complete) transfer
    text = """
    func.func @tile(%src: memref<?xf32>, %tile: memref<?xf32>, %out: memref<?xf32>)
        attributes {mux.kernel = "entry_point"} {
      %w = arith.constant 12 : index
      %ss = arith.constant 20 : index
      %h = arith.constant 2 : index
      %e = mux.dma_read_2d %tile, %src width(%w) dst_stride(%w) src_stride(%ss) height(%h)
          : memref<?xf32>, memref<?xf32>
      mux.dma_wait %e
      %i = mux.get_global_id 0 : index
      %v = memref.load %tile[%i] : memref<?xf32>
      memref.store %v, %out[%i] : memref<?xf32>
      func.return
    }
    """
    src = np.arange(20, dtype=np.float32)
    tile = np.zeros(6, dtype=np.float32)
    out = np.zeros(6, dtype=np.float32)
    compile_kernel(text)["tile"](src, tile, out, global_size=(6,), local_size=(2,))
    want = src.reshape(4, 5)[:2, :3].ravel()
    np.testing.assert_array_equal(tile, want)
    np.testing.assert_array_equal(out, want)


def test_dma_3d_into_a_2d_memref():
    # a 2x2x3 box of a 4x3x5 f64 volume into a 4x3 local-shaped (2-D, delinearized) buffer
    text = """
    func.func @box(%src: memref<?xf64>, %dst: memref<4x3xf64>)
        attributes {mux.kernel = "entry_point"} {
      %w = arith.constant 24 : index
      %dl = arith.constant 24 : index
      %sl = arith.constant 40 : index
      %h = arith.constant 2 : index
      %dp = arith.constant 48 : index
      %sp = arith.constant 120 : index
      %d = arith.constant 2 : index
      %e = mux.dma_read_3d %dst, %src width(%w) dst_line_stride(%dl) src_line_stride(%sl)
          height(%h) dst_plane_stride(%dp) src_plane_stride(%sp) depth(%d)
          : memref<4x3xf64>, memref<?xf64>
      mux.dma_wait %e
      func.return
    }
    """
    src = np.arange(60, dtype=np.float64)
    dst = np.zeros((4, 3), dtype=np.float64)
    compile_kernel(text)["box"](src, dst, global_size=(3,), local_size=(3,))
    want = src.reshape(4, 3, 5)[:2, :2, :3].reshape(4, 3)
    np.testing.assert_array_equal(dst, want)


def test_mem_barrier_kernel_runs():
    text = """
    func.func @k(%a: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
      %i = mux.get_global_id 0 : index
      %v = arith.index_cast %i : index to i32
      memref.store %v, %a[%i] : memref<?xi32>
      mux.mem_barrier work_group, <acq_rel, work_group_memory>
      mux.mem_barrier device, <seq_cst, cross_work_group_memory>
      func.return
    }
    """
    out = np.zeros(9, dtype=np.int32)
    compile_kernel(text)["k"](out, global_size=(9,), local_size=(3,))
    np.testing.assert_array_equal(out, np.arange(9))


# ---------------------------------------------------------------------------------------
# add-floating-point-control
# ---------------------------------------------------------------------------------------

x86_only = pytest.mark.skipif(
    platform.machine().lower() not in ("x86_64", "amd64"), reason="MXCSR is x86-64 only"
)


def test_fp_control_is_a_no_op_on_other_architectures():
    text = """
    func.func @"k.mux-entry-hook"(%p: !llvm.ptr, %s: !llvm.ptr) {
      func.return
    }
    """
    module = run(text, AddFloatingPointControlPass(arch="riscv64"))  # AArch64 has FPCR
    assert str(module) == str(parse(text))


def test_fp_control_falls_back_to_entry_points_and_restores_on_every_return():
    text = """
    func.func @k(%c: i1) attributes {mux.kernel = "entry_point"} {
      cf.cond_br %c, ^a, ^b
    ^a:
      func.return
    ^b:
      func.return
    }
    func.func @other() {
      func.return
    }
    """
    module = run(text, AddFloatingPointControlPass(arch="x86_64"))
    k, other = [f for f in module.ops if isinstance(f, func.FuncOp)]
    intrinsics = [
        op.intrin.data for op in k.walk() if op.name == "llvm.call_intrinsic"  # type: ignore
    ]
    assert intrinsics == [
        "llvm.x86.sse.stmxcsr",
        "llvm.x86.sse.ldmxcsr",
        "llvm.x86.sse.ldmxcsr",
        "llvm.x86.sse.ldmxcsr",
    ]
    for block in list(k.body.blocks)[1:]:
        assert block.ops.first.intrin.data == "llvm.x86.sse.ldmxcsr"  # type: ignore
    assert "llvm.call_intrinsic" not in str(other)


MXCSR_PROBE = """
llvm.func @"k.mux-entry-hook"(%p: !llvm.ptr, %s: !llvm.ptr) {
  llvm.call_intrinsic "llvm.x86.sse.stmxcsr"(%p) : (!llvm.ptr) -> ()
  llvm.return
}
llvm.func @read(%p: !llvm.ptr) {
  llvm.call_intrinsic "llvm.x86.sse.stmxcsr"(%p) : (!llvm.ptr) -> ()
  llvm.return
}
"""


@x86_only
@pytest.mark.parametrize("ftz_daz", [True, False])
def test_fp_control_sets_mxcsr_inside_and_restores_it(ftz_daz):
    import llvmlite.binding as llvm
    from xdsl.backend.llvm.convert import convert_module

    module = run(MXCSR_PROBE, AddFloatingPointControlPass(ftz_daz=ftz_daz))
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    mod = llvm.parse_assembly(str(convert_module(module, fallback_target_triple=None)))
    mod.verify()
    machine = llvm.Target.from_default_triple().create_target_machine()
    engine = llvm.create_mcjit_compiler(mod, machine)
    engine.finalize_object()
    hook = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(
        engine.get_function_address("k.mux-entry-hook")
    )
    read = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(engine.get_function_address("read"))
    before, inside, after = ctypes.c_uint32(), ctypes.c_uint32(), ctypes.c_uint32()
    read(ctypes.addressof(before))
    hook(ctypes.addressof(inside), None)
    read(ctypes.addressof(after))
    ftz_daz_bits = (1 << 15) | (1 << 6)
    assert inside.value & ftz_daz_bits == (ftz_daz_bits if ftz_daz else 0)
    assert inside.value & 0x6000 == 0  # round to nearest
    assert after.value == before.value


@x86_only
def test_fp_control_flushes_denormals_in_a_kernel():
    text = """
    func.func @mul(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>)
        attributes {mux.kernel = "entry_point"} {
      %i = mux.get_global_id 0 : index
      %x = memref.load %a[%i] : memref<?xf32>
      %y = memref.load %b[%i] : memref<?xf32>
      %p = arith.mulf %x, %y : f32
      memref.store %p, %c[%i] : memref<?xf32>
      func.return
    }
    """
    denormal = np.float32(1e-40)
    a = np.full(4, denormal, dtype=np.float32)
    b = np.ones(4, dtype=np.float32)
    for fp_control, want in ((False, denormal), (True, np.float32(0))):
        c = np.full(4, -1, dtype=np.float32)
        compile_kernel(text, fp_control=fp_control)["mul"](a, b, c, global_size=(4,))
        np.testing.assert_array_equal(c, np.full(4, want, dtype=np.float32))
    # the host thread's mode is untouched: numpy still sees the denormal
    assert a[0] * b[0] == denormal
