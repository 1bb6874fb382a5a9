"""Specialization constants on the NVPTX target.

In CI (no GPU): the PTX of native mode has the values as literals (the defaults in the
program's PTX, another value set's in its specialization) and no leaf global left; emulated
mode's PTX takes the buffer as a hidden parameter after the user's; the program API and the
disk cache. On a GPU: the execution cases of tests/test_spec_constants.py and
tests/test_spec_dpcpp.py, run again with ``xmux.compile(..., target="nvptx")``: every
constant read back exactly by a kernel on the device, in both modes.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import test_spec_constants as cpu_tests
import test_spec_dpcpp as dpcpp_tests

import xmux
from xmux.runtime import cuda
from xmux.runtime import nvptx as ptx_rt
from xmux.runtime import spec_constants as rt

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "spec_constants.mlir"
gpu = pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")


def _stores(ptx: str) -> list[str]:
    """The immediate operands of the kernel's ``st.global`` instructions, in order."""
    return re.findall(r"st\.global\.b32\s+\[[^\]]+\],\s*(-?\d+);", ptx)


def _bits(x: float) -> str:
    return str(int(np.float32(x).view(np.int32)))


def test_native_ptx_has_the_values_as_literals():
    prog = xmux.compile(EXAMPLE, target="nvptx", cache=False)
    assert prog.spec_constants_mode == "native"
    assert "xmux.spec_constant" not in prog.ptx  # every leaf folded: nothing declared
    assert _stores(prog.ptx) == ["42", "1", *map(_bits, [3, 4, 5, 6, 7, 8])]
    table = prog._spec.table
    buf = table.buffer_bytes({
        "id_int": table.encode_value("id_int", -3),
        "id_A": table.encode_value("id_A", (7, (0.5, 0.25))),
    })
    special = prog._gpu_spec.ptx(buf)
    assert "xmux.spec_constant" not in special
    assert _stores(special) == ["-3", "7", *map(_bits, [0.5, 0.25, 5, 6, 7, 8])]


def test_emulated_ptx_reads_a_hidden_buffer_parameter():
    prog = xmux.compile(EXAMPLE, target="nvptx", cache=False, spec_constants="emulated")
    k = prog["read_constants"]
    assert [a.name for a in k.info.args] == ["ints", "floats"]  # the user's signature
    # two rank-1 memrefs (4 parameters each), the buffer, the 16-field launch record
    params = re.findall(r"\.param \.u64 (?:\.ptr \.align \d+ )?read_constants_param_(\d+)",
                        prog.ptx)
    assert len(params) == 4 + 4 + 1 + 16
    assert re.search(r"ld\.param\.b64\s+(%rd\d+), \[read_constants_param_8\]", prog.ptx)
    assert re.search(r"ld\.global\.v4\.b32\s+\{[^}]+\}, \[%rd\d+\+16\]", prog.ptx)  # id_vec
    assert _stores(prog.ptx) == []  # nothing is a literal


def test_program_api_without_a_device():
    cpu = xmux.compile(EXAMPLE, cache=False)
    for mode in ("native", "emulated"):
        prog = xmux.compile(EXAMPLE, target="nvptx", cache=False, spec_constants=mode)
        ref = xmux.compile(EXAMPLE, cache=False, spec_constants=mode)
        assert prog.property_sets == ref.property_sets
        assert prog.kernel_property_sets("read_constants") == ref.kernel_property_sets(
            "read_constants")
        assert list(prog.spec_constants) == list(cpu.spec_constants)
        prog.set_spec_constant("id_A", (7, (0.5, 0.25)))
        assert prog.get_spec_constant("id_A") == (7, (0.5, 0.25))
        assert prog.get_spec_constant("id_int") == 42
        with pytest.raises(xmux.XmuxError, match=r"unknown specialization constant 'nope'"):
            prog.set_spec_constant("nope", 1)
        with pytest.raises(xmux.XmuxError, match=r"'id_int' \(i32\): 1099511627776 does not "
                                                  r"fit in i32"):
            prog.set_spec_constant("id_int", 2**40)
    plain = xmux.compile((EXAMPLE.parent / "vecadd.mlir"), target="nvptx", cache=False)
    assert plain.spec_constants == {} and plain.spec_constants_mode is None
    with pytest.raises(xmux.XmuxError, match=r"set_spec_constant: unknown specialization "
                       r"constant\(s\) 'x' \(this program has none\)"):
        plain.set_spec_constant("x", 1)


