"""``perf-map --html``: one self-contained HTML page of where the time goes (no network, no external file).

For each binary mapped: the functions by share; a heat map of its text by address (each cell a run of bytes,
shaded by the samples that fell there on a log scale, as perf2bolt's heat map shades them); and per hot function
its control-flow graph with block heat (the SVG ``objllvm cfg`` draws, through Graphviz ``dot`` when installed)
and its hot blocks with their addresses and, where the binary has DWARF line tables, the source lines of the block's
first address and of the addresses sampled in it (LLVM's ``llvm-symbolizer`` reads them).  A small script makes the function rows jump to their section and marks the page as
rendered (``data-rendered`` on ``<body>``); ``window.onerror`` writes any script error into the page.
"""
from __future__ import annotations

import html
import math
import os
from bisect import bisect_right

HEAT_COLUMNS = 64            # cells per row of the heat map
HEAT_MAX_ROWS = 256
CELL = 10                    # px


def _esc(s) -> str:
    return html.escape(str(s), quote=True)


def _color(frac: float) -> str:
    """White (no sample) through yellow to red (the most)."""
    if frac <= 0:
        return "#f4f4f4"
    r, g, b = 255, int(235 * (1 - frac) + 20), int(120 * (1 - frac))
    return f"#{r:02x}{g:02x}{b:02x}"


# -- source lines --------------------------------------------------------------------------------------------
class SourceLines:
    """``file:line`` of addresses of a binary, from its DWARF line tables through LLVM's symbolizer (the newest
    ``llvm-symbolizer`` installed: one process for every address asked); ``note`` says why there are none."""

    def __init__(self, path: str, addresses):
        from ..demangle import newest_llvm_tool
        self.where = {}
        self.note = None
        addresses = sorted(set(addresses))
        exe = newest_llvm_tool("llvm-symbolizer")
        if exe is None:
            self.note = "source lines need llvm-symbolizer (LLVM's tools) on PATH"
            return
        if not addresses:
            return
        import subprocess
        try:
            p = subprocess.run([exe, "--obj", path, "--functions=none", "--no-inlines", "--basenames",
                                "--output-style=GNU"], input="".join(f"{a:#x}\n" for a in addresses),
                               capture_output=True, text=True, errors="replace", timeout=120)
        except (OSError, subprocess.SubprocessError) as exc:
            self.note = f"llvm-symbolizer failed: {exc}"
            return
        lines = p.stdout.splitlines()
        if p.returncode != 0 or len(lines) < len(addresses):
            self.note = f"llvm-symbolizer failed (status {p.returncode})"
            return
        for a, ln in zip(addresses, lines):
            if not ln.startswith("??") and not ln.endswith(":0"):
                self.where[a] = ln.split(" ")[0]
        if not self.where:
            self.note = "no DWARF line table in the binary (build with -g or -gline-tables-only)"

    def lines_of(self, addresses) -> list:
        """The distinct ``file:line`` of ``addresses``, in address order."""
        out = []
        for a in sorted(addresses):
            w = self.where.get(a)
            if w and w not in out:
                out.append(w)
        return out


def _block_addresses(b, prof) -> list:
    """The block's first address and every sampled address in it (instruction starts)."""
    return [b.address] + [a for a in prof.address_samples if b.address <= a < b.address + b.size]


# -- the page --------------------------------------------------------------------------------------------------
def _text_range(obj, prof):
    """(start, end) of the executable sections holding the sampled functions (else of every mapped function)."""
    spans = [(s.addr, s.addr + s.size) for s in obj.sections
             if getattr(s, "flags", 0) & 0x4 and getattr(s, "addr", 0) and s.size]
    if not spans:
        fns = [f.function for f in prof.functions]
        return (min(f.address for f in fns), max(b.address + b.size for f in fns for b in f.blocks)) if fns else (0, 0)
    return min(a for a, _ in spans), max(b for _, b in spans)


