"""The bitstream reader on hand-written streams (old VST-named modules, BLOCKINFO abbreviations, char6 arrays,
blobs) that llvm-bcanalyzer-19 confirms are well-formed, and on malformed input: every problem is a DecodeError with
an offset, never another exception."""
from __future__ import annotations

import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TESTDATA, need_tool, run_objllvm
from objllvm import bitcode
from objllvm.formats.bitstream import CHAR6_TABLE
from objllvm.errors import DecodeError

BC = TESTDATA / "bitcode"


class BitWriter:
    """A minimal bitstream writer (seed 003) for building test inputs."""

    def __init__(self):
        self.bits = []
        self.width = 2
        self.stack = []

    def fixed(self, v, w):
        self.bits.extend((v >> i) & 1 for i in range(w))

    def vbr(self, v, w):
        hi = 1 << (w - 1)
        while v >= hi:
            self.fixed((v & (hi - 1)) | hi, w)
            v >>= w - 1
        self.fixed(v, w)

    def align32(self):
        while len(self.bits) % 32:
            self.bits.append(0)

    def enter(self, bid, width=4):
        self.fixed(1, self.width)
        self.vbr(bid, 8)
        self.vbr(width, 4)
        self.align32()
        at = len(self.bits)
        self.fixed(0, 32)             # length, patched at end()
        self.stack.append((self.width, at))
        self.width = width

    def end(self):
        self.fixed(0, self.width)
        self.align32()
        width, at = self.stack.pop()
        nwords = (len(self.bits) - at - 32) // 32
        self.bits[at:at + 32] = [(nwords >> i) & 1 for i in range(32)]
        self.width = width

    def unabbrev(self, code, ops):
        self.fixed(3, self.width)
        self.vbr(code, 6)
        self.vbr(len(ops), 6)
        for o in ops:
            self.vbr(o, 6)

    def define_abbrev(self, ops):
        """ops: ('lit', v) / ('fixed', w) / ('vbr', w) / ('array',) / ('char6',) / ('blob',)"""
        self.fixed(2, self.width)
        self.vbr(len(ops), 5)
        for op in ops:
            if op[0] == "lit":
                self.fixed(1, 1)
                self.vbr(op[1], 8)
            else:
                self.fixed(0, 1)
                enc = {"fixed": 1, "vbr": 2, "array": 3, "char6": 4, "blob": 5}[op[0]]
                self.fixed(enc, 3)
                if enc in (1, 2):
                    self.vbr(op[1], 5)

    def bytes(self):
        bits = self.bits + [0] * (-len(self.bits) % 8)
        return bytes(sum(bits[i + j] << j for j in range(8)) for i in range(0, len(bits), 8))


def char6(s):
    return [CHAR6_TABLE.index(c) for c in s.encode()]


