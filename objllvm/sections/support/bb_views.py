"""The views of a basic-block address map (``objllvm/sections/bb_addr_map.py``): the JSON content (``to_dict``),
the same content as JSON text, and the text tables.

The JSON text and the tables are written from the columns the decoder leaves in the model (no object per block):
a function's blocks are one bytes %-template repeated, formatted once with the columns interleaved; the parts
of a block that hold a variable number of values (call-site ends, successors) are formatted for the whole
function at once, with a template per count, and cut apart.  Functions of a shape this does not cover (the
relative figures of ``--pretty-pgo``, several ranges or omitted blocks in the text view) go through
``function_to_dict`` and ``function_table``, the plain views.
"""
from itertools import chain, repeat
from operator import add

from ... import render
from ...render import ColumnTable, JSONStream, Table, json_text
from .bb_model import (BB_FREQ, BB_HASH, BR_PROB, CALLSITE_END_OFFSETS, FLAG_LISTS, FLAG_SHORT, FUNC_ENTRY_COUNT,
                       KNOWN_METADATA, OMIT_BB_ENTRIES, POST_LINK_CFG, TYPE_NAMES, feature_names, range_cols)

_flat = chain.from_iterable


# -- to_dict ------------------------------------------------------------------------------------
def _relative_frequencies(fn):
    """Block frequencies relative to the entry block (llvm-readobj --pretty-pgo-analysis-map)."""
    pgo = fn.pgo_blocks
    if not pgo or pgo[0].frequency in (None, 0):
        return None
    entry = pgo[0].frequency
    return [None if p.frequency is None else p.frequency / entry for p in pgo]


def _blocks_to_dicts(r, feature):
    ids, offs, sizes, mds, cs, hs = range_cols(r)
    base = r.base_address
    blocks = [{"id": i, "address": base + o, "offset": o, "size": s, "metadata": m,
               "flags": FLAG_LISTS[m & KNOWN_METADATA]} for i, o, s, m in zip(ids, offs, sizes, mds)]
    if feature & CALLSITE_END_OFFSETS:
        for d, e in zip(blocks, cs if cs is not None else repeat([])):
            d["callsite_end_offsets"] = list(e)
    if feature & BB_HASH:
        for d, h in zip(blocks, hs if hs is not None else repeat(0)):
            d["hash"] = f"{h or 0:#018x}"
    return blocks


def _pgo_to_dicts(fn, pretty):
    feature = fn.feature
    rel = _relative_frequencies(fn) if pretty else None
    out = []
    for i, p in enumerate(fn.pgo_blocks or ()):
        e = {}
        if feature & BB_FREQ:
            e["frequency"] = p.frequency
            if rel is not None:
                e["relative_frequency"] = rel[i]
        if feature & POST_LINK_CFG:
            e["post_link_frequency"] = p.post_link_frequency
        if feature & BR_PROB:
            ss = []
            for s in p.successors:
                sd = {"id": s.id, "probability": s.probability}
                if pretty:
                    sd["probability_percent"] = s.percent
                if feature & POST_LINK_CFG:
                    sd["post_link_frequency"] = s.post_link_frequency
                ss.append(sd)
            e["successors"] = ss
        out.append(e)
    return out


def function_to_dict(fn, pretty=False) -> dict:
    """One function's JSON content as plain values (the reference of the JSON text written below)."""
    feature = fn.feature
    ranges = []
    for r in fn.ranges:
        rd = {"base_address": r.base_address}
        if r.stored_address is not None:
            rd["stored_address"] = r.stored_address
        if feature & OMIT_BB_ENTRIES:
            rd["num_blocks"] = r.num_blocks
            rd["blocks"] = []
        else:
            rd["blocks"] = _blocks_to_dicts(r, feature)
        ranges.append(rd)
    d = {"name": fn.name, "address": fn.address, "version": fn.version, "feature": feature,
         "features": feature_names(feature), "ranges": ranges}
    if feature & FUNC_ENTRY_COUNT:
        d["entry_count"] = fn.entry_count
    if feature & (BB_FREQ | BR_PROB):
        d["pgo_blocks"] = _pgo_to_dicts(fn, pretty)
    return d


def map_to_dict(model) -> dict:
    return {"section_type": TYPE_NAMES.get(model.section_type, hex(model.section_type)),
            "functions": [function_to_dict(f, model.pretty) for f in model.functions]}


# -- JSON text ----------------------------------------------------------------------------------
class _Counted(dict):
    """count -> the template of that many items between ``before`` and ``after``, made when first asked for."""

    def __init__(self, item, sep, before=b"", after=b""):
        super().__init__()
        self.item, self.sep, self.before, self.after = item, sep, before, after

    def __missing__(self, c):
        v = self[c] = self.before + self.sep.join([self.item] * c) + self.after
        return v