def heat_map_svg(prof, obj) -> tuple:
    """``(svg, bucket bytes, (start, end))``: the text of the binary as rows of HEAT_COLUMNS cells."""
    start, end = _text_range(obj, prof)
    span = max(end - start, 1)
    bucket = 64
    while math.ceil(span / bucket / HEAT_COLUMNS) > HEAT_MAX_ROWS:
        bucket *= 2
    start -= start % bucket
    cells = {}
    for va, c in prof.address_samples.items():
        if start <= va < end:
            k = (va - start) // bucket
            cells[k] = cells.get(k, 0) + c
    top = max(cells.values(), default=0)
    rows = max(math.ceil((end - start) / bucket / HEAT_COLUMNS), 1)
    owners = []
    for fp in prof.functions:
        owners.append((fp.function.address, fp.name or hex(fp.function.address)))
    owners.sort()
    fstarts = [a for a, _ in owners]
    w, h = HEAT_COLUMNS * CELL + 90, rows * CELL + 4
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="heat" width="{w}" height="{h}" '
             f'viewBox="0 0 {w} {h}" role="img" aria-label="heat map of the text by address">',
             f'<rect x="90" y="0" width="{HEAT_COLUMNS * CELL}" height="{rows * CELL}" fill="#f4f4f4"/>']
    for r in range(0, rows, max(rows // 16, 1)):
        parts.append(f'<text x="86" y="{r * CELL + 9}" text-anchor="end" class="addr">'
                     f'{start + r * HEAT_COLUMNS * bucket:#x}</text>')
    for k, c in sorted(cells.items()):
        r, col = divmod(k, HEAT_COLUMNS)
        frac = math.log1p(c) / math.log1p(top) if top else 0
        a = start + k * bucket
        i = bisect_right(fstarts, a + bucket - 1) - 1
        owner = owners[i][1] if i >= 0 else "?"
        parts.append(f'<rect x="{90 + col * CELL}" y="{r * CELL}" width="{CELL - 1}" height="{CELL - 1}" '
                     f'fill="{_color(frac)}"><title>{a:#x}-{a + bucket:#x}: {c} samples ({_esc(owner)})'
                     f'</title></rect>')
    parts.append("</svg>")
    return "".join(parts), bucket, (start, end)


def _cfg_svg(fn, prof, demangle: bool) -> str | None:
    from .cfg import cfg_dot, dot_to_svg, have_dot
    if not have_dot():
        return None
    svg = dot_to_svg(cfg_dot(fn, prof, demangle=demangle)).decode("utf-8", "replace")
    i = svg.find("<svg")
    return svg[i:] if i >= 0 else None


CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}td,th{padding:3px 8px;border-bottom:1px solid #eee;
text-align:left;vertical-align:top}td.n{text-align:right;font-variant-numeric:tabular-nums}
code,.mono{font-family:ui-monospace,'SFMono-Regular',Menlo,monospace;font-size:12px}
.bar{display:inline-block;height:10px;background:#e4572e;vertical-align:middle}
tr.fn{cursor:pointer}tr.fn:hover{background:#fff3e0}.note{color:#666;font-size:13px}
.addr{font:9px ui-monospace,monospace;fill:#666}.cfg svg{max-width:100%;height:auto}
#errors{color:#b00;white-space:pre-wrap}
"""

SCRIPT = """
window.onerror=function(m,s,l,c,e){var d=document.getElementById('errors');
 d.textContent+='script error: '+m+' ('+l+':'+c+')\\n';document.body.dataset.errors='1';};
document.querySelectorAll('tr.fn').forEach(function(tr){tr.addEventListener('click',function(){
 var t=document.getElementById(tr.dataset.target);if(t){t.scrollIntoView();}});});
document.body.dataset.rendered=String(document.querySelectorAll('tr.fn').length);
"""


def report_html(profiles, objects, *, top: int = 20, hot_functions: int = 8, demangle: bool = False,
                title: str | None = None) -> str:
    """The page for ``profiles`` (mapping.Profile each) of the binaries ``objects`` (their ObjectFiles)."""
    names = {}
    if demangle:
        from ..demangle import demangle_all
        names = demangle_all([f.name for p in profiles for f in p.functions if f.name])

    def nm(n):
        return names.get(n, n) if n else "?"

    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{_esc(title or 'objllvm perf-map report')}</title><style>{CSS}</style></head><body>",
           f"<h1>{_esc(title or 'objllvm perf-map report')}</h1>", '<div id="errors"></div>']
    for pi, (prof, obj) in enumerate(zip(profiles, objects)):
        share = prof.share
        out.append(f"<h2>{_esc(prof.binary)}</h2>")
        out.append(f'<p class="note">{prof.binary_samples} of {prof.total_samples} samples in the binary, '
                   f"{prof.mapped_samples} mapped to blocks; recording: {_esc(prof.source)}"
                   + (f"; event {_esc(prof.event)}" if prof.event else "")
                   + (f"; build-id <code>{_esc(prof.build_id)}</code>" if prof.build_id else "") + "</p>")
        out.append("<h3>Functions by share</h3><table><tr><th>function</th><th>address</th><th>samples</th>"
                   "<th>share</th><th></th><th>blocks hit</th></tr>")
        for fi, fp in enumerate(prof.functions[:top]):
            s = share(fp.samples)
            target = f"f{pi}-{fi}" if fi < hot_functions else ""
            out.append(f'<tr class="fn" data-target="{target}"><td class="mono">{_esc(nm(fp.name))}</td>'
                       f'<td class="mono">{fp.function.address:#x}</td><td class="n">{fp.samples}</td>'
                       f'<td class="n">{100 * s:.2f}%</td><td><span class="bar" style="width:{int(300 * s)}px">'
                       f'</span></td><td class="n">{len(fp.blocks)}/{len(fp.function.blocks)}</td></tr>')
        out.append("</table>")
        svg, bucket, (lo, hi) = heat_map_svg(prof, obj)
        out.append(f"<h3>Heat map of the text</h3><p class=\"note\">{lo:#x}-{hi:#x}; each cell {bucket} bytes, "
                   f"{HEAT_COLUMNS} cells a row; shade: samples on a log scale (hover a cell for its count)</p>")
        out.append(svg)
        hot_blocks = {}
        for fp in prof.functions[:hot_functions]:
            by_id = {b.id: b for b in fp.function.blocks}
            hot_blocks[fp.function.address] = sorted(((by_id[i], c) for i, c in fp.blocks.items() if i in by_id),
                                                     key=lambda t: (-t[1], t[0].address))[:top]
        lines = SourceLines(prof.binary, [a for hb in hot_blocks.values() for b, _ in hb
                                          for a in _block_addresses(b, prof)])
        if lines.note:
            out.append(f'<p class="note">{_esc(lines.note)}</p>')
        for fi, fp in enumerate(prof.functions[:hot_functions]):
            fn = fp.function
            out.append(f'<h3 id="f{pi}-{fi}">{_esc(nm(fp.name))} <span class="note">{fn.address:#x}, '
                       f"{fp.samples} samples ({100 * share(fp.samples):.2f}%)</span></h3>")
            cfg = _cfg_svg(fn, prof, demangle)
            out.append(f'<div class="cfg">{cfg}</div>' if cfg else
                       '<p class="note">control-flow graph: Graphviz dot is not installed</p>')
            out.append("<table><tr><th>block</th><th>address</th><th>size</th><th>samples</th><th>share</th>"
                       "<th>source lines</th></tr>")
            for b, c in hot_blocks[fn.address]:
                src = ", ".join(lines.lines_of(_block_addresses(b, prof)))
                out.append(f'<tr><td class="n">{b.id}</td><td class="mono">{b.address:#x}-'
                           f'{b.address + b.size:#x}</td><td class="n">{b.size}</td><td class="n">{c}</td>'
                           f'<td class="n">{100 * share(c):.2f}%</td><td class="mono">{_esc(src) or "-"}</td></tr>')
            out.append("</table>")
    out.append(f"<script>{SCRIPT}</script></body></html>")
    return "\n".join(out) + "\n"


def write_report(path: str, profiles, objects, **kw) -> None:
    from ..atomicio import atomic_write
    atomic_write(path, report_html(profiles, objects, **kw).encode("utf-8"))
