"""Programs as upstream MLIR's clients write them (linalg, scf.parallel), lowered by
mlir-opt-19's pipelines and run by xmux and by upstream's CPU lowering:
``python -m tests.upstream_clients.gen``."""
