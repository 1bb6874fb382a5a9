"""A few of tests/upstream_clients' programs (linalg / scf.parallel through mlir-opt-19's GPU
pipelines) run by xmux-run and xmux-run --interpret, printing what upstream's CPU lowering run by
mlir-cpu-runner-19 prints. The whole set: ``python -m tests.upstream_clients.gen``."""

from __future__ import annotations

import pytest

from tests.upstream_clients import gen

pytestmark = pytest.mark.skipif(
    gen.MLIR_OPT is None or gen.MLIR_RUNNER is None or len(gen.runner_libs()) != 2,
    reason="needs mlir-opt-19, mlir-cpu-runner-19 and libmlir-19's runner libraries",
)

CASES = [
    ("matmul", "gpu"),  # affine.apply in kernels and host code, scf.for in the kernel
    ("softmax", "gpu-lower-affine"),  # math.exp, four kernels
    ("parallel_reduce", "gpu"),  # scf.parallel + scf.reduce left on the host
]


@pytest.mark.parametrize(("program", "variant"), CASES)
def test_client_program_prints_what_upstream_prints(program, variant, tmp_path, capsys):
    from xmux.interpret import run_host
    from xmux.runner import HostProgram

    text = gen.PROGRAMS[program]()
    want, why = gen.reference(program, text, tmp_path)
    assert want is not None, why
    assert len(gen.numbers(want)) > 1
    opt = gen._run([gen.MLIR_OPT, *gen.VARIANTS[variant]], text)
    assert opt.returncode == 0, opt.stderr
    capsys.readouterr()
    HostProgram(opt.stdout, f"{program}.{variant}").run_main()
    assert gen.compare(capsys.readouterr().out, want) is None
    run_host(opt.stdout, f"{program}.{variant}")
    assert gen.compare(capsys.readouterr().out, want) is None


def test_compare_finds_a_changed_value():
    want = "Unranked Memref base@ = 0x1 rank = 1 offset = 0 sizes = [2] strides = [1] data = \n" \
           "[1.5,  -2]\n"
    got = want.replace("0x1", "0x2")
    assert gen.compare(got, want) is None
    assert gen.compare(got.replace("-2", "-2.5"), want) == \
        "1 of 2 values differ; first at #1: -2.5 vs -2"