def old_style_module():
    """Version-1 bitcode as LLVM 3.x-4.0 wrote it: names in the module-level VALUE_SYMTAB, which uses
    abbreviations from BLOCKINFO (char6 and 8-bit arrays); a producer string in char6; a STRTAB-free file."""
    w = BitWriter()
    w.enter(13, 5)                                       # IDENTIFICATION
    w.define_abbrev([("lit", 1), ("array",), ("char6",)])
    w.fixed(4, 5); w.vbr(len("LLVM3.9.1"), 6)
    w.bits.extend(b for c in char6("LLVM3.9.1") for b in ((c >> i) & 1 for i in range(6)))
    w.unabbrev(2, [0])                                   # EPOCH
    w.end()
    w.enter(8, 3)                                        # MODULE
    w.enter(0, 2)                                        # BLOCKINFO: abbreviations for VALUE_SYMTAB (14)
    w.unabbrev(1, [14])
    w.define_abbrev([("lit", 1), ("vbr", 8), ("array",), ("char6",)])      # VST_ENTRY, char6 name: id 4
    w.define_abbrev([("lit", 1), ("vbr", 8), ("array",), ("fixed", 8)])    # VST_ENTRY, 8-bit name: id 5
    w.end()
    w.unabbrev(1, [1])                                   # VERSION 1
    w.unabbrev(2, list(b"x86_64-unknown-linux-gnu"))      # TRIPLE
    w.unabbrev(16, list(b"old.c"))                       # SOURCE_FILENAME
    w.unabbrev(7, [1, 0, 5, 0, 3, 0])                    # GLOBALVAR value 0: initid 5 -> defined
    w.unabbrev(8, [2, 0, 0, 0, 0, 0])                    # FUNCTION value 1: isproto 0 -> defined
    w.unabbrev(8, [2, 0, 1, 0, 0, 0])                    # FUNCTION value 2: declaration
    w.unabbrev(7, [1, 0, 0, 7, 0, 0])                    # GLOBALVAR value 3: external declaration
    w.enter(12, 4); w.unabbrev(1, [1]); w.end()          # a FUNCTION_BLOCK to skip
    w.enter(14, 4)                                       # VALUE_SYMTAB
    w.fixed(4, 4); w.vbr(0, 8); w.vbr(len("gvar"), 6)
    w.bits.extend(b for c in char6("gvar") for b in ((c >> i) & 1 for i in range(6)))
    w.unabbrev(3, [1, 42] + list(b"main"))               # VST_FNENTRY [valueid, offset, name]
    w.fixed(5, 4); w.vbr(2, 8); w.vbr(len("ext$fn"), 6)
    for c in b"ext$fn":
        w.fixed(c, 8)
    w.unabbrev(1, [3] + list(b"ext_var"))
    w.end()
    w.end()
    w.enter(23, 3)                                       # a STRTAB with a blob (unused by version 1)
    w.define_abbrev([("lit", 1), ("blob",)])
    w.fixed(4, 3); w.vbr(5, 6); w.align32(); w.bits.extend(b for c in b"abcde" for b in ((c >> i) & 1 for i in range(8)))
    w.align32()
    w.end()
    return b"BC\xc0\xde" + w.bytes()


