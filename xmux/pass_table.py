"""xmux's passes by pipeline name: ``xmux-opt``, the ``xdsl-opt`` plugin and ``xmux.pipelines``
import a pass's module only when a pipeline names it (importing all of them cost every command
about 0.3 s of start-up).

Each entry is "package:Class": the pass lives in ``xmux.<package>.<name with '_'>`` (one pass
per file, named after its pipeline name). A new pass is a new line here; tests/test_pass_table.py
checks this table against the pass classes the modules of ``transforms/`` and ``lowering/`` define.
"""

PASSES: dict[str, str] = {
    "add-entry-hook": "transforms:AddEntryHook",
    "add-floating-point-control": "transforms:AddFloatingPointControlPass",
    "add-kernel-wrapper": "transforms:AddKernelWrapper",
    "add-kernel-wrapper-nvptx": "transforms:AddKernelWrapperNvptx",
    "attach-target": "transforms:AttachTarget",
    "convert-acc-to-oacc": "transforms:ConvertAccToOacc",
    "convert-complex-to-standard": "transforms:ConvertComplexToStandard",
    "convert-gpu-to-mux": "transforms:ConvertGpuToMux",
    "convert-mux-launch": "lowering:ConvertMuxLaunch",
    "convert-spec-to-llvm": "transforms:ConvertSpecToLLVM",
    "convert-to-llvm": "lowering:ConvertToLLVMPass",
    "define-check-failed-nvptx": "transforms:DefineCheckFailedNvptx",
    "define-mux-builtins": "transforms:DefineMuxBuiltinsPass",
    "define-mux-builtins-nvptx": "transforms:DefineMuxBuiltinsNvptxPass",
    "disable-neon-attribute": "transforms:DisableNeonAttribute",
    "drop-host-code": "transforms:DropHostCode",
    "encode-kernel-metadata": "transforms:EncodeKernelMetadataPass",
    "expand-math": "transforms:ExpandMath",
    "expand-oacc-reductions": "transforms:ExpandOaccReductions",
    "gpu-launch-outlining": "transforms:GpuLaunchOutlining",
    "hoist-uniform-loads": "transforms:HoistUniformLoads",
    "insert-bounds-checks": "transforms:InsertBoundsChecks",
    "lower-affine-upstream": "transforms:LowerAffineUpstream",
    "lower-generic-atomic-rmw": "transforms:LowerGenericAtomicRMW",
    "lower-gpu-printf-nvptx": "transforms:LowerGpuPrintfNvptx",
    "lower-kernel-asserts": "transforms:LowerKernelAsserts",
    "lower-scf-forall": "transforms:LowerScfForall",
    "lower-scf-parallel": "transforms:LowerScfParallel",
    "lower-spec-constants": "transforms:LowerSpecConstants",
    "lower-sub-group-collectives": "transforms:LowerSubGroupCollectives",
    "lower-subgroup-mma": "transforms:LowerSubgroupMma",
    "lower-vector-transfers": "transforms:LowerVectorTransfers",
    "lower-vector-contract": "transforms:LowerVectorContract",
    "lower-subgroup-mma-nvptx": "transforms:LowerSubgroupMmaNvptx",
    "lower-sub-group-collectives-nvptx": "transforms:LowerSubGroupCollectivesNvptx",
    "lower-work-group-collectives": "transforms:LowerWorkGroupCollectives",
    "lower-work-group-collectives-nvptx": "transforms:LowerWorkGroupCollectivesNvptx",
    "narrow-indices-nvptx": "transforms:NarrowIndicesNvptx",
    "prepare-barriers": "transforms:PrepareBarriersPass",
    "privatize-global-atomics": "transforms:PrivatizeGlobalAtomics",
    "record-kernel-abi": "transforms:RecordKernelAbi",
    "replace-local-module-scope-variables": "transforms:ReplaceLocalModuleScopeVariables",
    "transfer-kernel-metadata": "transforms:TransferKernelMetadataPass",
    "vectorize-local-reduction-trees": "transforms:VectorizeLocalReductionTrees",
    "work-item-loop-interchange": "transforms:WorkItemLoopInterchange",
    "work-item-loop-vectorize-hints": "transforms:WorkItemLoopVectorizeHints",
    "work-item-unroll-and-jam": "transforms:WorkItemUnrollAndJam",
    "pack-group-panels": "transforms:PackGroupPanels",
    "work-item-loops": "transforms:WorkItemLoopsPass",
}


def pass_path(name: str) -> tuple[str, str]:
    """(module, class name) of the pass ``name`` of the table."""
    package, cls = PASSES[name].split(":")
    return f"xmux.{package}.{name.replace('-', '_')}", cls
