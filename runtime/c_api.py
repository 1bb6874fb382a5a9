"""Kernels from C: an object file of a module's kernels and a C header to launch them.

``xmux-run FILE.mlir --emit obj -o k.o`` writes the kernels' object code (relocatable,
position-independent: it links into a PIE executable) and ``--emit header -o k.h`` the
header; ``gcc main.c k.o -lm`` links them without Python (docs/architecture.md, "Kernels
from C"). PoCL's work-group launchers (``KERNEL_workgroup_argbuffer``) are the model: the
object exports each kernel's entry hook, ``void K.mux-entry-hook(void *args, int64_t
*sched)`` (runtime/abi.py), which runs the work-groups of one slice, also under a C name,
``xmux_K_entry_hook`` (``hook_name``: a tail call linked in); the header declares that and
adds, per kernel,

- ``K_args_t``: the packed argument struct (runtime/abi.py's layout: each argument in order
  with natural C alignment, a memref as MLIR's descriptor ``{allocated, aligned, offset,
  sizes[R], strides[R]}``, a local-memory argument as a descriptor with only its sizes set);
- ``int K_run(K_args_t *args, unsigned work_dim, const size_t *global_size, const size_t
  *local_size, const size_t *global_offset)``: the NDRange on the calling thread, the
  range checked as ``runtime/launch.py``'s ``NDRange`` checks it (a negative ``XMUX_E_*``
  code, 0 on success); ``local_size`` / ``global_offset`` may be NULL;
- ``int K_run_threads(..., unsigned threads)``: the same on ``threads`` POSIX threads (the
  calling one and ``threads - 1`` started for the launch), each running one slice of the
  work-groups (``schedule_info``'s ``slice`` / ``total_slices``).

``object_code`` compiles LLVM IR with llvmlite for any triple LLVM was built with
(``aarch64-unknown-linux-gnu`` on an x86 host: cross-compiling), at O3 as the JIT does.
"""

from __future__ import annotations

import ctypes
import re

import llvmlite.binding as llvm
from llvmlite import ir

from xmux.abi import kernel_layout as layout
from xmux.abi.errors import XmuxError
from xmux.abi.kernel_layout import ArgInfo, KernelInfo
from xmux.runtime import jit

__all__ = ["args_size", "field_names", "header", "hook_name", "object_code"]

_C_SCALAR = {
    "bool": "int8_t",  # i1 is stored as i8
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int32_t",
    "int64": "int64_t",
    "uint8": "uint8_t",
    "uint16": "uint16_t",
    "uint32": "uint32_t",
    "uint64": "uint64_t",
    "float16": "uint16_t",  # the bit pattern
    "float32": "float",
    "float64": "double",
}


# ---------------------------------------------------------------------------------------
# Object code
# ---------------------------------------------------------------------------------------


def _machine(triple: str, cpu: str, features: str) -> llvm.TargetMachine:
    jit._target()  # LLVM's native target and the JIT's global options, set up once
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    try:
        target = llvm.Target.from_triple(triple)
    except RuntimeError as e:
        raise XmuxError(f"no LLVM target for the triple {triple!r}: {str(e).strip()}") from e
    return target.create_target_machine(
        cpu=cpu, features=features, opt=3, reloc="pic", codemodel="default"
    )


def hook_name(info: KernelInfo) -> str:
    """The C name of ``info``'s entry hook in the object (``xmux_K_entry_hook``): the
    hook's own name has a dot and a dash, which GNU as cannot take from an asm label."""
    return f"xmux_{_c_name(info.name)}_entry_hook"


def _c_entry_points(infos: list[KernelInfo]) -> str:
    """A module defining ``hook_name(k)`` for each kernel: a tail call of its entry hook
    (linked into the kernels' module, where O3 folds it)."""
    module = ir.Module()
    ptr = ir.IntType(8).as_pointer()
    fnty = ir.FunctionType(ir.VoidType(), [ptr, ptr])
    for k in infos:
        hook = ir.Function(module, fnty, name=k.symbol)
        entry = ir.Function(module, fnty, name=hook_name(k))
        b = ir.IRBuilder(entry.append_basic_block("entry"))
        b.call(hook, list(entry.args), tail=True)
        b.ret_void()
    return str(module)


