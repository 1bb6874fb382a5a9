"""The ``oacc`` dialect: GCC's OpenACC internal builtins for reductions and partitioning.

GCC's OpenACC reduction design (gcc-patches, "New reduction infrastructure for OpenACC")
re-created as MLIR ops. ``convert-acc-to-oacc`` (the
omp-expand analogue) places them; ``expand-oacc-reductions{expansion=host|cpu|ptx}`` (the oacc-xform
analogue) expands them. (``acc`` is upstream MLIR's OpenACC dialect, our *input*.)

* the four reduction builtins, all with the same six arguments (RES_PTR, LOCAL, LEVEL, OP, LID,
  RID) and returning the new LOCAL value::

      %a1 = oacc.reduction_setup gang add %a res(%p : memref<f32>) lid 0 rid 0 : f32
      oacc.fork gang
      %a2 = oacc.reduction_init gang add %a1 res(%p : memref<f32>) lid 0 rid 0 : f32
      ...                                   // the partitioned loop
      oacc.lock gang lid 0
      %a3 = oacc.reduction_fini gang add %a2 res(%p : memref<f32>) lid 0 rid 0 : f32
      oacc.unlock gang lid 0
      oacc.join gang
      %a4 = oacc.reduction_teardown gang add %a3 res(%p : memref<f32>) lid 0 rid 0 : f32

  RES_PTR (``res(...)``) is the address of the *copy* RESULT object, a rank-0 memref of the
  reduction type; it is absent for private results and always absent at worker and vector level
  (the reference's "for worker and vector level reductions, RESULT argument will be NULL").
* ``oacc.lock`` / ``oacc.unlock`` (level, lid) around the fini calls at the end of a loop;
* ``oacc.fork`` / ``oacc.join`` (level) around a partitioned region;
* ``oacc.reduction_recipe @r : T init {...} combiner {...}`` (module level): a reduction's own
  identity and combine on scalars of ``T`` (each region ends with ``oacc.yield``); builtins
  that name it (``recipe @r``) use it instead of their kind's;
* ``oacc.dim_pos`` / ``oacc.dim_size`` (level): this thread's position along a level and the
  level's size (``IFN_GOACC_DIM_POS`` / ``IFN_GOACC_DIM_SIZE``)::

      %w = oacc.dim_pos worker : index
      %nw = oacc.dim_size worker : index

Reduction types: signless ``i1`` (bool), ``i8``, ``i16``, ``i32``, ``i64``, ``f16``, ``f32``,
``f64``, ``complex<f32>``, ``complex<f64>``. Operators (``init_val`` in parentheses): ``add`` (0),
``mul`` (1), ``max`` (lowest), ``min`` (highest), ``and`` (all ones), ``or`` (0), ``xor`` (0),
``land`` (1), ``lor`` (0). ``max``/``min`` are signed on integers. Valid combinations:
add/mul on every non-``i1`` type; max/min on integers (not ``i1``) and floats; and/or/xor on
integers; land/lor on integers and floats. ``&`` on ``f32`` is an error naming the op.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    AnyFloat,
    ComplexType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    TypeAttribute,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    Region,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
)
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import (
    HasParent,
    IsTerminator,
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum


class Level(StrEnum):
    """A parallelism level of OpenACC (the reference's LEVEL argument)."""

    GANG = "gang"
    WORKER = "worker"
    VECTOR = "vector"


class ReductionKind(StrEnum):
    """A reduction operator (the reference's OP argument)."""

    ADD = "add"
    MUL = "mul"
    MAX = "max"
    MIN = "min"
    AND = "and"
    OR = "or"
    XOR = "xor"
    LAND = "land"
    LOR = "lor"
    #: integer max / min of the unsigned values (an ``acc`` max/min recipe whose combiner is
    #: ``arith.maxui`` / ``arith.minui``)
    UMAX = "umax"
    UMIN = "umin"
    #: Fortran's .eqv. / .neqv. on logicals (non-zero = true); the result is 0 or 1
    EQV = "eqv"
    NEQV = "neqv"


#: Which kinds of type each operator accepts: "int" (not i1), "bool" (i1), "float", "complex".
VALID_TYPE_CLASSES: dict[ReductionKind, frozenset[str]] = {
    ReductionKind.ADD: frozenset({"int", "float", "complex"}),
    ReductionKind.MUL: frozenset({"int", "float", "complex"}),
    ReductionKind.MAX: frozenset({"int", "float"}),
    ReductionKind.MIN: frozenset({"int", "float"}),
    ReductionKind.UMAX: frozenset({"int", "bool"}),
    ReductionKind.UMIN: frozenset({"int", "bool"}),
    ReductionKind.EQV: frozenset({"int", "bool"}),
    ReductionKind.NEQV: frozenset({"int", "bool"}),
    ReductionKind.AND: frozenset({"int", "bool"}),
    ReductionKind.OR: frozenset({"int", "bool"}),
    ReductionKind.XOR: frozenset({"int", "bool"}),
    ReductionKind.LAND: frozenset({"int", "bool", "float"}),
    ReductionKind.LOR: frozenset({"int", "bool", "float"}),
}

_INT_WIDTHS = (1, 8, 16, 32, 64)


def type_class(t: Attribute) -> str | None:
    """"int", "bool", "float", "complex" for a valid reduction type, None otherwise."""
    if isinstance(t, IntegerType) and t.width.data in _INT_WIDTHS:
        return "bool" if t.width.data == 1 else "int"
    if isinstance(t, AnyFloat) and t.bitwidth in (16, 32, 64):
        return "float"
    if isinstance(t, ComplexType) and isinstance(t.element_type, AnyFloat):
        return "complex" if t.element_type.bitwidth in (32, 64) else None
    return None


def check_reduction_type(kind: ReductionKind | str, t: Attribute, where: str) -> None:
    """Raise a ``VerifyException`` naming ``where`` unless ``kind`` may reduce values of ``t``."""
    cls = type_class(t)
    if cls is None:
        raise VerifyException(
            f"{where}: {t} is not a reduction type (i1, i8, i16, i32, i64, f16, f32, f64, "
            "complex<f32>, complex<f64>)"
        )
    kind = ReductionKind(kind)
    if cls not in VALID_TYPE_CLASSES[kind]:
        allowed = ", ".join(sorted(VALID_TYPE_CLASSES[kind]))
        raise VerifyException(
            f"{where}: reduction operator '{kind.value}' is not valid for {t} "
            f"(it takes {allowed} types)"
        )


@irdl_attr_definition
class LevelAttr(EnumAttribute[Level], SpacedOpaqueSyntaxAttribute):
    """``#oacc<level gang>`` (generic form): gang, worker or vector."""

    name = "oacc.level"


@irdl_attr_definition
class ReductionKindAttr(EnumAttribute[ReductionKind], SpacedOpaqueSyntaxAttribute):
    """``#oacc<kind add>`` (generic form): a reduction operator."""

    name = "oacc.kind"


def _level(level: Level | str | LevelAttr) -> LevelAttr:
    return level if isinstance(level, LevelAttr) else LevelAttr(Level(level))


def _kind(kind: ReductionKind | str | ReductionKindAttr) -> ReductionKindAttr:
    return kind if isinstance(kind, ReductionKindAttr) else ReductionKindAttr(ReductionKind(kind))


def _int(v: int | IntegerAttr) -> IntegerAttr:
    return v if isinstance(v, IntegerAttr) else IntegerAttr(v, i64)


class ReductionBuiltinOp(IRDLOperation):
    """Base of ``oacc.reduction_{setup,init,fini,teardown}``: (RES_PTR?, LOCAL, LEVEL, OP,
    LID, RID) → new LOCAL."""

    T: ClassVar = VarConstraint("T", AnyAttr())
    local = operand_def(T)
    res_ptr = opt_operand_def(MemRefType)
    result = result_def(T)
    level = prop_def(LevelAttr)
    kind = prop_def(ReductionKindAttr)
    lid = prop_def(IntegerAttr[I64])
    rid = prop_def(IntegerAttr[I64])
    #: an ``oacc.reduction_recipe`` giving the identity and the combine (absent: the kind's)
    recipe = opt_prop_def(SymbolRefAttr)

    assembly_format = (
        "$level $kind $local (`res` `(` $res_ptr^ `:` type($res_ptr) `)`)? "
        "(`recipe` $recipe^)? `lid` $lid `rid` $rid attr-dict `:` type($local)"
    )

    def __init__(
        self,
        local: SSAValue | Operation,
        level: Level | str | LevelAttr,
        kind: ReductionKind | str | ReductionKindAttr,
        lid: int | IntegerAttr,
        rid: int | IntegerAttr,
        res_ptr: SSAValue | Operation | None = None,
        recipe: str | SymbolRefAttr | None = None,
    ) -> None:
        v = SSAValue.get(local)
        props: dict[str, Attribute] = {
            "level": _level(level),
            "kind": _kind(kind),
            "lid": _int(lid),
            "rid": _int(rid),
        }
        if recipe is not None:
            props["recipe"] = SymbolRefAttr(recipe) if isinstance(recipe, str) else recipe
        super().__init__(
            operands=[v, [res_ptr] if res_ptr is not None else []],
            result_types=[v.type],
            properties=props,
        )

    @property
    def recipe_name(self) -> str | None:
        return None if self.recipe is None else self.recipe.root_reference.data

    @property
    def level_value(self) -> Level:
        return self.level.data

    @property
    def kind_value(self) -> ReductionKind:
        return self.kind.data

    @property
    def lid_value(self) -> int:
        return self.lid.value.data

    @property
    def rid_value(self) -> int:
        return self.rid.value.data

    def verify_(self) -> None:
        where = f"'{self.name}' (lid {self.lid_value}, rid {self.rid_value})"
        check_reduction_type(self.kind_value, self.local.type, where)
        if self.res_ptr is None:
            return
        if self.level_value != Level.GANG:
            raise VerifyException(
                f"{where}: a result pointer is only allowed at gang level (worker and vector "
                f"reductions always have a private RESULT), got level {self.level_value.value}"
            )
        t = self.res_ptr.type
        assert isinstance(t, MemRefType)
        if t.get_shape() != () or t.element_type != self.local.type:
            raise VerifyException(
                f"{where}: result pointer must be memref<{self.local.type}> (rank 0, the "
                f"reduction type), got {t}"
            )


@irdl_op_definition
class ReductionSetupOp(ReductionBuiltinOp):
    """``IFN_RED_SETUP``: before the partitioned region (single mode)."""

    name = "oacc.reduction_setup"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())


