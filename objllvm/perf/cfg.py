"""Draw a function's basic blocks as a graph (Graphviz DOT, SVG through ``dot`` when installed).

Edges come from the PGO analysis map's successors when the map has them, else from branch stacks in the
profile, else from the layout order (a block that can fall through to the next one; drawn dashed).  Blocks are
shaded by their share of the function's samples and labelled with their ID, address range and sample count.
"""
from __future__ import annotations

import difflib
import shutil
import subprocess

from ..errors import ObjllvmError, UsageError


def find_function(index, name: str):
    """The FunctionMap called ``name`` (mangled, or readable as ``-C`` shows it; or at address ``0x...``) in a
    BBIndex."""
    for f in index.functions:
        if f.name == name:
            return f
    if not name.startswith(("_Z", "_R", "0x")):
        from ..demangle import demangle_all
        readable = demangle_all([f.name for f in index.functions if f.name])
        hits = [f for f in index.functions if readable.get(f.name) == name]
        if len(hits) == 1:
            return hits[0]
    try:
        addr = int(name, 0)
    except ValueError:
        addr = None
    if addr is not None:
        f = index.function_at(addr)
        if f is not None:
            return f
    names = [f.name for f in index.functions if f.name]
    close = difflib.get_close_matches(name, names, n=5, cutoff=0.5)
    hint = f" (did you mean: {', '.join(close)}?)" if close else f" ({len(names)} functions have a map)"
    raise UsageError(f"no function named {name!r} in the basic-block map{hint}")


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def _heat(h: float) -> str:
    """White (no samples) to red (the hottest block)."""
    h = max(0.0, min(1.0, h))
    g = int(round(255 * (1 - 0.85 * h))) if h > 0 else 255
    return f"#ff{g:02x}{g:02x}" if h > 0 else "#ffffff"


def cfg_edges(fn, profile=None):
    """``(edges, source)``: edges ``[(from id, to id, label, weight, style)]`` from the best source."""
    pgo = getattr(fn, "pgo_blocks", None)
    if pgo and any(getattr(p, "successors", None) for p in pgo):
        out = []
        for blk, p in zip(fn.blocks, pgo):
            for s in p.successors or ():
                prob = (s.probability or 0) / 0x80000000
                out.append((blk.id, s.id, f"{prob:.0%}", prob, "solid"))
        return out, "pgo analysis map"
    if profile is not None:
        br = profile.edges_of(fn)
        if br:
            top = max(t + f for t, f in br.values()) or 1
            out = []
            for (a, b), (t, f) in sorted(br.items()):
                parts = ([f"taken {t}"] if t else []) + ([f"fall-through {f}"] if f else [])
                out.append((a, b, ", ".join(parts), (t + f) / top, "solid"))
            return out, "branch stacks"
    blocks = sorted(fn.blocks, key=lambda b: b.address)
    counts = {}
    if profile is not None:
        fp = profile.function_by_address(fn.address)
        counts = fp.blocks if fp is not None else {}
    pairs = [(a, b) for a, b in zip(blocks, blocks[1:]) if a.can_fall_through]
    top = max([min(counts.get(a.id, 0), counts.get(b.id, 0)) for a, b in pairs] + [0]) or 1
    out = [(a.id, b.id, "", min(counts.get(a.id, 0), counts.get(b.id, 0)) / top, "dashed") for a, b in pairs]
    return out, "layout"


def cfg_dot(fn, profile=None, *, demangle: bool = False) -> str:
    """The DOT text of ``fn``'s graph, shaded by the samples in ``profile`` (a mapping.Profile or None); the title
    names the function readable with ``demangle``."""
    fp = profile.function_by_address(fn.address) if profile is not None else None
    counts = fp.blocks if fp is not None else {}
    total = sum(counts.values())
    top = max(counts.values()) if counts else 0
    edges, source = cfg_edges(fn, profile)
    name = fn.name or hex(fn.address)
    if demangle and fn.name:
        from ..demangle import demangle as readable
        name = readable(fn.name)
    title = f"{name} @ {fn.address:#x}"
    if profile is not None:
        title += f": {total} samples"
    title += f" (edges: {source})"
    lines = [f'digraph "{_esc(fn.name or hex(fn.address))}" {{',
             f'  graph [label="{_esc(title)}", labelloc=t, fontname="Helvetica"];',
             '  node [shape=box, style="filled", fontname="Courier", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=9];']
    for b in sorted(fn.blocks, key=lambda x: x.address):
        c = counts.get(b.id, 0)
        label = f"#{b.id}\\n{b.address:#x}-{b.address + b.size:#x}"
        if profile is not None:
            label += f"\\n{c} samples" + (f" ({c / total:.1%})" if total else "")
        flags = [n for n, v in (("ret", b.has_return), ("tail call", b.has_tail_call), ("EH pad", b.is_eh_pad),
                                ("indirect", b.has_indirect_branch)) if v]
        if flags:
            label += "\\n" + ", ".join(flags)
        lines.append(f'  b{b.id} [label="{label}", fillcolor="{_heat(c / top if top else 0)}"];')
    for a, b, label, w, style in edges:
        attrs = [f'style={style}', f'penwidth={1 + 3 * w:.2f}']
        if label:
            attrs.append(f'label="{_esc(label)}"')
        lines.append(f"  b{a} -> b{b} [{', '.join(attrs)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def have_dot() -> bool:
    return shutil.which("dot") is not None


def dot_to_svg(dot_text: str) -> bytes:
    """Run Graphviz ``dot -Tsvg``; ObjllvmError when it is missing or fails."""
    exe = shutil.which("dot")
    if exe is None:
        raise ObjllvmError("Graphviz 'dot' is not installed: write a .dot file instead (-o OUT.dot), or install "
                           "graphviz to get SVG")
    p = subprocess.run([exe, "-Tsvg"], input=dot_text.encode(), capture_output=True)
    if p.returncode != 0:
        raise ObjllvmError(f"dot -Tsvg failed (status {p.returncode}): "
                           f"{p.stderr.decode(errors='replace').strip()[:200]}")
    return p.stdout


def write_cfg(path: str, fn, profile=None, *, force: bool = True, demangle: bool = False) -> str:
    """Write ``fn``'s graph to ``path`` (.svg through dot, anything else as DOT text); return the format."""
    from ..atomicio import atomic_write
    text = cfg_dot(fn, profile, demangle=demangle)
    if str(path).lower().endswith(".svg"):
        atomic_write(path, dot_to_svg(text), force=force)
        return "svg"
    atomic_write(path, text.encode(), force=force)
    return "dot"
