"""runtime/jit.py: compilation, memory and disk caches, metadata, symbols, errors."""

from __future__ import annotations

import ctypes
import os
import threading
import uuid

import pytest

from xmux.dialects.attrs import ArgInfo, KernelInfo, dump_kernel_infos, load_kernel_infos
from xmux.errors import XmuxError
from xmux.runtime import codegen_limits, jit


def _ir(tag: str = "") -> str:
    """A small module, made unique per test so no cache is shared by accident."""
    tag = tag or uuid.uuid4().hex
    return f"""
; {tag}
define i64 @scale(i64 %x) {{
  %r = mul i64 %x, 3
  ret i64 %r
}}

define internal i64 @helper(i64 %x) {{
  ret i64 %x
}}

@answer = global i64 42
"""


def _scale(jm: jit.JitModule) -> ctypes._CFuncPtr:
    return ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(jm.address("scale"))


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("XMUX_CACHE_DIR", str(tmp_path / "default-cache"))
    monkeypatch.delenv("XMUX_CACHE", raising=False)


def test_compile_and_call():
    jm = jit.compile_ir(_ir())
    assert _scale(jm)(14) == 42
    assert jm.source == "compiled"
    assert jm.exports == ["answer", "scale"]  # internal @helper is not exported
    assert ctypes.c_int64.from_address(jm.address("answer")).value == 42


def test_memory_cache_returns_same_object():
    text = _ir()
    before = dict(jit.cache_stats)
    a = jit.compile_ir(text)
    b = jit.compile_ir(text)
    assert a is b
    assert jit.cache_stats["compiled"] == before.get("compiled", 0) + 1
    assert jit.cache_stats["memory_hits"] == before.get("memory_hits", 0) + 1


def test_disk_cache_hit_loads_object_without_compiling(tmp_path):
    text = _ir()
    first = jit.compile_ir(text, cache_dir=tmp_path)
    assert first.source == "compiled"
    assert len(list(tmp_path.glob("*.o"))) == 1 and len(list(tmp_path.glob("*.json"))) == 1
    jit.clear_memory_cache()
    compiled = jit.cache_stats["compiled"]
    disk_hits = jit.cache_stats["disk_hits"]
    second = jit.compile_ir(text, cache_dir=tmp_path)
    assert second is not first and second.source == "disk"
    assert jit.cache_stats["compiled"] == compiled  # nothing was optimized or code-generated
    assert jit.cache_stats["disk_hits"] == disk_hits + 1
    assert second.object_code == first.object_code
    assert _scale(second)(-5) == -15
    assert _scale(first)(7) == 21  # the first engine is still alive and usable


def test_kernel_metadata_round_trip_through_disk(tmp_path):
    infos = [
        KernelInfo(
            name="vecadd",
            symbol="vecadd.mux-entry-hook",
            args=[
                ArgInfo("a", "memref", "float32", [None]),
                ArgInfo("n", "scalar", "int64"),
            ],
            reqd_work_group_size=[64, 1, 1],
            local_mem_usage=256,
        )
    ]
    meta = dump_kernel_infos(infos)
    text = _ir()
    jm = jit.compile_ir(text, kernel_infos_json=meta, cache_dir=tmp_path)
    assert jm.kernel_infos_json == meta
    jit.clear_memory_cache()
    hit = jit.compile_ir(text, kernel_infos_json=meta, cache_dir=tmp_path)
    assert hit.source == "disk"
    assert load_kernel_infos(hit.kernel_infos_json) == infos


def test_metadata_is_part_of_the_key(tmp_path):
    text = _ir()
    a = jit.compile_ir(text, kernel_infos_json="[]", cache_dir=tmp_path)
    b = jit.compile_ir(text, kernel_infos_json='[{"name": "k"}]', cache_dir=tmp_path)
    assert a is not b and b.kernel_infos_json == '[{"name": "k"}]'


def test_cache_key_and_load_cached(tmp_path):
    key = uuid.uuid4().hex
    assert jit.load_cached(key, cache_dir=tmp_path) is None
    meta = '[{"name": "k"}]'
    jm = jit.compile_ir(_ir(), cache_key=key, kernel_infos_json=meta, cache_dir=tmp_path)
    assert jit.load_cached(key, cache_dir=tmp_path) is jm
    jit.clear_memory_cache()
    hit = jit.load_cached(key, cache_dir=tmp_path)  # the caller does not know the metadata
    assert hit is not None and hit.source == "disk" and _scale(hit)(2) == 6
    assert hit.kernel_infos_json == meta