@irdl_op_definition
class ReductionInitOp(ReductionBuiltinOp):
    """``IFN_RED_INIT``: at the start of the partitioned region, before the loop."""

    name = "oacc.reduction_init"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())


@irdl_op_definition
class ReductionFiniOp(ReductionBuiltinOp):
    """``IFN_RED_FINI``: at the end of the partitioned region, combining the LOCAL objects
    (inside ``oacc.lock``/``oacc.unlock``)."""

    name = "oacc.reduction_fini"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())


@irdl_op_definition
class ReductionTeardownOp(ReductionBuiltinOp):
    """``IFN_RED_TEARDOWN``: after the partitioned region (single mode)."""

    name = "oacc.reduction_teardown"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())


class _LevelLidOp(IRDLOperation):
    level = prop_def(LevelAttr)
    lid = prop_def(IntegerAttr[I64])

    assembly_format = "$level `lid` $lid attr-dict"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, level: Level | str | LevelAttr, lid: int | IntegerAttr) -> None:
        super().__init__(properties={"level": _level(level), "lid": _int(lid)})

    @property
    def level_value(self) -> Level:
        return self.level.data

    @property
    def lid_value(self) -> int:
        return self.lid.value.data

    def verify_(self) -> None:
        if self.level_value == Level.VECTOR:
            # The reference: "the only two levels needed are gang and worker level".
            raise VerifyException(
                f"'{self.name}' (lid {self.lid_value}): vector reductions need no lock; "
                "only gang and worker levels have one"
            )