def test_old_style_names_from_the_value_symbol_table(tmp_path):
    data = old_style_module()
    tool = need_tool("llvm-bcanalyzer-19")
    (tmp_path / "old.bc").write_bytes(data)
    p = subprocess.run([tool, "-dump", str(tmp_path / "old.bc")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr           # LLVM's own reader accepts the stream's structure
    assert "record string = 'LLVM3.9.1'" in p.stdout
    s = bitcode.summarize(data)
    (m,) = s.modules
    assert (m.producer, m.epoch, m.version, m.triple, m.source_filename) == \
        ("LLVM3.9.1", 0, 1, "x86_64-unknown-linux-gnu", "old.c")
    assert m.names_from == "vst"
    assert [(g.name, g.kind, g.defined, g.linkage) for g in m.symbols] == [
        ("gvar", "variable", True, "external"), ("main", "function", True, "external"),
        ("ext$fn", "function", False, "external"), ("ext_var", "variable", False, "extern_weak")]
    assert m.function_bodies == 1
    assert s.strtab_size == 5


def simple_stream(body):
    """magic + MODULE block whose body is written by ``body(w)``, with a correct length."""
    w = BitWriter()
    w.enter(8, 3)
    body(w)
    w.end()
    return b"BC\xc0\xde" + w.bytes()


def test_undefined_abbreviation_id():
    data = simple_stream(lambda w: (w.unabbrev(1, [2]), w.fixed(6, 3)))
    with pytest.raises(DecodeError) as ei:
        bitcode.summarize(data)
    assert "abbreviation ID 6 is not defined" in ei.value.message
    assert ei.value.offset == 4 + 8 + 2        # magic, block header, then the 17th bit of the body


def test_stream_ends_inside_a_block():
    data = (BC / "embed.bc").read_bytes()
    for cut in (40, 300, 1500, len(data) - 8):
        with pytest.raises(DecodeError) as ei:
            bitcode.summarize(data[:cut])
        assert ei.value.offset is not None and ei.value.offset <= cut
        assert "past the end" in ei.value.message or "ends" in ei.value.message


def test_block_without_end_block():
    """The block's declared length ends right after a record: no END_BLOCK inside it."""
    for k in range(1, 65):                       # a record of 3 + k bits that ends on a 32-bit boundary
        w = BitWriter()
        w.enter(8, 3)
        w.unabbrev(1, [2])
        w.define_abbrev([("lit", 5), ("fixed", k)])
        w.fixed(4, 3)
        w.fixed((1 << k) - 1, k)
        if len(w.bits) % 32 == 0:
            break
    assert len(w.bits) % 32 == 0
    nwords = (len(w.bits) - 64) // 32
    w.bits[32:64] = [(nwords >> i) & 1 for i in range(32)]
    w.fixed(0, 32)                               # an END_BLOCK word outside the declared length
    data = b"BC\xc0\xde" + w.bytes()
    with pytest.raises(DecodeError) as ei:
        bitcode.summarize(data)
    assert "MODULE_BLOCK" in ei.value.message
    assert ei.value.offset == 4 + 8 + nwords * 4


def test_deep_nesting_is_bounded():
    from objllvm.formats.bitstream import BLOCK, END, EOF, BitstreamCursor
    w = BitWriter()
    for _ in range(200):
        w.enter(8, 3)
    for _ in range(200):
        w.end()
    data = w.bytes()
    cur = BitstreamCursor(data)
    with pytest.raises(DecodeError) as ei:
        while True:                              # a reader that enters every block
            kind, _ = cur.advance()
            if kind == EOF:
                break
            if kind == BLOCK:
                cur.enter_block()
            elif kind != END:
                cur.read_record(_)
    assert "nest" in ei.value.message and ei.value.offset is not None


def test_counts_are_checked_before_allocating():
    def body(w):
        w.define_abbrev([("lit", 2), ("array",), ("fixed", 8)])
        w.fixed(4, 3)
        w.vbr(1 << 40, 6)                          # an array of 2**40 elements in a tiny block
    with pytest.raises(DecodeError) as ei:
        bitcode.summarize(simple_stream(body))
    assert "array" in ei.value.message
    with pytest.raises(DecodeError):
        bitcode.summarize(simple_stream(lambda w: w.unabbrev(2, [0] * 3) or w.fixed(3, 3) or w.vbr(1, 6)
                                        or w.vbr(1 << 50, 6)))


def test_bad_magic_and_wrapper():
    with pytest.raises(DecodeError) as ei:
        bitcode.summarize(b"BC\xc0\xdf" + bytes(8))
    assert ei.value.offset == 0 and "magic" in ei.value.message
    wrapped = (BC / "wrapper.bc").read_bytes()
    with pytest.raises(DecodeError) as ei:
        bitcode.summarize(wrapped[:12])
    assert "truncated bitcode wrapper" in ei.value.message
    bad = wrapped[:12] + (len(wrapped)).to_bytes(4, "little") + wrapped[16:]
    with pytest.raises(DecodeError) as ei:
        bitcode.summarize(bad)
    assert ei.value.offset == 8


def test_cli_truncated_bitcode_file(tmp_path):
    f = tmp_path / "cut.bc"
    f.write_bytes((BC / "embed.bc").read_bytes()[:700])
    rc, out, err = run_objllvm("dump", f)
    assert rc == 1 and "Traceback" not in err
    assert "cut.bc" in err and "offset 0x" in err
    assert "LLVM19" in out            # what was read before the problem is still shown


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_bitcode_never_crashes(d):
    base = bytearray((BC / "multi.bc").read_bytes())
    for _ in range(d.draw(st.integers(1, 6))):
        i = d.draw(st.integers(0, len(base) - 1))
        base[i] = d.draw(st.integers(0, 255))
    cut = d.draw(st.integers(4, len(base)))
    try:
        bitcode.summarize(bytes(base[:cut]))
    except DecodeError as exc:
        assert exc.offset is not None
