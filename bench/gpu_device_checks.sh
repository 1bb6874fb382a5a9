# The GPU checks of the upstream-client work (gpu ops, tensor cores, clusters, math, complex,
# vector, acc clauses), the WMMA GEMM bench, the client programs and the NVPTX regression set,
# in one device run with a budget. Here: `bash bench/gpu_site.sh pack` and
# `.venv/bin/python -m tests.upstream_clients.gen --target cpu --out .wheels/clients` (the device
# machine has no mlir-opt-19); then run, carrying .wheels/{devsite.tar.xz,setup.sh,clients} and
# this file: `BUDGET=400 bash bench/gpu_device_checks.sh`. Logs and JSON under $OUT.
bash .wheels/setup.sh >/dev/null 2>&1
export PYTHONPATH=/tmp/x/site:$PWD PATH=/tmp/x/site/bin:$PATH XMUX_CACHE_DIR=/tmp/xc
mkdir -p $OUT
T0=$(date +%s); BUDGET=${BUDGET:-330}
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu.txt; lscpu | grep "Model name" >> $OUT/gpu.txt
t() { local name=$1 lim=$2; shift 2; local left=$(( BUDGET - ($(date +%s) - T0) )); [ $left -lt $lim ] && lim=$left; [ $lim -lt 15 ] && { echo "== $name: skipped (budget)"; return; }; local s=$(date +%s); ( timeout $lim "$@" > $OUT/$name.log 2>&1; echo "rc=$? secs=$(( $(date +%s) - s ))" >> $OUT/$name.log ); echo "== $name: $(tail -2 $OUT/$name.log | tr '\n' ' ')"; }
t mma_bench 60 python3 bench/gpu_mma_gemm.py --json $OUT/mma_gemm.json
t new_tests 130 python3 -m pytest -q -n 14 -p no:cacheprovider -rs tests/test_gpu_mma.py tests/test_gpu_newer.py tests/test_scf_parallel.py tests/test_extended_arith.py tests/test_affine.py tests/test_math_nvptx.py tests/test_nvptx_examples.py tests/test_user_errors.py tests/test_complex_ops.py tests/test_llvm_input.py tests/test_vector_transfers.py tests/test_memref_upstream_ops.py tests/test_acc_data_clauses.py tests/test_guide.py
t clients 50 python3 -m tests.upstream_clients.gen --target nvptx --from .wheels/clients --no-interpret --keep-going --jobs 14 --out $OUT/clients
t nvptx_suite 90 python3 -m pytest -q -n 14 -p no:cacheprovider tests/test_nvptx_runtime.py tests/test_nvptx_collectives.py tests/test_nvptx_spec.py tests/test_nvptx_checks.py tests/test_nvptx_openacc.py tests/test_views.py tests/test_gpu_dialect.py
t launch_stalls 45 python3 bench/launch_stalls.py --json $OUT/launch_stalls.json
t mma_sweep 200 python3 bench/gpu_mma_gemm.py --sweep --json $OUT/mma_sweep.json
