"""Pictures of the work-item-loops plan: barrier regions as a Graphviz (DOT) graph.

``work-item-loops{dump-plan=dot}`` prints, per pass run, one ``digraph`` with a cluster per
kernel with barriers (``xmux-opt --view-plan out.svg`` writes it to a file and renders it
when Graphviz's ``dot`` is installed):

* **structured fission** (``storage.py``'s plan): each segment (barrier region) is a node —
  one work-item loop nest; lifted ``scf.for``/``scf.while``/``scf.if`` are clusters that run
  once per group, holding their levels' segments. Solid edges are control flow: a barrier
  (bold, red) between two segments of a level, entering / leaving / iterating a lifted op
  (labelled with the parallel copies at that edge and how the plan placed them: copied at
  the edge, coalesced where the source is computed, or already in the array). Dashed edges
  are values used across segments, from the defining segment to each using one, labelled
  with their storage: a per-work-item array ``#k`` (blue), re-computed (grey), a private
  slice (green); a note lists the arrays and their members.
* **region dispatch** (``dispatch.py``): each entry of the region function (the kernel
  entry, the continuation of each barrier) is a node, the exit another; an edge from entry
  *r* to *t* says some path of *r* stops at barrier *t* (or returns); dashed edges are the
  per-work-item slots, from the entries that store them to those that load them.

Only reads the plan / region function (before emission rewrites the kernel).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from xdsl.dialects import cf, func, memref, scf
from xdsl.ir import Block, Operation, SSAValue

from xmux.transforms.uniformity import is_control_barrier
from xmux.transforms.wi_loops.dispatch import Dispatch
from xmux.transforms.wi_loops.storage import Edge, PlanPrinter, StoragePlan

#: op names shown in a segment's node before "…"
_MAX_OPS_SHOWN = 4

# kernels' clusters of the pass run in progress; finished digraphs when captured
_fragments: list[list[str]] = []
_captured: list[list[str]] = []


def _q(text: str) -> str:
    """A DOT string literal (``\\n`` in ``text`` stays a line break)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\\\\n", "\\n") + '"'


def _ops_summary(ops: list[Operation]) -> str:
    counts: dict[str, int] = {}
    for op in ops:
        counts[op.name] = counts.get(op.name, 0) + 1
    parts = [f"{n} x{c}" if c > 1 else n for n, c in counts.items()]
    if len(parts) > _MAX_OPS_SHOWN:
        parts = [*parts[:_MAX_OPS_SHOWN], "…"]
    return "\\n".join(parts)


def _ops(n: int | None) -> str:
    return f"{n} op" if n == 1 else f"{n} ops"


