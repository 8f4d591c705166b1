"""The ELF writer, under the name callers import it by: see :mod:`objllvm.formats.elfwrite`."""
from .elfwrite import (MIN_ALIGN_CAP, SHF_EXCLUDE, SHF_INFO_LINK, SHF_LINK_ORDER, STT_SECTION,
                       ElfWriter, WSection)

__all__ = ["ElfWriter", "WSection", "SHF_EXCLUDE", "SHF_INFO_LINK", "SHF_LINK_ORDER", "STT_SECTION",
           "MIN_ALIGN_CAP"]
