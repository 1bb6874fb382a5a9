"""convert-to-llvm: lower func, arith, math, index, scf, cf, memref and vector to the llvm dialect.

Expects: the kernel pipeline has run (no ``mux.*`` ops left); ops of the dialects above plus
``llvm`` ops from earlier passes, ``builtin.unrealized_conversion_cast`` between
memrefs and their descriptors, ``memref.global`` outside memory space 3.
Guarantees: only ``llvm`` ops (and ``builtin.module``) remain, upstream's (see
``dialects/llvm.py``); an op without a
lowering is reported with its name and function (``NotSupportedError``).

- types: ``index`` → i64; ``memref`` → MLIR's descriptor struct (allocated, aligned, offset,
  sizes, strides); ``memref<*xT>`` → ``!llvm.struct<(i64, ptr)>``.
- functions: memrefs passed as descriptor structs by value; helper functions get ``internal``
  linkage (``main``, entry points, entry hooks and ``llvm.emit_c_interface`` stay external).
- ``scf.for`` with ``mux.work_item_loop``: fresh access group G; the latch ``llvm.br`` gets
  ``loop_annotation = #llvm.loop_annotation<mustProgress = true, parallelAccesses = #G>`` and
  the memory accesses lowered from its body (also in nested loops, and calls, so that inlining
  propagates it) ``access_groups = [.., #G]``, where ``#G`` is
  ``#llvm.access_group<id = distinct[G]<>>``.
  Accesses to allocas made inside the loop (per-work-item private memory) and llvm ops written by
  earlier passes (scheduling structs) stay out of the group.

Before::

    func.func @k(%a: memref<?xf32>, %n: index) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %n step %c1 {
        %x = memref.load %a[%i] : memref<?xf32>
        memref.store %x, %a[%i] : memref<?xf32>
      } {mux.work_item_loop}
      return
    }

After::

    llvm.func internal @k(%a: !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>,
                                            !llvm.array<1 x i64>)>, %n: i64) {
      ...
      llvm.br ^bb1(%c0 : i64)
    ^bb1(%i: i64):
      %cond = llvm.icmp "slt" %i, %n : i64
      llvm.cond_br %cond, ^bb2, ^bb3
    ^bb2:
      %base = llvm.extractvalue %a[1] : !llvm.struct<(...)>
      %p = llvm.getelementptr inbounds %base[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %x = llvm.load %p {access_groups = [#llvm.access_group<id = distinct[1]<>>]}
           : !llvm.ptr -> f32
      llvm.store %x, %p2 {access_groups = [#llvm.access_group<id = distinct[1]<>>]}
           : f32, !llvm.ptr
      %next = llvm.add %i, %c1 : i64
      llvm.br ^bb1(%next : i64) {loop_annotation = #llvm.loop_annotation<mustProgress = true,
          parallelAccesses = #llvm.access_group<id = distinct[1]<>>>}
    ^bb3:
      llvm.return
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func, llvm, memref
from xdsl.passes import ModulePass

from xmux.abi.errors import NotSupportedError
from xmux.dialects import attrs
from xmux.lowering.to_llvm import all_handlers
from xmux.lowering.to_llvm.core import ModuleLowerer, op_name
from xmux.lowering.to_llvm.func import lower_function, lower_llvm_function
from xmux.lowering.to_llvm.memref import lower_global


@dataclass(frozen=True)
class ConvertToLLVMPass(ModulePass):
    """Lower func/arith/math/index/scf/cf/memref/vector to the llvm dialect."""

    name = "convert-to-llvm"

    #: ``cpu`` (work-group local memory was replaced before) or ``nvptx`` (memory space 3 is
    #: the GPU's shared memory: address-space-3 globals reached through generic pointers);
    #: empty: the module's target attribute decides
    target: str = ""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        if self.target not in ("", "cpu", "nvptx"):
            raise NotSupportedError(
                f"convert-to-llvm: target must be cpu or nvptx, got '{self.target}'"
            )
        shared = self.target == "nvptx" or (not self.target and attrs.get_target(op).is_gpu)
        mod = ModuleLowerer(op, all_handlers(), shared_memory=shared)
        replacements = []
        for top in list(op.ops):
            if isinstance(top, func.FuncOp):
                replacements.append((top, lower_function(mod, top)))
            elif isinstance(top, llvm.FuncOp):
                new = lower_llvm_function(mod, top)
                if new is not top:
                    replacements.append((top, new))
            elif isinstance(top, memref.GlobalOp):
                replacements.append((top, lower_global(top, shared)))
            elif op_name(top).startswith("llvm."):
                continue
            else:
                raise NotSupportedError(
                    f"convert-to-llvm: module-level '{op_name(top)}' has no llvm lowering"
                )
        block = op.body.block
        for old, new in replacements:
            block.insert_op_before(new, old)
        for old, _ in replacements:
            old.detach()
            old.erase(drop_references=True)
        for decl in mod.new_symbols:
            block.add_op(decl)