def object_code(ir_text: str, infos: list[KernelInfo], triple: str, cpu: str,
                features: str = "") -> bytes:
    """An ELF object of ``ir_text`` for ``triple`` / ``cpu`` (LLVM's names) exporting each
    kernel's entry hook under its C name (``hook_name``), optimized at O3 as the JIT
    optimizes (loop and SLP vectorization), position-independent; built in a forked child
    as the JIT builds (an LLVM abort fails the compile, not the process)."""
    entries = _c_entry_points(infos)

    def work(settings: jit.Settings) -> bytes:
        machine = _machine(triple, cpu, features)
        with jit._lock:
            mod = jit._parse(ir_text, machine)
            try:
                mod.link_in(jit._parse(entries, machine))
            except RuntimeError as e:
                raise XmuxError(f"linking the C entry points: {str(e).strip()}") from e
            jit._optimize(mod, machine, settings)
            return machine.emit_object(mod)

    return jit._contained(work, f"an object for {triple}", len(ir_text))


# ---------------------------------------------------------------------------------------
# Header
# ---------------------------------------------------------------------------------------

_COMMON = r"""
#ifndef XMUX_C_API_COMMON
#define XMUX_C_API_COMMON
/* the schedule_info struct of the entry hooks (abi/kernel_layout.py): all int64_t */
enum {
  XMUX_SCHED_GLOBAL_SIZE = @GS@, XMUX_SCHED_GLOBAL_OFFSET = @GO@, XMUX_SCHED_LOCAL_SIZE = @LS@,
  XMUX_SCHED_SLICE = @SL@, XMUX_SCHED_TOTAL_SLICES = @TS@, XMUX_SCHED_WORK_DIM = @WD@,
  XMUX_SCHED_CANCEL = @CA@, XMUX_SCHED_NUM_FIELDS = @NF@
};
/* what the run functions return */
#define XMUX_SUCCESS 0
#define XMUX_E_WORK_DIM (-1)        /* work_dim not 1..3, or above the kernel's max_work_dim */
#define XMUX_E_GLOBAL_SIZE (-2)     /* a global size of 0, or ids past 2^63 */
#define XMUX_E_LOCAL_SIZE (-3)      /* a local size of 0, above the global size, or one the
                                       kernel cannot take (reqd_work_group_size, vector width,
                                       work-group collectives, static local memory) */
#define XMUX_E_THREADS (-4)         /* threads < 1 or above the most; a thread that
                                       cannot start is no error: its slices run here */
#define XMUX_MAX_INDEX 0x7fffffffffffffffULL

typedef void (*xmux_entry_hook_t)(void *args, int64_t *sched);

/* the range normalised to 3 dimensions (the rest 1 / 0), as runtime/launch.py's NDRange */
static inline int xmux_ndrange_(unsigned work_dim, const size_t *global_size,
                                const size_t *local_size, const size_t *global_offset,
                                const int64_t *reqd, int max_work_dim,
                                int64_t sched[XMUX_SCHED_NUM_FIELDS], uint64_t *groups) {
  unsigned d;
  uint64_t items = 1;
  if (work_dim < 1 || work_dim > 3 || (max_work_dim > 0 && (int)work_dim > max_work_dim))
    return XMUX_E_WORK_DIM;
  for (d = 0; d < XMUX_SCHED_NUM_FIELDS; ++d) sched[d] = 0;
  *groups = 1;
  for (d = 0; d < 3; ++d) {
    uint64_t g = d < work_dim ? (uint64_t)global_size[d] : 1;
    uint64_t off = d < work_dim && global_offset ? (uint64_t)global_offset[d] : 0;
    uint64_t l;
    if (g < 1 || g > XMUX_MAX_INDEX || off > XMUX_MAX_INDEX - g) return XMUX_E_GLOBAL_SIZE;
    if (items > XMUX_MAX_INDEX / g) return XMUX_E_GLOBAL_SIZE;
    items *= g;
    if (d >= work_dim) l = 1;
    else if (local_size) l = (uint64_t)local_size[d];
    else if (reqd) l = (uint64_t)reqd[d];
    else if (d == 0) { l = 64; while (g % l) l /= 2; }  /* as wide as divides, up to 64 */
    else l = 1;
    if (l < 1 || l > g) return XMUX_E_LOCAL_SIZE;
    if (reqd && (l != (uint64_t)reqd[d] || g % l)) return XMUX_E_LOCAL_SIZE;
    sched[XMUX_SCHED_GLOBAL_SIZE + d] = (int64_t)g;
    sched[XMUX_SCHED_GLOBAL_OFFSET + d] = (int64_t)off;
    sched[XMUX_SCHED_LOCAL_SIZE + d] = (int64_t)l;
    *groups *= (g + l - 1) / l;
  }
  sched[XMUX_SCHED_SLICE] = 0;
  sched[XMUX_SCHED_TOTAL_SLICES] = 1;
  sched[XMUX_SCHED_WORK_DIM] = (int64_t)work_dim;
  sched[XMUX_SCHED_CANCEL] = 0; /* no cancel word */
  return XMUX_SUCCESS;
}

#ifndef XMUX_NO_THREADS
#include <pthread.h>
typedef struct {
  xmux_entry_hook_t hook;
  void *args;
  int64_t sched[XMUX_SCHED_NUM_FIELDS];
} xmux_slice_;

static void *xmux_run_slice_(void *p) {
  xmux_slice_ *s = (xmux_slice_ *)p;
  s->hook(s->args, s->sched);
  return 0;
}

/* slice t of `threads` on thread t (the calling thread runs slice 0) */
static inline int xmux_run_threads_(xmux_entry_hook_t hook, void *args,
                                    const int64_t sched[XMUX_SCHED_NUM_FIELDS],
                                    uint64_t groups, unsigned threads) {
  enum { MOST = 512 };
  xmux_slice_ slices[MOST];
  pthread_t ids[MOST];
  unsigned t, d, started = 0;
  int status = XMUX_SUCCESS;
  if (threads < 1 || threads > MOST) return XMUX_E_THREADS;
  if (threads > groups) threads = (unsigned)groups;
  for (t = 0; t < threads; ++t) {
    slices[t].hook = hook;
    slices[t].args = args;
    for (d = 0; d < XMUX_SCHED_NUM_FIELDS; ++d) slices[t].sched[d] = sched[d];
    slices[t].sched[XMUX_SCHED_SLICE] = t;
    slices[t].sched[XMUX_SCHED_TOTAL_SLICES] = threads;
  }
  for (t = 1; t < threads; ++t) {
    if (pthread_create(&ids[t], 0, xmux_run_slice_, &slices[t]) != 0) {
      status = XMUX_E_THREADS; /* a flag only: these slices run here, the launch completes */
      break;
    }
    started = t;
  }
  xmux_run_slice_(&slices[0]);
  for (t = started + 1; t < threads && status != XMUX_SUCCESS; ++t)
    xmux_run_slice_(&slices[t]);
  for (t = 1; t <= started; ++t) pthread_join(ids[t], 0);
  return XMUX_SUCCESS;
}
#endif
#endif /* XMUX_C_API_COMMON */
"""