@irdl_op_definition
class LockOp(_LevelLidOp):
    """``IFN_RED_LOCK(LEVEL, LID)``: enter the atomic region around the fini calls."""

    name = "oacc.lock"


@irdl_op_definition
class UnlockOp(_LevelLidOp):
    """``IFN_RED_UNLOCK(LEVEL, LID)``: leave the atomic region."""

    name = "oacc.unlock"


class _LevelOp(IRDLOperation):
    level = prop_def(LevelAttr)

    assembly_format = "$level attr-dict"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, level: Level | str | LevelAttr) -> None:
        super().__init__(properties={"level": _level(level)})

    @property
    def level_value(self) -> Level:
        return self.level.data


@irdl_op_definition
class ForkOp(_LevelOp):
    """``IFN_UNIQUE(OACC_FORK, LEVEL)``: enter partitioned mode at ``level``."""

    name = "oacc.fork"


@irdl_op_definition
class JoinOp(_LevelOp):
    """``IFN_UNIQUE(OACC_JOIN, LEVEL)``: leave partitioned mode at ``level``."""

    name = "oacc.join"


class _DimOp(IRDLOperation):
    level = prop_def(LevelAttr)
    result = result_def(IndexType)

    assembly_format = "$level attr-dict `:` type($result)"
    traits = traits_def(Pure())

    def __init__(self, level: Level | str | LevelAttr) -> None:
        super().__init__(properties={"level": _level(level)}, result_types=[IndexType()])

    @property
    def level_value(self) -> Level:
        return self.level.data