def _grouped(templates, counts, values) -> list:
    """The text of each group (``templates[count]`` formatted with its values, taken in order from the flat
    ``values``), for every group at once: one %-operation, cut at NULs (no template holds one)."""
    return (b"\0".join(map(templates.__getitem__, counts)) % tuple(values)).split(b"\0")


_MD_JSON = tuple(b'%d,"flags":[%s]' % (v, b",".join(b'"%s"' % n.encode("ascii") for n in FLAG_LISTS[v]))
                 for v in range(32))
_BLOCK_JSON = b'{"id":%d,"address":%d,"offset":%d,"size":%d,"metadata":%s'
_CALLSITES_JSON = _Counted(b"%d", b",", b"[", b"]")
_SUCCESSORS_JSON = (_Counted(b'{"id":%d,"probability":%d}', b",", b"[", b"]"),
                    _Counted(b'{"id":%d,"probability":%d,"post_link_frequency":%d}', b",", b"[", b"]"))


class _BlockTemplates(dict):
    """feature -> the %-template of one block's JSON object (and its comma) in a function of that feature, made
    when first asked for: one per shape, shared by the functions of that shape."""

    def __missing__(self, feature):
        t = _BLOCK_JSON
        if feature & CALLSITE_END_OFFSETS:
            t += b',"callsite_end_offsets":%s'
        if feature & BB_HASH:
            t += b',"hash":"%#018x"'
        v = self[feature] = t + b"},"
        return v


_BLOCK_TEMPLATES = _BlockTemplates()


def _range_json(r, feature) -> bytes:
    head = b'{"base_address":%d,' % r.base_address
    if r.stored_address is not None:
        head += b'"stored_address":%d,' % r.stored_address
    if feature & OMIT_BB_ENTRIES:
        return head + b'"num_blocks":%d,"blocks":[]}' % r.num_blocks
    ids, offs, sizes, mds, cs, hs = range_cols(r)
    n = len(sizes)
    if not n:
        return head + b'"blocks":[]}'
    cols = [ids, map(add, offs, repeat(r.base_address)), offs, sizes, map(_MD_JSON.__getitem__, mds)]
    if feature & CALLSITE_END_OFFSETS:
        cols.append(_grouped(_CALLSITES_JSON, map(len, cs), _flat(cs)) if cs is not None else repeat(b"[]"))
    if feature & BB_HASH:
        cols.append([h or 0 for h in hs] if hs is not None else repeat(0))
    return head + b'"blocks":[' + ((_BLOCK_TEMPLATES[feature] * n) % tuple(_flat(zip(*cols))))[:-1] + b"]}"


def _pgo_columns(fn):
    """The PGO analysis of ``fn`` as the columns of ``FunctionMap._pgo_cols``."""
    c = fn.pgo_columns()
    if c is not None:
        return c
    pgo = fn.pgo_blocks or []
    succs = [s for p in pgo for s in p.successors]
    return ([p.frequency for p in pgo], [p.post_link_frequency for p in pgo], [len(p.successors) for p in pgo],
            [s.id for s in succs], [s.probability for s in succs], [s.post_link_frequency for s in succs])


def _pgo_json(fn) -> bytes:
    feature = fn.feature
    freqs, pls, counts, sids, probs, spls = _pgo_columns(fn)
    keys, cols = [], []
    if feature & BB_FREQ:
        keys.append(b'"frequency":%d')
        cols.append(freqs)
    if feature & POST_LINK_CFG:
        keys.append(b'"post_link_frequency":%d')
        cols.append(pls)
    if feature & BR_PROB:
        keys.append(b'"successors":%s')
        if feature & POST_LINK_CFG:
            cols.append(_grouped(_SUCCESSORS_JSON[1], counts, _flat(zip(sids, probs, spls))) if counts else [])
        else:
            cols.append(_grouped(_SUCCESSORS_JSON[0], counts, _flat(zip(sids, probs))) if counts else [])
    n = len(cols[0])
    t = b"{" + b",".join(keys) + b"},"
    return b',"pgo_blocks":[' + ((t * n) % tuple(_flat(zip(*cols))))[:-1] + b"]"


class _FeaturesJSON(dict):
    """feature -> the JSON text of its names, made when first asked for."""

    def __missing__(self, feature):
        v = self[feature] = b"[" + b",".join(b'"%s"' % n.encode("ascii") for n in feature_names(feature)) + b"]"
        return v


_FEATURES_JSON = _FeaturesJSON()