def _common() -> str:
    values = {
        "GS": layout.SCHED_GLOBAL_SIZE, "GO": layout.SCHED_GLOBAL_OFFSET,
        "LS": layout.SCHED_LOCAL_SIZE, "SL": layout.SCHED_SLICE,
        "TS": layout.SCHED_TOTAL_SLICES, "WD": layout.SCHED_WORK_DIM,
        "CA": layout.SCHED_CANCEL, "NF": layout.SCHED_NUM_FIELDS,
    }
    text = _COMMON
    for k, v in values.items():
        text = text.replace(f"@{k}@", str(v))
    return text


def _memref_type(rank: int) -> str:
    return f"xmux_memref{rank}_t"


def _memref_decl(rank: int) -> str:
    t = _memref_type(rank)
    dims = f" int64_t sizes[{rank}]; int64_t strides[{rank}];" if rank else ""
    params = "".join(f", int64_t size{d}" for d in range(rank))
    body = [f"  {t} m;", "  m.allocated = data;", "  m.aligned = data;", "  m.offset = 0;"]
    if rank:
        body.append("  int64_t stride = 1;")
        for d in reversed(range(rank)):
            body.append(f"  m.sizes[{d}] = size{d}; m.strides[{d}] = stride; stride *= size{d};")
    body.append("  return m;")
    return (
        f"#ifndef XMUX_MEMREF{rank}_DEFINED\n#define XMUX_MEMREF{rank}_DEFINED\n"
        f"/* a rank-{rank} memref descriptor (sizes and strides in elements) */\n"
        f"typedef struct {{ void *allocated; void *aligned; int64_t offset;{dims} }} {t};\n"
        f"/* a C-contiguous (row-major) array at data */\n"
        f"static inline {t} xmux_memref{rank}(void *data{params}) {{\n"
        + "\n".join(body) + "\n}\n#endif\n"
    )