@irdl_op_definition
class DimPosOp(_DimOp):
    """``IFN_GOACC_DIM_POS(LEVEL)``: this thread's position along ``level``."""

    name = "oacc.dim_pos"
    # Varies per work-item: not Pure, so it is not hoisted out of work-item loops.
    traits = traits_def(MemoryReadEffect())


@irdl_op_definition
class DimSizeOp(_DimOp):
    """``IFN_GOACC_DIM_SIZE(LEVEL)``: the number of threads along ``level``."""

    name = "oacc.dim_size"


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Ends a region of ``oacc.reduction_recipe`` with its value."""

    name = "oacc.yield"
    arguments = var_operand_def()

    assembly_format = "attr-dict ($arguments^ `:` type($arguments))?"
    traits = traits_def(IsTerminator(), Pure())

    def __init__(self, *values: SSAValue | Operation) -> None:
        super().__init__(operands=[values])


@irdl_op_definition
class ReductionRecipeOp(IRDLOperation):
    """A reduction on scalars of ``type``, as an ``acc.reduction.recipe`` defines it
    (``convert-acc-to-oacc`` derives it from the recipe's init and combiner regions, memref
    or value form, element-wise for arrays): ``init`` yields the identity, ``combiner``
    combines its two arguments. The reduction builtins naming it (``recipe @r``) take their
    identity and their combine from it instead of from their kind::

        oacc.reduction_recipe @mul_i32 : i32 init {
          %one = arith.constant 1 : i32
          oacc.yield %one : i32
        } combiner {
        ^bb0(%x: i32, %y: i32):
          %p = arith.muli %x, %y : i32
          oacc.yield %p : i32
        }
    """

    name = "oacc.reduction_recipe"
    sym_name = prop_def(SymbolNameConstraint())
    type = prop_def(TypeAttribute)
    init = region_def("single_block")
    combiner = region_def("single_block")

    assembly_format = "$sym_name `:` $type `init` $init `combiner` $combiner attr-dict"
    traits = traits_def(SymbolOpInterface(), HasParent(ModuleOp))

    def __init__(self, sym_name: str, t: Attribute, init: Region, combiner: Region) -> None:
        super().__init__(
            properties={"sym_name": StringAttr(sym_name), "type": t},
            regions=[init, combiner],
        )

    def verify_(self) -> None:
        t = self.type
        where = f"'{self.name}' @{self.sym_name.data}"
        for region, what, nargs in ((self.init, "init", 0), (self.combiner, "combiner", 2)):
            args = region.block.args
            if len(args) != nargs or any(a.type != t for a in args):
                raise VerifyException(
                    f"{where}: the {what} region takes {nargs} argument(s) of type {t}"
                )
            y = region.block.last_op
            if not isinstance(y, YieldOp) or [v.type for v in y.arguments] != [t]:
                raise VerifyException(f"{where}: the {what} region must yield one {t}")


REDUCTION_BUILTINS = (ReductionSetupOp, ReductionInitOp, ReductionFiniOp, ReductionTeardownOp)

OACC = Dialect(
    "oacc",
    [
        ReductionSetupOp,
        ReductionInitOp,
        ReductionFiniOp,
        ReductionTeardownOp,
        LockOp,
        UnlockOp,
        ForkOp,
        JoinOp,
        DimPosOp,
        DimSizeOp,
        ReductionRecipeOp,
        YieldOp,
    ],
    [LevelAttr, ReductionKindAttr],
)
