"""Violations already found and routed to the owner of the module (see testdata/malformed/crashers.json, whose
``xfail`` entries reproduce each one with a strict xfail test that flips when the bug is fixed).

The CI fuzz tests and ``scripts/fuzz`` set these aside (counted, not failed) so that a known bug in another
area does not hide a new one.  Remove an entry when its module is fixed (its strict xfail test then fails, which
is the reminder).
"""
from __future__ import annotations

# (target prefix, text in the violation, module to fix, what is wrong)
KNOWN = [
    # None at present.  The rewrite-path crashers (objllvm/formats/elfwrite/: allocations by untrusted sizes;
    # objllvm/rewrite/: KeyError in Session.verify) are fixed and are now ordinary malformed cases
    # (testdata/malformed/rewrite-*, scripts/make-malformed).
]


def known(v) -> str | None:
    """The module a known violation is routed to, else None."""
    for prefix, text, module, _why in KNOWN:
        if v.target.startswith(prefix) and text in v.detail:
            return module
    return None
