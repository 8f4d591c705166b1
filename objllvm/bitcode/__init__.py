"""LLVM bitcode, the job behind ``objllvm extract``: find and write out embedded bitcode, offloading images and
command lines (:mod:`.payloads`), and summarize bitcode modules.

    >>> from objllvm import bitcode
    >>> s = bitcode.summarize(open("testdata/bitcode/embed.bc", "rb").read())
    >>> m = s.modules[0]
    >>> m.triple, m.source_filename, m.producer, [g.name for g in m.defined_functions]

The summary reader lives with the codecs that use it (:mod:`objllvm.sections.support.bitcode_summary`) and the
wrapper header with the bitcode container (:mod:`objllvm.formats.bitcode`); both are re-exported here.
"""
from ..formats.bitcode import (BITCODE_MAGIC, WRAPPER_MAGIC, WRAPPER_MAGIC_BYTES, WRAPPER_SIZE,  # noqa: F401
                               Wrapper, bitstream_range, is_bitcode, read_wrapper)
from .payloads import (BITCODE_SECTION_NAMES, CMDLINE_SECTION_NAMES, MANIFEST, Payload,  # noqa: F401
                      collect_payloads, extract, manifest, payload_kind, payloads_of_object)

# The summary reader's names, imported when first asked for: `objllvm extract` never summarizes, and need not
# import the reader (with the bitstream reader it needs).
_SUMMARY_NAMES = ("BitcodeSummary", "GlobalSymbol", "ModuleSummary", "identify", "module_to_dict", "summarize",
                  "summary_to_dict", "symbol_to_dict")
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..sections.support.bitcode_summary import (BitcodeSummary, GlobalSymbol, ModuleSummary,  # noqa: F401
                                                    identify, module_to_dict, summarize, summary_to_dict,
                                                    symbol_to_dict)


def __getattr__(name: str) -> object:
    # (what objllvm._modules.lazy_attributes makes, written out: that module is not imported by `extract`)
    if name not in _SUMMARY_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ..sections.support import bitcode_summary
    value = globals()[name] = getattr(bitcode_summary, name)
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_SUMMARY_NAMES))