def function_json(fn) -> bytes:
    """``function_to_dict(fn)`` as compact JSON text (ASCII bytes, as json.dumps with separators (",", ":")
    writes it)."""
    feature = fn.feature
    v = fn.version
    name = b"null" if fn.name is None else json_text(fn.name).encode("ascii")
    out = [b'{"name":%s,"address":%d,"version":%s,"feature":%d,"features":%s,"ranges":[' % (
        name, fn.address, b"null" if v is None else b"%d" % v, feature, _FEATURES_JSON[feature]),
        b",".join([_range_json(r, feature) for r in fn.ranges]), b"]"]
    if feature & FUNC_ENTRY_COUNT:
        out.append(b',"entry_count":%d' % fn.entry_count)
    if feature & (BB_FREQ | BR_PROB):
        out.append(_pgo_json(fn))
    out.append(b"}")
    return b"".join(out)


_JSON_FUNCTIONS = 256      # functions per piece of the stream (a piece's text is written, then dropped)
_BLOCK_JSON_AT_LEAST = len(b'{"id":0,"address":0,"offset":0,"size":0,"metadata":0,"flags":[]}')


def map_json_stream(model):
    """The compact JSON text of ``map_to_dict(model)`` as a :class:`render.JSONStream`, or None when the
    model asks for the relative figures of ``--pretty-pgo`` (floats: to_dict's values are written).  Its
    size: a lower bound when that is over render.BIG_JSON (the text is then streamed), else the text's length
    (the text is then made here, and kept)."""
    if model.pretty:
        return None
    fns = model.functions
    if any(type(f.version) is not int and f.version is not None or type(f.feature) is not int for f in fns):
        return None        # (a bool would be written as a number)
    tname = json_text(TYPE_NAMES.get(model.section_type, hex(model.section_type))).encode("ascii")

    def pieces():
        yield b'{"section_type":%s,"functions":[' % tname
        for i in range(0, len(fns), _JSON_FUNCTIONS):
            yield (b"," if i else b"") + b",".join([function_json(f) for f in fns[i:i + _JSON_FUNCTIONS]])
        yield b"]}"
    size = _BLOCK_JSON_AT_LEAST * sum(r.num_blocks for f in fns for r in f.ranges if not f.feature & OMIT_BB_ENTRIES)
    if size > render.BIG_JSON:
        return JSONStream(size, lambda indent: pieces())
    try:
        text = list(pieces())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None        # a model edited by hand: to_dict says what it holds
    return JSONStream(sum(map(len, text)), lambda indent: iter(text))


# -- text tables --------------------------------------------------------------------------------
_CALLSITES_TEXT = _Counted(b"%#x", b" ")
_SUCCESSORS_TEXT = (_Counted(b"%d:%#x", b", "), _Counted(b"%d:%#x:%d", b", "))


class _Shapes(dict):
    """(version, feature) -> (the title's text after the address, the table's headers, kinds, labels), made when
    first asked for: one per shape, shared by the functions of that shape."""

    def __missing__(self, key):
        version, feature = key
        after = " (" + ("V0 type" if version is None else f"version {version}")
        if feature:
            after += ", " + ", ".join(feature_names(feature))
        after += ")"
        headers = ["id", "address", "offset", "size", "flags"]
        kinds = "dxxdc"
        if feature & CALLSITE_END_OFFSETS:
            headers.append("call-site ends")
            kinds += "b"
        if feature & BB_HASH:
            headers.append("hash")
            kinds += "b"
        if feature & BB_FREQ:
            headers.append("frequency")
            kinds += "d"
        if feature & POST_LINK_CFG and feature & (BB_FREQ | BR_PROB):
            headers.append("post-link freq")
            kinds += "d"
        if feature & BR_PROB:
            headers.append("successors (id:probability" + (":post-link" if feature & POST_LINK_CFG else "") + ")")
            kinds += "b"
        labels = (None, None, None, None, FLAG_SHORT) + (None,) * (len(kinds) - 5)
        v = self[key] = (after, headers, kinds, labels)
        return v


_SHAPES = _Shapes()


def _title(fn) -> str:
    title = f"function {fn.name or '<?>'} at {fn.address:#x}" + _SHAPES[fn.version, fn.feature][0]
    if fn.feature & FUNC_ENTRY_COUNT:
        title += f", entry count {fn.entry_count}"
    return title


