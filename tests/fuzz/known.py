"""Violations already found and routed to the owner of the module (see testdata/malformed/manifest.json, whose
``xfail`` entries reproduce each one with a strict xfail test that flips when the bug is fixed).

The CI fuzz tests and ``scripts/fuzz`` set these aside (counted, not failed) so that a known bug in another
area does not hide a new one.  Remove an entry when its module is fixed (its strict xfail test then fails, which
is the reminder).
"""
from __future__ import annotations

# (target prefix, text in the violation, module to fix, what is wrong)
KNOWN = [
    ("rewrite", "MemoryError", "objllvm/elfwriter.py",
     "_layout allocates bytearray(total) where total follows an untrusted p_offset / sh_addralign "
     "(testdata/malformed/crash-rewrite-*.bin)"),
    ("rewrite", "peak ", "objllvm/elfwriter.py", "the same, when the allocation succeeds (GBs)"),
    ("rewrite", "Hang: ", "objllvm/elfwriter.py", "the same, when filling GBs takes longer than the watchdog"),
    ("rewrite", "OverflowError: cannot fit 'int' into an index-sized integer", "objllvm/elfwriter.py",
     "the same, when the size passes sys.maxsize"),
    ("rewrite", "KeyError", "objllvm/rewrite.py", "Session.verify: newidx[idx] of a dropped section "
     "(testdata/malformed/crash-rewrite-escape-228fe4441b.bin)"),
    ("rewrite", " s for ", "objllvm/elfwriter.py", "slow (> 2 s): the same, building outputs of hundreds of MB"),
]



def known(v) -> str | None:
    """The module a known violation is routed to, else None."""
    for prefix, text, module, _why in KNOWN:
        if v.target.startswith(prefix) and text in v.detail:
            return module
    return None