def test_default_cache_dir_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("XMUX_CACHE_DIR", str(tmp_path / "env-cache"))
    jit.compile_ir(_ir())
    assert len(list((tmp_path / "env-cache").glob("*.o"))) == 1


def test_xmux_cache_0_disables_disk_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XMUX_CACHE", "0")
    monkeypatch.setenv("XMUX_CACHE_DIR", str(tmp_path / "off"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert jit.default_cache_dir() is None
    text = _ir()
    jit.compile_ir(text)
    assert not (tmp_path / "off").exists() and not (tmp_path / "home").exists()
    jit.clear_memory_cache()
    assert jit.compile_ir(text).source == "compiled"


def test_disk_cache_false_writes_nothing(tmp_path):
    jm = jit.compile_ir(_ir(), cache_dir=tmp_path, disk_cache=False)
    assert _scale(jm)(1) == 3 and not list(tmp_path.iterdir())


def test_corrupted_cache_entry_is_recompiled(tmp_path):
    text = _ir()
    jit.compile_ir(text, cache_dir=tmp_path)
    (obj,) = tmp_path.glob("*.o")
    obj.write_bytes(obj.read_bytes()[:100])  # torn write
    jit.clear_memory_cache()
    jm = jit.compile_ir(text, cache_dir=tmp_path)
    assert jm.source == "compiled" and _scale(jm)(3) == 9
    jit.clear_memory_cache()
    assert jit.compile_ir(text, cache_dir=tmp_path).source == "disk"  # rewritten


def test_missing_symbol_is_a_clear_error(tmp_path):
    name = f"xmux_test_missing_{uuid.uuid4().hex[:8]}"
    text = f"""
declare i64 @{name}(i64)
define i64 @call_it(i64 %x) {{
  %r = call i64 @{name}(i64 %x)
  ret i64 %r
}}
"""
    with pytest.raises(jit.MissingSymbolError, match=rf"'{name}'.*register_symbol"):
        jit.compile_ir(text, cache_dir=tmp_path)


def test_registered_callback_is_called(tmp_path):
    name = f"xmux_test_cb_{uuid.uuid4().hex[:8]}"
    seen: list[int] = []
    proto = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)

    @proto
    def callback(x: int) -> int:
        seen.append(x)
        return x + 1

    jit.register_symbol(name, ctypes.cast(callback, ctypes.c_void_p).value)
    text = f"""
declare i64 @{name}(i64)
define i64 @twice(i64 %x) {{
  %a = call i64 @{name}(i64 %x)
  %b = call i64 @{name}(i64 %a)
  ret i64 %b
}}
"""
    jm = jit.compile_ir(text, cache_dir=tmp_path)
    assert proto(jm.address("twice"))(10) == 12 and seen == [10, 11]
    jit.clear_memory_cache()
    hit = jit.compile_ir(text, cache_dir=tmp_path)  # the disk record lists the externals
    assert hit.source == "disk" and proto(hit.address("twice"))(0) == 2


def test_libc_symbols_resolve(tmp_path):
    text = """
declare ptr @malloc(i64)
declare void @free(ptr)
declare float @sinf(float)
define float @f(float %x) {
  %p = call ptr @malloc(i64 4)
  store float %x, ptr %p
  %v = load volatile float, ptr %p
  call void @free(ptr %p)
  %s = call float @sinf(float %v)
  ret float %s
}
"""
    jm = jit.compile_ir(text, cache_dir=tmp_path)
    f = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float)(jm.address("f"))
    assert f(0.0) == 0.0 and abs(f(1.5707964) - 1.0) < 1e-6


def test_unknown_symbol_lists_exports():
    jm = jit.compile_ir(_ir())
    with pytest.raises(XmuxError, match=r"no exported symbol 'helper'.*exports: answer, scale"):
        jm.address("helper")


def test_invalid_ir_is_a_clear_error():
    with pytest.raises(XmuxError, match=r"invalid LLVM IR"):
        jit.compile_ir("define i32 @f( {")


def test_concurrent_compiles_and_calls(tmp_path):
    shared = _ir()
    texts = [_ir() for _ in range(4)]
    results: dict[int, list] = {}
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            same = jit.compile_ir(shared, cache_dir=tmp_path)
            own = jit.compile_ir(texts[i], cache_dir=tmp_path)
            f = _scale(own)
            results[i] = [same, all(f(k) == 3 * k for k in range(1000))]
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len({id(r[0]) for r in results.values()}) == 1  # one module for the shared text
    assert all(r[1] for r in results.values())