def function_table(fn, pretty=False):
    """One function's table: from its columns (a ColumnTable, its cells made when it is written) when it has one
    range of blocks and no relative figures, else cell by cell (``plain_function_table``)."""
    feature = fn.feature
    ranges = fn.ranges
    if len(ranges) != 1 or feature & OMIT_BB_ENTRIES or (pretty and feature & (BB_FREQ | BR_PROB)):
        return plain_function_table(fn, pretty)
    base = ranges[0].base_address
    if feature & (BB_FREQ | BR_PROB):
        freqs, pls, counts, sids, probs, spls = _pgo_columns(fn)
        if len((freqs if feature & BB_FREQ else counts) or ()) != ranges[0].num_blocks:
            return plain_function_table(fn, pretty)
    after, headers, kinds, labels = _SHAPES[fn.version, feature]
    title = f"function {fn.name or '<?>'} at {base:#x}" + after
    if feature & FUNC_ENTRY_COUNT:
        title += f", entry count {fn.entry_count}"
    return ColumnTable(headers, lambda: _table_columns(fn), kinds, title, (0, base) + (0,) * (len(kinds) - 2),
                       labels)


def _table_columns(fn) -> list:
    """The columns of function_table's ColumnTable."""
    feature = fn.feature
    ids, offs, sizes, mds, cs, hs = range_cols(fn.ranges[0])
    n = len(sizes)
    cols = [ids, offs, offs, sizes, [m & KNOWN_METADATA for m in mds] if n and max(mds) > KNOWN_METADATA else mds]
    if feature & CALLSITE_END_OFFSETS:
        cols.append(_grouped(_CALLSITES_TEXT, map(len, cs), _flat(cs)) if cs is not None and n else [b""] * n)
    if feature & BB_HASH:
        cols.append(((b"%016x\0" * n) % tuple(h or 0 for h in (hs or repeat(0, n)))).split(b"\0")[:n])
    if feature & (BB_FREQ | BR_PROB):
        freqs, pls, counts, sids, probs, spls = _pgo_columns(fn)
        if feature & BB_FREQ:
            cols.append(freqs)
        if feature & POST_LINK_CFG:
            cols.append(pls)
        if feature & BR_PROB:
            if feature & POST_LINK_CFG:
                cols.append(_grouped(_SUCCESSORS_TEXT[1], counts, _flat(zip(sids, probs, spls))) if n else [])
            else:
                cols.append(_grouped(_SUCCESSORS_TEXT[0], counts, _flat(zip(sids, probs))) if n else [])
    return cols


def plain_function_table(fn, pretty=False) -> Table:
    """One function's table cell by cell: several ranges, omitted blocks, the relative figures of --pretty-pgo."""
    feature = fn.feature
    multi = len(fn.ranges) > 1
    headers = (["range"] if multi else []) + ["id", "address", "offset", "size", "flags"]
    if feature & CALLSITE_END_OFFSETS:
        headers.append("call-site ends")
    if feature & BB_HASH:
        headers.append("hash")
    pgo = fn.pgo_blocks if feature & (BB_FREQ | BR_PROB) else None
    if pgo is not None:
        if feature & BB_FREQ:
            headers.append("rel. freq" if pretty else "frequency")
        if feature & POST_LINK_CFG:
            headers.append("post-link freq")
        if feature & BR_PROB:
            headers.append("successors (id:probability" + (":post-link" if feature & POST_LINK_CFG else "") + ")")
    rel = _relative_frequencies(fn) if pretty and pgo is not None else None
    rows = []
    k = 0
    for ri, r in enumerate(fn.ranges):
        if feature & OMIT_BB_ENTRIES:
            rows.append(([ri] if multi else []) + ["", f"{r.base_address:#x}", "", "",
                                                   f"({r.num_blocks} blocks omitted)"]
                        + [""] * (len(headers) - (6 if multi else 5)))
            continue
        for b in r.blocks:
            row = ([ri] if multi else []) + [b.id, f"{b.address:#x}", f"{b.offset:#x}", b.size,
                                            FLAG_SHORT[b.metadata & KNOWN_METADATA]]
            if feature & CALLSITE_END_OFFSETS:
                row.append(" ".join(f"{x:#x}" for x in b.callsite_end_offsets))
            if feature & BB_HASH:
                row.append(f"{b.hash or 0:016x}")
            if pgo is not None:
                row.extend(_pgo_cells(pgo[k] if k < len(pgo) else None, feature,
                                      rel[k] if rel is not None and k < len(rel) else None, pretty))
            rows.append(row)
            k += 1
    return Table(headers, rows, title=_title(fn))


def _pgo_cells(p, feature, rel, pretty) -> list:
    cells = []
    if feature & BB_FREQ:
        cells.append("" if p is None else f"{rel:.6g}" if rel is not None else p.frequency)
    if feature & POST_LINK_CFG:
        cells.append("" if p is None else p.post_link_frequency)
    if feature & BR_PROB:
        cells.append("" if p is None else ", ".join(
            (f"{s.id}:{s.percent:.2f}%" if pretty else f"{s.id}:{s.probability:#x}")
            + (f":{s.post_link_frequency}" if feature & POST_LINK_CFG else "") for s in p.successors))
    return cells