#: C and C++ keywords an MLIR name may spell (an argument ``%int``): such a name gets a ``_``
_KEYWORDS = frozenset(
    "auto bool break case char class const continue default delete do double else enum extern "
    "float for goto if inline int long namespace new operator private protected public "
    "register restrict return short signed sizeof static struct switch template this typedef "
    "union unsigned virtual void volatile while".split()
)


def _c_name(name: str) -> str:
    out = re.sub(r"[^A-Za-z0-9_]", "_", name)
    out = out if out and not out[0].isdigit() else f"_{out}"
    return f"{out}_" if out in _KEYWORDS else out


def _field(i: int, a: ArgInfo, names: set[str]) -> tuple[str, str]:
    name = _c_name(a.name) if a.name else f"arg{i}"
    if name in names:
        name = f"{name}_{i}"
    names.add(name)
    if a.kind in ("memref", "local"):
        rank = len(a.shape or [])
        dims = "x".join("?" if d is None else str(d) for d in a.shape or [])
        what = "local memory: set sizes/strides only" if a.kind == "local" else "memref"
        note = f"{what} {dims + 'x' if dims else ''}{a.dtype}"
        if a.offset:
            note += f", static offset {a.offset}: aligned = element 0 - {a.offset}"
        return f"  {_memref_type(rank)} {name}; /* {note} */", name
    if a.dtype not in _C_SCALAR:
        raise XmuxError(f"kernel argument '{a.name}': no C type for {a.dtype}")
    return f"  {_C_SCALAR[a.dtype]} {name}; /* {a.dtype} */", name


def field_names(info: KernelInfo) -> list[str]:
    """The C names of ``info``'s arguments in ``K_args_t``, in order."""
    names: set[str] = set()
    return [_field(i, a, names)[1] for i, a in enumerate(info.args)]


def _checks(k: KernelInfo) -> list[str]:
    """The kernel-specific checks of ``NDRange.of`` on ``sched`` (C statements)."""
    out = []
    ls = "sched[XMUX_SCHED_LOCAL_SIZE + {d}]"
    if k.max_work_group_size is not None:
        prod = " * ".join(ls.format(d=d) for d in range(3))
        out.append(f"  if ({prod} > {k.max_work_group_size}) return XMUX_E_LOCAL_SIZE;")
    if k.vector_width > 1 and not k.vector_tail:
        d, w = k.vector_dim, k.vector_width
        g = f"sched[XMUX_SCHED_GLOBAL_SIZE + {d}]"
        local = ls.format(d=d)
        out.append(
            f"  if ({local} % {w} || ({g} % {local} ? {g} % {local} : {local}) % {w}) "
            "return XMUX_E_LOCAL_SIZE; /* compiled without a scalar tail */"
        )
    for d, most, memory in k.local_size_limits:
        out.append(
            f"  if ({ls.format(d=d)} > {most}) return XMUX_E_LOCAL_SIZE; "
            f"/* local memory {_comment(memory)} */"
        )
    return out


def _comment(text: str) -> str:
    return text.replace("*/", "* /")