def test_target_fingerprint_and_helpers():
    fp = jit.target_fingerprint()
    import llvmlite
    import llvmlite.binding as llvm

    # the CPU compiled for: the host's, or the model XMUX_CPU names
    cpu = os.environ.get("XMUX_CPU") or llvm.get_host_cpu_name()
    assert f"|{cpu}|" in fp and llvmlite.__version__ in fp
    opt = jit.optimized_ir(_ir())
    assert "mul i64 %x, 3" in opt and "@helper" not in opt  # O3 dropped the dead helper
    asm = jit.assembly(_ir())
    assert "scale:" in asm


def test_a_huge_function_compiles_without_the_machine_scheduler(monkeypatch):
    """Code generation of a function above ``HUGE_FUNCTION`` instructions skips the pre-RA
    machine scheduler (superlinear in a block's size; bench/compile_scaling.py): set in the
    compile child only, where the global LLVM option dies with it; a block above
    ``HUGE_BLOCK`` caps the schedulers' dependence maps for that build only, restored after
    it in any process; the code is right."""
    monkeypatch.setattr(codegen_limits, "HUGE_FUNCTION", 1)
    monkeypatch.setattr(codegen_limits, "HUGE_BLOCK", 1)
    monkeypatch.setattr(codegen_limits, "HUGE_TEXT", 0)
    jm = jit.compile_ir(_ir(), disk_cache=False)
    assert _scale(jm)(14) == 42
    seen = []
    monkeypatch.setattr(codegen_limits.llvm, "set_option", lambda *a: seen.append(a))
    mod = jit._parse(_ir())
    with codegen_limits.codegen_limits(mod, _ir(), len(_ir())):  # here: no misched option
        assert seen == [("", "-disable-post-ra"), ("", "-dag-maps-huge-region=100")]
    assert seen[2:] == [("", "-disable-post-ra=false"),  # LLVM's defaults again
                        ("", "-dag-maps-huge-region=1000")]
    seen.clear()
    monkeypatch.setattr(codegen_limits, "HUGE_TEXT", 1 << 30)
    with codegen_limits.codegen_limits(mod, _ir(), len(_ir())):  # a small module: not counted
        pass
    assert seen == []


def test_linked_values_become_internal_and_fold():
    """``link=``: a module defining what the main one declares (a specialization's values)."""
    main = (
        "@v = external constant i64\n"
        "define i64 @get() {\n  %x = load i64, ptr @v\n  ret i64 %x\n}\n"
    )
    values = "@v = constant i64 1234\n"
    jm = jit.compile_ir(main, link=(values,), disk_cache=False)
    assert ctypes.CFUNCTYPE(ctypes.c_int64)(jm.address("get"))() == 1234
    assert "v" not in jm.exports  # internal after linking
    assert "1234" in jit.optimized_ir(main, link=(values,))  # folded as a literal
    other = jit.compile_ir(main, link=("@v = constant i64 7\n",), disk_cache=False)
    assert ctypes.CFUNCTYPE(ctypes.c_int64)(other.address("get"))() == 7  # keyed on the link


def test_registering_a_symbol_does_not_wait_for_a_compile_in_progress():
    """xmux.compile registers the runtime's symbols while the pool's code may be compiling on
    a background thread (runtime/pool.py, prepare_native), which holds the compile lock for
    the whole build: registration has a lock of its own."""
    holding, release = threading.Event(), threading.Event()

    def compile_in_progress() -> None:
        with jit._lock:  # noqa: SLF001 - what compile_ir holds
            holding.set()
            release.wait(30)

    t = threading.Thread(target=compile_in_progress)
    t.start()
    try:
        assert holding.wait(10)
        cb = ctypes.CFUNCTYPE(ctypes.c_int64)(lambda: 7)
        done = threading.Event()
        threading.Thread(
            target=lambda: (jit.register_symbol("xmux_test_sym_lock", ctypes.cast(
                cb, ctypes.c_void_p).value), done.set()), daemon=True).start()
        assert done.wait(10), "register_symbol waited for the compile lock"
    finally:
        release.set()
        t.join()
    ir = ("declare i64 @xmux_test_sym_lock()\n"
          "define i64 @f() {\n  %r = call i64 @xmux_test_sym_lock()\n  ret i64 %r\n}\n")
    fn = jit.compile_ir(ir, disk_cache=False)
    assert ctypes.CFUNCTYPE(ctypes.c_int64)(fn.address("f"))() == 7