class _Structured:
    """The DOT cluster of one kernel run by structured fission."""

    def __init__(self, kernel: str, plan: StoragePlan) -> None:
        self.k = kernel
        self.plan = plan
        self.r = plan.regions
        self.names = PlanPrinter(plan)
        self.level_no = {b: i for i, (b, _) in enumerate(self.r.levels)}
        self.level_ops = dict(self.r.levels)
        self.lines: list[str] = []
        self.clusters = 0

    def node(self, block: Block, seg: int) -> str:
        return _q(f"{self.k}.L{self.level_no[block]}S{seg}")

    def first(self, block: Block) -> str:
        return self.node(block, 0)

    def last(self, block: Block) -> str:
        return self.node(block, self.r.last_index[block])

    def edge(self, a: str, b: str, **attrs: str) -> None:
        fmt = ", ".join(f"{k}={_q(v) if k in ('label', 'xlabel') else v}"
                       for k, v in attrs.items())
        self.lines.append(f"  {a} -> {b}" + (f" [{fmt}]" if fmt else ""))

    def copies(self, edge: Edge | None) -> str:
        if edge is None:
            return ""
        how = {"edge": "copied", "coalesced": "coalesced", "same": "same array"}
        out = []
        for c in edge.copies:
            arr = self.plan.home[c.dst].index
            out.append(f"{self.names.name(c.src)} → {self.names.name(c.dst)} "
                       f"(#{arr}, {how[c.how]})")
        return "\\n".join(out)

    # -- segments and control flow ---------------------------------------------------------

    def level(self, block: Block, title: str) -> None:
        ops = self.level_ops[block]
        r = self.r
        for i in range(r.last_index[block] + 1):
            mine = [o for o in ops if r.seg_index.get(o) == i and not is_control_barrier(o)
                    and o not in r.lifted and o not in r.hoisted and o not in self.plan.sunk]
            single = any(o in r.single for o in mine)
            head = f"{title} seg {i}".lstrip() + (" (once, as work-item 0)" if single else "")
            body = _ops_summary(mine) if mine else "(no ops)"
            shape = "box, style=\"rounded,dashed\"" if single else "box, style=rounded"
            label = _q(f"{head}\\n{body}")
            self.lines.append(f"  {self.node(block, i)} [label={label}, shape={shape}]")
        for op in ops:
            idx = r.seg_index[op]
            pre, post = self.node(block, idx), self.node(block, idx + 1)
            if is_control_barrier(op):
                bid = getattr(op, "barrier_id", None)
                label = "barrier" + (f" (id {bid})" if bid is not None else "")
                self.edge(pre, post, label=label, color="red", penwidth="2")
            elif op in r.single:
                self.edge(self.node(block, idx - 1), pre)
                self.edge(pre, post)
            elif op in r.lifted:
                self.lifted(op, pre, post)

    def lifted(self, op: Operation, pre: str, post: str) -> None:
        self.clusters += 1
        n = self.clusters
        self.lines.append(f"  subgraph {_q(f'cluster_{self.k}_{n}')} {{")
        self.lines.append(f"  label={_q(op.name + ' (once per group)')}; style=dashed;")
        pe, ee = self.plan.entry_edges, self.plan.exit_edges
        if isinstance(op, scf.ForOp):
            body = op.body.block
            self.level(body, "body")
            self.lines.append("  }")
            self.edge(pre, self.first(body), label="enter\\n" + self.copies(pe.get(op)))
            self.edge(self.last(body), self.first(body),
                      label="next iteration\\n" + self.copies(ee.get(body)), constraint="false")
            self.edge(self.last(body), post, label="exit")
            self.edge(pre, post, label="0 trips", style="dotted")
        elif isinstance(op, scf.IfOp):
            branches = [(r.block, name) for r, name in zip(op.regions, ("then", "else"),
                                                          strict=True) if r.blocks]
            for b, name in branches:
                self.level(b, name)
            self.lines.append("  }")
            for b, name in branches:
                self.edge(pre, self.first(b), label=name)
                self.edge(self.last(b), post, label=self.copies(ee.get(b)))
            if len(branches) == 1:
                self.edge(pre, post, label="else", style="dotted")
        else:
            assert isinstance(op, scf.WhileOp)
            before, after = op.before_region.block, op.after_region.block
            self.level(before, "before")
            self.level(after, "after")
            self.lines.append("  }")
            self.edge(pre, self.first(before), label="enter\\n" + self.copies(pe.get(op)))
            self.edge(self.last(before), self.first(after),
                      label="condition true\\n" + self.copies(ee.get(before)))
            self.edge(self.last(before), post, label="condition false")
            self.edge(self.last(after), self.first(before),
                      label="next iteration\\n" + self.copies(ee.get(after)), constraint="false")

    # -- values across segments -----------------------------------------------------------

    def seg_of(self, op: Operation) -> str | None:
        """The segment node running ``op`` (a lifted op's operands: the segment before it)."""
        cur: Operation | None = op
        while cur is not None:
            block = cur.parent_block()
            if block in self.level_no:
                if cur is block.last_op:
                    return self.last(block)
                idx = self.r.seg_index.get(cur)
                return None if idx is None else self.node(block, idx)
            cur = cur.parent_op()
        return None

    def crossing(self, out: dict[tuple[str, str, str], list[str]], v: SSAValue, kind: str,
                 label: str) -> None:
        """``v`` from its segment to each other segment using it (one edge per pair and
        kind of storage, the values' labels joined)."""
        owner = v.owner
        src = self.seg_of(owner) if isinstance(owner, Operation) else None
        if src is None:
            return
        for use in v.uses:
            dst = self.seg_of(use.operation)
            if dst is not None and dst != src:
                labels = out.setdefault((src, dst, kind), [])
                if label not in labels:
                    labels.append(label)

    def values(self) -> None:
        plan, r, name = self.plan, self.r, self.names.name
        out: dict[tuple[str, str, str], list[str]] = {}
        for v in sorted(plan.stored, key=lambda v: plan.home[v].index):
            arr = plan.home[v]
            rule = ", uniform by barrier rule" if v in r.uniformize else ""
            self.crossing(out, v, "stored", f"{name(v)}: array #{arr.index} {arr.type}{rule}")
        for op in sorted(plan.sunk, key=lambda o: name(o.results[0])):
            for v in op.results:
                self.crossing(out, v, "remat", name(v))
        for v, p in plan.private.items():
            self.crossing(out, v, "private", f"{name(v)}: private slice, {p.stride} B/work-item")
        colors = {"stored": "blue", "remat": "gray40", "private": "darkgreen"}
        for (src, dst, kind), labels in out.items():
            text = (", ".join(labels) + ": re-computed") if kind == "remat" else "\\n".join(labels)
            self.edge(src, dst, label=text, style="dashed", color=colors[kind],
                      fontcolor=colors[kind])

    def note(self) -> None:
        plan = self.plan
        rows = [f"array #{a.index} {a.type}: " + ", ".join(self.names.name(v) for v in a.members)
                for a in plan.arrays]
        rows += [f"private {self.names.name(v)}: {p.type}" for v, p in plan.private.items()]
        if plan.shared_allocas:
            rows.append(f"{len(plan.shared_allocas)} alloca(s) shared by all work-items")
        text = "per-work-item storage\\n" + ("\\n".join(rows) if rows else "(none)")
        self.lines.append(f"  {_q(self.k + '.storage')} [label={_q(text)}, shape=note]")

    def build(self) -> str:
        self.level(self.r.block, "")
        self.values()
        self.note()
        return _cluster(self.k, "structured fission", self.lines)