def test_table_and_specializations_through_the_disk_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XMUX_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("XMUX_CACHE", "1")
    first = xmux.compile(EXAMPLE, target="nvptx")
    table = first._spec.table
    buf = table.buffer_bytes({"id_int": table.encode_value("id_int", 5)})
    special = first._gpu_spec.ptx(buf)
    ptx_rt._memory.clear()
    rt._tables.clear()
    again = xmux.compile(EXAMPLE, target="nvptx")  # PTX and table from disk: no xDSL, no LLVM
    assert again.source == "disk" and again.llvm_ir is None
    assert again.ptx == first.ptx
    assert again.spec_constants["id_A"].descriptors == [(1, 0, 4), (2, 4, 4), (3, 8, 4)]
    assert again._spec.table.optimized  # the NVPTX template, kept with the table
    assert again._gpu_spec.ptx(buf) == special
    assert any(m.source == "disk" for m in ptx_rt._memory.values())


# ---------------------------------------------------------------------------------------
# On the GPU: the CPU's execution tests with every program compiled for nvptx
# ---------------------------------------------------------------------------------------


@pytest.fixture
def on_gpu(monkeypatch):
    real = xmux.compile

    def compile_nvptx(source, **kw):
        return real(source, target="nvptx", **kw)

    monkeypatch.setattr(xmux, "compile", compile_nvptx)


_CPU_CASES = [
    "test_example_spec_constants_defaults_set_and_changed",
    "test_example_spec_conv3x3",
    "test_padded_structs_defaults_set_and_changed",
    "test_all_24_orders_of_setting",
    "test_nested_composites_vectors_and_small_scalars",
    "test_reference_property_sets_and_blob",
    "test_jit_specialization_is_cached_per_value_set",
    "test_unknown_ids_and_misuse",
    "test_a_constant_as_loop_trip_count",
    "test_a_zero_default_float_takes_the_values_set",
    "test_every_scalar_type_and_special_value",
]
_DPCPP_CASES = [
    "test_struct_with_padding_in_the_middle",
    "test_composite_tail_padding_and_default_blob",
    "test_alignment_of_a_composite_after_chars_all_orders",
    "test_nested_non_packed_and_alignas_structs",
    "test_vec_and_marray_of_three_floats",
    "test_bool_and_vector_of_bool",
    "test_packed_struct",
    "test_sycl2020_types_read_back",
    "test_split_per_kernel_property_sets",
]


def _gpu_case(fn):
    """``fn`` collected here, run on the GPU (its parametrization kept)."""
    return gpu(pytest.mark.usefixtures("on_gpu")(fn))


for _name in _CPU_CASES:
    globals()[f"{_name}_gpu"] = _gpu_case(getattr(cpu_tests, _name))
for _name in _DPCPP_CASES:
    globals()[f"{_name}_gpu"] = _gpu_case(getattr(dpcpp_tests, _name))


@pytest.fixture(scope="module")
def bad_prog():
    """test_unknown_ids_and_misuse's program (as in tests/test_spec_constants.py), for nvptx."""
    from spec_reader import BOOL, F32, F64, I8, I16, I32, Reader

    consts = {
        "n": (I32, 1), "f": (F32, 1.0), "s": (rt.Struct((I8, F64)), (1, 2.0)),
        "a": (rt.Array(3, rt.Array(2, F32)), ((1, 2), (3, 4), (5, 6))),
        "v": (rt.Vector(2, I16), (1, 2)), "b": (BOOL, False),
    }
    real = xmux.compile
    xmux.compile = lambda source, **kw: real(source, target="nvptx", **kw)  # type: ignore
    try:
        return Reader(consts, "native")
    finally:
        xmux.compile = real


@gpu
def test_printed_values_of_the_example_match_the_cpu():
    """The example's kernel on the GPU with values set, per launch and persistent."""
    prog = xmux.compile(EXAMPLE, target="nvptx", cache=False)
    ints, floats = np.zeros(2, np.int32), np.zeros(6, np.float32)
    prog.set_spec_constant("id_A", (7, (0.5, 0.25)))
    prog["read_constants"](ints, floats, global_size=1, spec_constants={"id_int": -3})
    assert ints.tolist() == [-3, 7]
    assert floats.tolist() == [0.5, 0.25, 5.0, 6.0, 7.0, 8.0]
    assert prog._spec.specializations == 1
