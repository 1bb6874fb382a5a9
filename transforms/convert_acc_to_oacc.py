"""``convert-acc-to-oacc``: outline OpenACC compute regions into NDRange kernels (omp-expand).

Input: upstream MLIR's ``acc`` dialect as xDSL parses it. Each ``acc.parallel`` in a host
function ``@h`` becomes a kernel ``@h_acc_parallel_<n>`` launched with ``mux.launch``; its
partitioned ``acc.loop``\\ s become uniform-trip-count ``scf.for`` loops over
``oacc.dim_pos``/``oacc.dim_size``, and reductions get the ``oacc`` builtins of the
reference (``openacc-reductions-gcc.txt``, "Examples"). ``expand-oacc-reductions`` then
expands the builtins for a target.

**Outlining.** Every value the region captures becomes a kernel argument (memrefs and
int/float/index scalars; constants are re-materialized instead). Data clauses are identity on
the CPU (the host shares memory): ``acc.copyin``/``create``/``present``/... results are their
host memref, exit ops (``acc.copyout``, ``acc.delete``, ...) vanish. ``acc.private`` becomes a
per-work-item ``memref.alloca`` at the kernel entry, ``acc.firstprivate`` the same plus a copy
of the original. A gang-private array (``private``/``firstprivate`` of the construct or of a
``gang`` loop, an allocation of the region outside worker/vector loops; scalars stay
per-work-item, as GCC's non-addressable ones stay in registers) that worker- or
vector-partitioned code writes is one copy per gang instead, shared by its work-items: a
work-group local ``memref.global`` (memory space 3); a worker-private one (of a ``worker``
loop) that vector-partitioned code writes, a row per worker of one; a first-private one is
initialised by the gang's first work-item, then a barrier (``openacc/private_storage.py``).
The kernel gets ``mux.kernel = "entry_point"``, ``oacc.dims = (num_gangs,
num_workers, vector_length)`` (-1 where only known at run time), ``oacc.level_dims`` when the
mapping is not the default one and ``mux.reqd_work_group_size`` when all sizes are constants.
The launch is ``global_size(ng*vl, nw) local_size(vl, nw)`` with the default mapping
(gang -> work-group dimension ``gang-dim``, worker -> local dimension ``worker-dim``, vector
-> local dimension ``vector-dim``); absent clauses take ``num-gangs``/``num-workers``/
``vector-length`` (OpenACC's default 1).

``acc.serial`` is outlined the same way as ``acc.parallel num_gangs(1) num_workers(1)
vector_length(1)`` (kernel ``@h_acc_serial_<n>``). ``acc.kernels`` (kernel
``@h_acc_kernels_<n>``) runs on one gang (GCC runs a kernels region's code outside its
parallelized loops gang-single); only its loops with levels or ``independent`` are
partitioned, the others run sequentially.

**Levels.** A loop with no ``gang``/``worker``/``vector``/``seq`` is auto and, in
``acc.parallel``/``acc.serial``, implicitly independent: it gets levels as GCC's
``oacc_loop_auto_partitions`` chooses them (a lone loop ``gang vector``, a loop in ``loop
gang`` ``worker vector``; ``openacc/auto_levels.py``). ``seq`` loops run sequentially in the
mode they are in.

**Execution modes.** GCC's: code outside a loop partitioned at a level runs gang-redundant,
worker-single, vector-single. Every work-item runs it, but ops writing shared memory or with
unknown effects (stores, calls, atomics) are neutered: they run under ``scf.if`` on
``oacc.dim_pos == 0`` of the single levels. Values that may differ between the work-items of a
single mode (results of neutered ops, ...) are broadcast at the fork of the partitioned region
that uses them: position 0 stores them to a work-group local ``memref.global`` before
``oacc.fork``, every work-item loads them after it (``openacc/modes.py``).

Only partitioned loops split work. A gang-partitioned loop gives each gang a contiguous chunk
of ``ceil(ntrip/ng)`` iterations (``start = gang*chunk``, ``n = min(chunk, ntrip - min(start,
ntrip))``): on the CPU a gang is a work-group on one thread, so it streams through its own part
of the data instead of touching every ``ng``-th block (measured on bench/acc_sum.py: 2.65x ->
1.60x gcc's time for the f32 sum). Inside the gang's chunk (or the whole range without gang) of
``m`` iterations, workers likewise take contiguous chunks of ``ceil(m / (nw*vl))`` whole vector
rounds (``vl`` = 1 without vector): a worker is a row of the work-group's work-item nest, run
by one thread, so it streams through its part (bench/acc_sum.py, f32: 1.38x -> 0.94x gcc's
time); work-item-loop-interchange still vectorizes across the lanes, as the per-worker trip
count is uniform in each x loop. Inside that, the vector level uses ``pos = lane`` and ``size =
vl`` in uniform-trip-count form: ``scf.for %r = 0 to n/size`` with iteration ``start + r*size +
pos`` (adjacent lanes take adjacent iterations: the work-item loop over x vectorizes), then one
remainder round guarded by ``scf.if r*size + pos < n``. When a worker/vector loop's body holds
partitioned loops (which synchronize the work-group, so every worker must run the same number
of rounds), workers do not take chunks: ``pos = worker*vl + vector`` and ``size = nw*vl`` over
the levels present, and every work-item runs the remainder round: its nested loops get no
iteration where the round is invalid and its other effects run under ``scf.if`` (masked round);
``scf.if``\\ s around partitioned loops in a worker loop's body run both branches, masked by
the condition (if-conversion). ``acc.loop`` with ``seq`` is a plain ``scf.for``. Forks/joins
surround every partitioned loop. Several control variables (collapse) are linearized.

**Reductions.** Inside a reducing loop the variable is a per-work-item ``memref.alloca`` (the
LOCAL object; the copy object is not rewritten there). Around the loop, per level from the
outermost: setup (all reductions), fork, init; after it, from the innermost: lock, fini,
unlock (no lock at vector level), join, teardown. ``res(...)`` (the copy RESULT object) is
passed at gang level only; a worker/vector reduction of a copy object is surrounded by a dummy
gang reduction with the same lid/rid (setup, init ... lock, fini, unlock, teardown, no
fork/join); a reduction on ``acc.parallel`` is a null outermost gang loop around the whole
body, and gang-loop reductions whose RESULT is private (such as the parallel's LOCAL) get no
builtins. A private RESULT receives the teardown value. lid: one per loop with builtins,
counted per kernel; rid: the reduction's index in its loop.

Before::

    %c = acc.copyin varPtr(%a : memref<f32>) -> memref<f32>
        {dataClause = #acc<data_clause acc_copy>}
    %r = acc.reduction varPtr(%c : memref<f32>) recipe(@add_f32) -> memref<f32>
    acc.parallel dataOperands(%c : memref<f32>) num_workers(%c4 : i32) {
      acc.loop worker reduction(%r : memref<f32>) control(%i : index) = (%c0 : index)
          to (%n : index) step (%c1 : index) {
        ... memref.load %r[] ... memref.store %s, %r[] ...
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      acc.yield
    }

After (kernel; the host calls ``mux.launch @h_acc_parallel_0(%a, %n) global_size(%c1, %c4)
local_size(%c1, %c4)``)::

    func.func @h_acc_parallel_0(%a: memref<f32>, %n: index) attributes {mux.kernel = ...} {
      %local = memref.alloca() : memref<f32>
      %0 = memref.load %a[] : memref<f32>
      %1 = oacc.reduction_setup gang add %0 res(%a : memref<f32>) lid 0 rid 0 : f32
      %2 = oacc.reduction_init gang add %1 res(%a : memref<f32>) lid 0 rid 0 : f32
      %3 = oacc.reduction_setup worker add %2 lid 0 rid 0 : f32
      oacc.fork worker
      %4 = oacc.reduction_init worker add %3 lid 0 rid 0 : f32
      memref.store %4, %local[] : memref<f32>
      ... scf.for over worker rounds + guarded remainder, using %local ...
      %5 = memref.load %local[] : memref<f32>
      oacc.lock worker lid 0
      %6 = oacc.reduction_fini worker add %5 lid 0 rid 0 : f32
      oacc.unlock worker lid 0
      oacc.join worker
      %7 = oacc.reduction_teardown worker add %6 lid 0 rid 0 : f32
      oacc.lock gang lid 0
      %8 = oacc.reduction_fini gang add %7 res(%a : memref<f32>) lid 0 rid 0 : f32
      oacc.unlock gang lid 0
      %9 = oacc.reduction_teardown gang add %8 res(%a : memref<f32>) lid 0 rid 0 : f32
      func.return
    }

Recipes: ``acc.reduction.recipe``'s operator gives the kind (iand -> and, ior -> or, xor,
land, lor, eqv, neqv, add, mul, max, min; max/min -> umax/umin when the combiner is
``arith.maxui``/``arith.minui``); its type is the variable's ``memref<T>`` or ``T``, or for an
array reduction (``memref<N x T>``, reduced element by element: one rid per element, RES_PTR
a rank-0 ``memref.subview`` of the element) the array type. The init and combiner regions are
evaluated into the element's identity and combine; a recipe that is not its kind's standard
one becomes an ``oacc.reduction_recipe`` that the builtins name (``recipe @r``), so the
expansion computes what the recipe computes. ``acc.atomic.*`` ops are lowered to llvm atomics
(transforms/openacc/atomics.py); ``gang(static:N)`` deals chunks of N iterations to the gangs
in turn (``static:*``, -1: the default chunks). Errors name
the op, recipe or variable: no recipe, operator invalid for the type, mismatched recipe
types, unsupported clauses. Modules without ``acc`` ops are left unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from xmux.abi.lazy_import import has_dialect_ops, lazy_module

# imported only for modules with acc ops (xDSL's acc dialect alone is ~50 ms of start-up)
acc = lazy_module("xdsl.dialects.acc")
acc_common = lazy_module("xmux.transforms.openacc.acc_common")
atomics = lazy_module("xmux.transforms.openacc.atomics")
host_clauses = lazy_module("xmux.transforms.openacc.host_clauses")
outline = lazy_module("xmux.transforms.openacc.outline")


def _recipes() -> tuple[type[Operation], ...]:
    return (acc.ReductionRecipeOp, acc.PrivateRecipeOp, acc.FirstprivateRecipeOp)


def _compute() -> tuple[type[Operation], ...]:
    """Compute constructs outlined into kernels (acc.serial: one gang of one worker, vector
    1; acc.kernels: one gang, its loops auto and not independent unless marked so)."""
    return (acc.ParallelOp, acc.SerialOp, acc.KernelsOp)


@dataclass(frozen=True)
class ConvertAccToOacc(ModulePass):
    """Convert OpenACC ``acc.parallel`` regions to NDRange kernels with ``oacc`` builtins."""

    name = "convert-acc-to-oacc"

    gang_dim: int = 0
    worker_dim: int = 1
    vector_dim: int = 0
    num_gangs: int = 1
    num_workers: int = 1
    vector_length: int = 1

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not has_dialect_ops(op, "acc"):
            return
        self._check_options()
        host_clauses.fold_bound_queries(op)
        recipe_ops, compute_ops = _recipes(), _compute()
        recipes = {o.sym_name.data: o for o in op.ops if isinstance(o, recipe_ops)}
        for f in [o for o in op.ops if isinstance(o, func.FuncOp)]:
            pars = [o for o in f.walk() if isinstance(o, compute_ops)]
            for n, par in enumerate(pars):
                if _inside(par, compute_ops):
                    raise acc_common.err(f"@{f.sym_name.data}: nested '{par.name}'")
                outline.Outliner(self, op, f, par, n, recipes).run()
            _cleanup_host(f)
        for o in list(op.ops):
            if isinstance(o, recipe_ops):
                op.body.block.erase_op(o)
        atomics.lower_atomics(op)
        # acc.init / acc.shutdown: xmux's runtime (CPU thread pool, CUDA context) is always
        # initialised and outlives the program, so on either target they have no effect
        for o in [o for o in op.walk() if isinstance(o, (acc.InitOp, acc.ShutdownOp))]:
            o.detach()
            o.erase()
        host_clauses.drop_host_only(op)  # acc.set / routine / global ctor-dtor / bounds
        left = next((o for o in op.walk() if o.dialect_name() == "acc"), None)
        if left is not None:
            raise acc_common.unsupported(f"'{left.name}' outside acc.parallel")

    def _check_options(self) -> None:
        dims = {"gang-dim": self.gang_dim, "worker-dim": self.worker_dim,
                "vector-dim": self.vector_dim}
        for k, d in dims.items():
            if not 0 <= d <= 2:
                raise acc_common.err(f"option {k} must be 0, 1 or 2, got {d}")
        if self.worker_dim == self.vector_dim:
            raise acc_common.err(
                f"options worker-dim and vector-dim must differ (both {self.worker_dim})"
            )
        for k, n in (("num-gangs", self.num_gangs), ("num-workers", self.num_workers),
                     ("vector-length", self.vector_length)):
            if n < 1:
                raise acc_common.err(f"option {k} must be at least 1, got {n}")

    @property
    def level_dims(self) -> tuple[int, int, int]:
        return (self.gang_dim, self.worker_dim, self.vector_dim)


def _inside(op: Operation, cls: type[Operation] | tuple[type[Operation], ...]) -> bool:
    p = op.parent_op()
    while p is not None:
        if isinstance(p, cls):
            return True
        p = p.parent_op()
    return False


def _cleanup_host(f: func.FuncOp) -> None:
    """Host-side data clauses are identity (shared memory): forward results, drop the ops."""
    for o in reversed(list(f.walk())):
        if isinstance(o, acc_common.DATA_ONLY):
            o.detach()
            o.erase()
        elif isinstance(o, (*acc_common.IDENTITY_ENTRY, acc.PrivateOp, acc.FirstprivateOp)):
            if isinstance(o, (acc.PrivateOp, acc.FirstprivateOp)) and o.acc_var.uses:
                raise acc_common.unsupported(
                    f"'{o.name}' of '{acc_common.var_name(o.acc_var)}' outside a construct")
            o.acc_var.replace_all_uses_with(o.var)
            o.detach()
            o.erase()
        elif isinstance(o, acc_common.INLINED_REGION):
            # host_data's if only picks host or device addresses, the same ones here
            if isinstance(o, acc.DataOp) and o.if_cond is not None:
                raise acc_common.unsupported("acc.data with an if clause")
            block = o.region.block
            term = block.last_op
            if isinstance(term, (acc.TerminatorOp, acc.YieldOp)):
                block.erase_op(term)
            parent = o.parent_block()
            assert parent is not None
            for inner in list(block.ops):
                inner.detach()
                parent.insert_op_before(inner, o)
            o.detach()
            o.erase()