def _cluster(kernel: str, how: str, lines: list[str]) -> str:
    return "\n".join([f"subgraph {_q('cluster_' + kernel)} {{",
                      f"  label={_q(f'@{kernel}: {how}')}; fontsize=16;",
                      *lines, "}"])


def structured_graph(kernel: str, plan: StoragePlan) -> str:
    """The DOT cluster of a kernel scheduled by structured fission (module docstring)."""
    return _Structured(kernel, plan).build()


def _reach(start: Block) -> list[Block]:
    """Blocks of the region function reachable from ``start`` (returns end a path)."""
    seen: list[Block] = []
    stack = [start]
    while stack:
        b = stack.pop()
        if b in seen:
            continue
        seen.append(b)
        last = b.last_op
        if last is not None:
            stack.extend(last.successors)
    return seen


def _returned(block: Block) -> int | None:
    ret = block.last_op
    if not isinstance(ret, func.ReturnOp) or not ret.arguments:
        return None
    c = ret.arguments[0].owner
    value = getattr(c, "value", None)
    data = getattr(value, "value", None)
    return getattr(data, "data", None)


def dispatch_graph(kernel: str, dispatch: Dispatch, why: str) -> str:
    """The DOT cluster of a kernel run by region dispatch, after ``build_regions`` (the
    region function: an entry block switching on the state to each entry)."""
    fn = dispatch.fn
    assert isinstance(fn, func.FuncOp)
    entry = fn.body.blocks.first
    assert entry is not None
    switch = entry.last_op
    assert isinstance(switch, cf.SwitchOp)
    starts = [switch.default_block, *switch.case_blocks]
    exit_id = dispatch.exit_id
    k = kernel
    node = {r: _q(f"{k}.R{r}") for r in range(exit_id + 1)}
    lines: list[str] = []
    ids = {i: f" (id {b.barrier_id})" for i, b in enumerate(dispatch.barriers, start=1)}
    region_blocks: dict[int, list[Block]] = {}
    for r, start in enumerate(starts):
        blocks = _reach(start)
        region_blocks[r] = blocks
        n_ops = sum(len(list(b.ops)) for b in blocks)
        head = "kernel entry" if r == 0 else f"after barrier {r}{ids.get(r, '')}"
        label = _q(f"entry {r}: {head}\\n{len(blocks)} block(s), {n_ops} ops")
        lines.append(f"  {node[r]} [label={label}, shape=box, style=rounded]")
    lines.append(f"  {node[exit_id]} [label={_q('exit')}, shape=doublecircle]")
    succ: dict[int, set[int]] = {}
    for r, blocks in region_blocks.items():
        targets = sorted({t for b in blocks if (t := _returned(b)) is not None})
        succ[r] = {t for t in targets if t != exit_id}
        for t in targets:
            if t == exit_id:
                lines.append(f"  {node[r]} -> {node[t]} [label={_q('return')}]")
            else:
                lines.append(f"  {node[r]} -> {node[t]} [label={_q(f'barrier {t}')}, "
                             "color=red, penwidth=2]")
    # entries that can run after each one (through one barrier or more): a slot stored in
    # one is read in those (all of a legal program's work-items move entry by entry)
    later: dict[int, set[int]] = {}
    for r in region_blocks:
        seen: set[int] = set()
        stack = list(succ[r])
        while stack:
            t = stack.pop()
            if t not in seen:
                seen.add(t)
                stack.extend(succ.get(t, ()))
        later[r] = seen
    # per-work-item slots: stored in some entries, loaded in later ones
    n_args = len(entry.args) - len(dispatch.storage)
    rows: list[str] = []
    for i, (kind, t, private, stride) in enumerate(dispatch.storage):
        arg = entry.args[n_args + i]
        if kind.startswith("global:"):
            continue
        if kind == "private":
            rows.append(f"private slice {private}, {stride} B/work-item")
            continue
        stored = [u.operation for u in arg.uses
                  if isinstance(u.operation, memref.StoreOp) and u.index == 1]
        loads = [u.operation for u in arg.uses if isinstance(u.operation, memref.LoadOp)]
        value = stored[0].value if stored else None
        label = f"%{value.name_hint}" if value is not None and value.name_hint else f"slot {i}"
        elem = getattr(t, "element_type", t)
        rows.append(f"slot #{i} {elem}: {label}")
        src = {r for r, bs in region_blocks.items() for s in stored if s.parent_block() in bs}
        dst = {r for r, bs in region_blocks.items() for ld in loads if ld.parent_block() in bs}
        for a in sorted(src):
            for b in sorted(dst & later[a]):
                lines.append(f"  {node[a]} -> {node[b]} [label={_q(f'{label}: slot #{i} {elem}')},"
                             " style=dashed, color=blue, fontcolor=blue]")
    text = "per-work-item storage\\n" + ("\\n".join(rows) if rows else "(none)")
    lines.append(f"  {_q(k + '.storage')} [label={_q(text)}, shape=note]")
    return _cluster(k, f"region dispatch ({why})", lines)


