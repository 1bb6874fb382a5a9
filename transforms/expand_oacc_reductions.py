"""expand-oacc-reductions{expansion=host|cpu|ptx}: GCC's OpenACC builtins → plain SIMT code.

The oacc-xform analogue of GCC's OpenACC reduction design: expands the ``oacc``
builtins that ``convert-acc-to-oacc`` placed in OpenACC kernels (``func.func`` with
``oacc.dims``). The ``expansion`` option picks where the levels run (without it, the module's
target decides: ``ptx`` on an NVPTX target, else ``cpu``). ``expansion=host`` is the
reference's default (host) expansion: every kernel runs as a single thread. ``expansion=cpu``
runs gangs as work-groups on the thread pool and workers / vector lanes as work-items (level →
NDRange dimension from ``oacc.level_dims``: gang = group dimension 0, worker = local dimension
1, vector = local dimension 0). ``expansion=ptx`` maps the levels the same way onto an NVIDIA
GPU, where the threads of a work-group (CTA) run concurrently: the reference's PTX design.

**host** — ``mux.launch`` of every OpenACC kernel: global = local = 1 in every dimension;
``mux.reqd_work_group_size`` = (1, 1, 1); ``oacc.dim_pos`` → 0, ``oacc.dim_size`` → 1;
setup: V = res ? *res : LOCAL; init, fini: V = LOCAL; teardown: if res: *res = LOCAL, V =
LOCAL; lock/unlock/fork/join vanish.

**cpu** — execution-mode rule: every work-item runs redundant code, so the fini at level L is
performed only by the work-items whose positions at the levels inside L are 0 (gang: local
linear id 0, worker: vector position 0, vector: every lane).

- dim_pos/dim_size: gang = ``mux.get_group_id`` / number of gangs, worker and vector =
  ``mux.get_local_id`` / their size (constants where ``oacc.dims`` has them).
- gang: setup/teardown V = LOCAL, init V = init_val(op), fini *res = OP(*res, LOCAL): one
  ``llvm.atomicrmw`` where LLVM has the operation for the type (add/max/min/and/or/xor on
  integers, fadd/fmax/fmin on floats, and/or/xor on i1 as i8, complex add as two fadds),
  otherwise plain load/OP/store inside the loop's gang lock: a spin lock on the module-level
  i32 ``@__oacc_gang_lock`` (cmpxchg 0→1 loop + acquire fence; release fence + xchg 0).
  A lock whose finis are all atomic vanishes; gang fork/join and a fini without res vanish.
- worker: one slot per (lid, rid) of ``@__oacc_worker_red_<T> : memref<K x T, 3>`` (complex:
  two slots); setup: local linear id 0 writes slot = LOCAL (after a barrier when the setup is
  inside a loop: the previous round's teardown may still read the slot); fork/join =
  ``mux.work_group_barrier``; init V = init_val; fini under the worker lock (a work-group local
  i32, ``syncscope("singlethread")``: a work-group runs on one thread; the lock keeps the slot
  update out of reordering and vectorization): slot = OP(slot, LOCAL); teardown V = slot.
- vector: fork/join = ``mux.work_group_barrier``; init V = pos ? init_val : LOCAL; fini
  stores LOCAL at ``@__oacc_vector_red_<T>[row][worker·vl + lane]`` (row per (rid, part) of
  the loop); teardown folds the worker's ``vl`` values in lane order (every lane gets the same
  value), so the join barrier separates the stores from the folds and the next fork barrier
  the folds from the next stores.

**ptx** — the cpu rule for who performs a fini, with GCC's PTX mechanisms (threads of a CTA
are not ordered, so every exchange goes through a barrier, a warp shuffle or an atomic):

- vector, when a vector group lies within a warp (static vector_length dividing 32, vector =
  local dimension 0: a worker's lanes are consecutive threads of one warp): setup V = LOCAL,
  init V = pos ? init_val : LOCAL, fini a butterfly of ``llvm.nvvm.shfl.sync.bfly.i32``
  (offsets vl/2 … 1; i64/f64 as two words) over the group's lanes (mask ``(2^vl − 1) <<
  (llid − lane) mod 32``): every lane gets the result; teardown V = LOCAL; fork/join
  ``llvm.nvvm.bar.warp.sync`` on that mask. A static multiple of 32: each warp shuffles, its
  lane 0 writes the warp's partial to ``@__oacc_vector_red_<T>[row][worker·vl/32 +
  lane/32]``, the join barrier, teardown folds the group's vl/32 partials. Any other length
  (or a dynamic one): every lane writes its value, teardown folds vl values in lane order.
  vector_length 1: no exchange at all.
- fork/join: gang vanish; worker ``mux.work_group_barrier`` (``bar.sync``); vector inside
  worker-partitioned code (or with one worker) as above, else a work-group barrier (in
  worker-single code every worker reads what worker 0 wrote). A fork with nothing before it
  to order (in the kernel's entry block after only effect-free ops, work-item queries,
  allocas and unused loads: ``expand_ptx.nothing_shared_before``) vanishes.
- worker: no lock. setup V = LOCAL; init V = worker pos ? init_val : LOCAL; fini: vector lane
  0 writes LOCAL to its worker's slot ``@__oacc_worker_red_<T>[row][worker]`` (a row per
  (lid, rid, part), rows reused across loops: the next loop's fork barrier separates them);
  the join barrier; teardown folds the nw slots in worker order (every thread the same
  value).
- gang: as cpu, with one ``llvm.atomicrmw … syncscope("device") monotonic`` per gang (the
  result is read after the launch; LLVM expands what PTX lacks into a cmpxchg loop), else the
  gang lock ``@__oacc_gang_lock`` in global memory at device scope: cmpxchg 0 → 1
  ``acquire`` loop + ``fence acquire``, then ``fence release`` + ``xchg 0 release`` (PTX:
  ``atom.acquire.gpu.cas``, ``fence.acq_rel.gpu``).

i8/i16 are promoted to i32 in the buffers; complex values are decomposed into their two parts
(separate slots/rows). ``init_val``: add 0, mul 1, max lowest, min highest, and all ones,
or/xor 0, land 1, lor 0. max/min are signed on integers, IEEE maxNum/minNum on floats; land/lor
give 0 or 1.

**Recipes** — a builtin naming an ``oacc.reduction_recipe`` (``recipe @r``, placed by
convert-acc-to-oacc when the ``acc`` recipe is not its operator's standard one) takes its
identity (init V, the vector lanes' init) from the recipe's init region and OP (worker slot,
vector fold, gang fini) from its combiner region, both cloned where they are needed; the gang
fini is one ``atomicrmw`` only when the combiner is one operation LLVM has
(``arith.addi/maxsi/minsi/maxui/minui/andi/ori/xori/addf/maxnumf/minnumf``, ``complex.add``
on both arguments), otherwise it runs under the gang lock. The recipes are erased.

Expects: oacc builtins only in OpenACC kernels, placed as in the reference.
Guarantees: no oacc op remains.

Before (gang reduction into a copy object)::

    %a1 = oacc.reduction_setup gang add %a res(%r : memref<f32>) lid 0 rid 0 : f32
    oacc.fork gang
    %a2 = oacc.reduction_init gang add %a1 res(%r : memref<f32>) lid 0 rid 0 : f32
    %s = ...                                  // the partitioned loop
    oacc.lock gang lid 0
    %a3 = oacc.reduction_fini gang add %s res(%r : memref<f32>) lid 0 rid 0 : f32
    oacc.unlock gang lid 0
    oacc.join gang
    %a4 = oacc.reduction_teardown gang add %a3 res(%r : memref<f32>) lid 0 rid 0 : f32

After, expansion=cpu (f32 add has an atomic: no lock)::

    %a2 = arith.constant 0.000000e+00 : f32
    %s = ...
    %0 = mux.get_local_linear_id : index
    %1 = arith.constant 0 : index
    %2 = arith.cmpi eq, %0, %1 : index
    scf.if %2 {
      %3 = "memref.extract_aligned_pointer_as_index"(%r) : (memref<f32>) -> index
      %4 = arith.index_cast %3 : index to i64
      %5 = llvm.inttoptr %4 : i64 to !llvm.ptr
      %6 = llvm.atomicrmw fadd %5, %s acq_rel : !llvm.ptr, f32
    }

After, expansion=ptx: the same with ``llvm.atomicrmw fadd %5, %s syncscope("device")
monotonic``; a vector fini at vector_length(32)::

    %b = arith.bitcast %v : f32 to i32
    %s = llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"(%all, %b, %c16, %c31)
         : (i32, i32, i32, i32) -> i32
    %v1 = arith.addf %v, (arith.bitcast %s : i32 to f32)      // ... offsets 8, 4, 2, 1

After, expansion=host (and the kernel's ``mux.launch`` gets global = local = 1)::

    %a1 = memref.load %r[] : memref<f32>
    %s = ...                                  // from %a1
    memref.store %s, %r[] : memref<f32>
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.context import Context
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import XmuxError
from xmux.abi.lazy_import import has_dialect_ops, lazy_module
from xmux.dialects import attrs, mux
from xmux.transforms.lower_work_group_collectives import (
    MAX_WORK_GROUP_SIZE,
    Ops,
    reachable_functions,
)

if TYPE_CHECKING:
    from xmux.transforms.openacc.oacc_kernels import Kernel

# imported only for modules with OpenACC kernels (abi/lazy_import.py)
oacc = lazy_module("xmux.dialects.oacc")
expand_cpu = lazy_module("xmux.transforms.openacc.expand_cpu")
expand_ptx = lazy_module("xmux.transforms.openacc.expand_ptx")
oacc_kernels = lazy_module("xmux.transforms.openacc.oacc_kernels")

EXPANSIONS = ("host", "cpu", "ptx")


# ---------------------------------------------------------------------------------------
# host
# ---------------------------------------------------------------------------------------


def _expand_host(op: Operation, b: Ops) -> SSAValue | None:
    if isinstance(op, oacc.DimPosOp):
        return b.index(0)
    if isinstance(op, oacc.DimSizeOp):
        return b.index(1)
    if not isinstance(op, oacc.ReductionBuiltinOp):
        return None  # lock/unlock/fork/join vanish
    res = op.res_ptr
    if isinstance(op, oacc.ReductionSetupOp) and res is not None:
        return b(memref.LoadOp.get(res, []))
    if isinstance(op, oacc.ReductionTeardownOp) and res is not None:
        b(memref.StoreOp.get(op.local, res, []))
    return op.local


def _rewrite_launches(module: ModuleOp, names: set[str]) -> None:
    for launch in [o for o in module.walk() if isinstance(o, mux.LaunchOp)]:
        if launch.kernel.string_value() not in names:
            continue
        one = arith.ConstantOp.from_int_and_width(1, expand_cpu.INDEX)
        n = launch.work_dim
        new = mux.LaunchOp(launch.kernel, launch.args, [one] * n, [one] * n, launch.global_offset)
        new.attributes.update(launch.attributes)
        Rewriter.replace_op(launch, [one, new], [])


def _replace(op: Operation, b: Ops, value: SSAValue | None) -> None:
    Rewriter.insert_op(b.ops, InsertPoint.before(op))
    if value is not None and op.results:
        hint = op.results[0].name_hint
        op.results[0].replace_all_uses_with(value)
        if hint and value.name_hint is None and value.owner in b.ops:
            value.name_hint = hint
    Rewriter.erase_op(op)


def uses_capacity_buffer(module: ModuleOp, kernel: func.FuncOp) -> bool:
    """True when ``kernel`` (or a callee) reads a vector reduction buffer sized for the
    maximal work-group (its kernel has no required work-group size)."""
    funcs = attrs.functions(module)
    return any(
        isinstance(o, memref.GetGlobalOp) and o.name_.root_reference.data.startswith(
            expand_cpu.VECTOR_BUFFER)
        for n in reachable_functions(kernel, funcs)
        for o in funcs[n].walk()
    )


@dataclass(frozen=True)
class ExpandOaccReductions(ModulePass):
    """Expand the oacc builtins of OpenACC kernels for the host, the thread pool or a GPU.

    ``expansion``: one thread (host), the thread pool (cpu) or an NVIDIA GPU (ptx)."""

    name = "expand-oacc-reductions"

    #: host, cpu or ptx; empty: the module's target decides (a GPU: ptx, else cpu)
    expansion: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        expansion = self.expansion or ("ptx" if attrs.get_target(op).is_gpu else "cpu")
        if expansion not in EXPANSIONS:
            raise XmuxError(
                f"expand-oacc-reductions: expansion must be one of {', '.join(EXPANSIONS)}, "
                f"got '{self.expansion}'"
            )
        if not has_dialect_ops(op, "oacc") and not any(
                attrs.get_oacc_dims(f) is not None for f in attrs.functions(op).values()):
            return
        kernels, owner = oacc_kernels.collect_kernels(op)
        recipes = {o.sym_name.data: o for o in op.ops if isinstance(o, oacc.ReductionRecipeOp)}
        for o in list(recipes.values()):
            o.detach()  # the builtins clone what they need
        self._check_recipes(kernels, owner, recipes)
        if not kernels:
            return
        if expansion == "host":
            for o, _ in list(owner.items()):
                b = Ops()
                _replace(o, b, _expand_host(o, b))
            for k in kernels:
                attrs.set_reqd_work_group_size(k.fn, (1, 1, 1))
            _rewrite_launches(op, {k.name for k in kernels})
            return
        for k in kernels:
            if attrs.get_reqd_work_group_size(k.fn) is None:
                nw, vl = k.size(oacc.Level.WORKER), k.size(oacc.Level.VECTOR)
                if nw is not None and vl is not None:
                    dg, dw, dv = k.level_dims
                    size = [1, 1, 1]
                    size[dw] *= nw
                    size[dv] *= vl
                    attrs.set_reqd_work_group_size(k.fn, size)
        expander = expand_ptx.PtxExpander if expansion == "ptx" else expand_cpu.CpuExpander
        ex = expander(op, kernels, recipes)
        ex.plan(owner)
        for o, k in list(owner.items()):
            b = Ops()
            _replace(o, b, ex.expand(o, k, b))
        for k in kernels:  # a vector buffer sized for the largest work-group: the limit
            if attrs.get_reqd_work_group_size(k.fn) is None and uses_capacity_buffer(op, k.fn):
                attrs.set_max_work_group_size(k.fn, MAX_WORK_GROUP_SIZE)

    def _check_recipes(self, kernels: list[Kernel], owner: dict[Operation, Kernel],
                       recipes: dict[str, oacc.ReductionRecipeOp]) -> None:
        for o, k in owner.items():
            if not isinstance(o, oacc.ReductionBuiltinOp) or o.recipe_name is None:
                continue
            r = recipes.get(o.recipe_name)
            where = oacc_kernels.op_where(k, o)
            if r is None:
                raise oacc_kernels.error(where, f"no oacc.reduction_recipe @{o.recipe_name}")
            if r.type != o.local.type:
                raise oacc_kernels.error(where, f"oacc.reduction_recipe @{o.recipe_name} is "
                                         f"for {r.type}, the reduction is of {o.local.type}")