def _kernel(k: KernelInfo) -> str:
    c = _c_name(k.name)
    names: set[str] = set()
    fields = [_field(i, a, names)[0] for i, a in enumerate(k.args)] or ["  char unused_;"]
    hook = hook_name(k)
    reqd = "0"
    lines = [
        f"/* kernel @{k.name} */",
        "typedef struct {\n" + "\n".join(fields) + f"\n}} {c}_args_t;",
        "",
        "/* the work-groups of one slice of an NDRange (runtime/abi.py) */",
        f"void {hook}(void *args, int64_t *sched); /* {k.symbol} */",
        "",
    ]
    if k.reqd_work_group_size is not None:
        values = ", ".join(str(v) for v in k.reqd_work_group_size)
        lines.append(f"static const int64_t {c}_reqd_work_group_size[3] = {{{values}}};")
        reqd = f"{c}_reqd_work_group_size"
    max_dim = k.max_work_dim or 0
    params = (f"{c}_args_t *args, unsigned work_dim, const size_t *global_size, "
              "const size_t *local_size, const size_t *global_offset")
    checks = "\n".join(_checks(k))
    lines += [
        f"static inline int {c}_prepare_(unsigned work_dim, const size_t *global_size,",
        "    const size_t *local_size, const size_t *global_offset,",
        "    int64_t sched[XMUX_SCHED_NUM_FIELDS], uint64_t *groups) {",
        f"  int status = xmux_ndrange_(work_dim, global_size, local_size, global_offset, "
        f"{reqd}, {max_dim}, sched, groups);",
        "  if (status != XMUX_SUCCESS) return status;",
        *( [checks] if checks else [] ),
        "  return XMUX_SUCCESS;",
        "}",
        "",
        f"/* @{k.name} over the NDRange on the calling thread: XMUX_SUCCESS or XMUX_E_*.",
        "   local_size NULL: the default (reqd_work_group_size, else as wide as divides the",
        "   global size up to 64); global_offset NULL: zeros. */",
        f"static inline int {c}_run({params}) {{",
        "  int64_t sched[XMUX_SCHED_NUM_FIELDS];",
        "  uint64_t groups;",
        f"  int status = {c}_prepare_(work_dim, global_size, local_size, global_offset, "
        "sched, &groups);",
        "  if (status != XMUX_SUCCESS) return status;",
        f"  {hook}(args, sched);",
        "  return XMUX_SUCCESS;",
        "}",
        "",
        "#ifndef XMUX_NO_THREADS",
        f"/* as {c}_run, on `threads` threads (1 to 512): link with -pthread */",
        f"static inline int {c}_run_threads({params}, unsigned threads) {{",
        "  int64_t sched[XMUX_SCHED_NUM_FIELDS];",
        "  uint64_t groups;",
        f"  int status = {c}_prepare_(work_dim, global_size, local_size, global_offset, "
        "sched, &groups);",
        "  if (status != XMUX_SUCCESS) return status;",
        f"  return xmux_run_threads_({hook}, args, sched, groups, threads);",
        "}",
        "#endif",
        "",
    ]
    return "\n".join(lines)


def header(infos: list[KernelInfo], guard: str = "XMUX_KERNELS_H", about: str = "") -> str:
    """The C header of ``infos``' kernels (see the module docstring)."""
    ranks = sorted({len(a.shape or []) for k in infos for a in k.args
                    if a.kind in ("memref", "local")})
    guard = _c_name(guard).upper()
    parts = [
        f"/* Generated by xmux{': ' + _comment(about) if about else ''}. Launch the kernels "
        "of the object file\n   emitted with it (xmux-run --emit obj). Do not edit. */",
        f"#ifndef {guard}\n#define {guard}\n",
        "#include <stddef.h>\n#include <stdint.h>\n",
        "#ifdef __cplusplus\nextern \"C\" {\n#endif",
        _common(),
        *(_memref_decl(r) for r in ranks),
        *(_kernel(k) for k in infos),
        "#ifdef __cplusplus\n}\n#endif\n",
        f"#endif /* {guard} */\n",
    ]
    return "\n".join(parts)


def args_size(info: KernelInfo) -> int:
    """The size of ``info``'s packed argument struct (``sizeof(K_args_t)``) in bytes."""
    from xmux.runtime import abi

    return ctypes.sizeof(abi.packed_args_ctype(abi.layout_of(info))) if info.args else 1