# -- the pass's output --------------------------------------------------------------------


@contextmanager
def collecting() -> Iterator[list[str]]:
    """The kernels' clusters added (``add``) during one run of the pass."""
    _fragments.append([])
    try:
        yield _fragments[-1]
    finally:
        _fragments.pop()


def add(cluster: str) -> None:
    if _fragments:
        _fragments[-1].append(cluster)


def digraph(clusters: list[str]) -> str:
    body = clusters or [f"{_q('none')} [label={_q('no kernel with barriers')}, shape=plaintext]"]
    return "\n".join(["digraph \"work-item-loops plan\" {",
                      "rankdir=TB; fontname=\"Helvetica\"; node [fontname=\"Helvetica\"]; "
                      "edge [fontname=\"Helvetica\", fontsize=10];", *body, "}"])


def output(text: str) -> None:
    """To the capture in progress (``capture``), else stderr (as the text dump)."""
    if _captured:
        _captured[-1].append(text)
    else:
        print(text, file=sys.stderr)


@contextmanager
def capture() -> Iterator[list[str]]:
    """The digraphs the pass prints while the block runs, kept instead of printed."""
    _captured.append([])
    try:
        yield _captured[-1]
    finally:
        _captured.pop()


def render(dot_text: str, path: Path) -> list[Path]:
    """Write ``path`` with the extension ``.dot``, and ``path`` itself rendered by Graphviz
    (format from its extension, e.g. ``.svg``, ``.png``) when ``dot`` is installed: the files
    written."""
    dot_path = path.with_suffix(".dot")
    dot_path.write_text(dot_text + "\n")
    written = [dot_path]
    exe = shutil.which("dot")
    if exe is not None and path.suffix not in ("", ".dot"):
        subprocess.run([exe, f"-T{path.suffix[1:]}", "-o", str(path), str(dot_path)],
                       check=True, capture_output=True, timeout=60)
        written.append(path)
    return written
