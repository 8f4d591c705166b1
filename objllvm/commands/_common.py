"""Helpers the commands share: iterate the inputs, report errors, pick the renderer."""
from ..errors import ObjllvmError
from ..render import report_error, report_warning


def add_demangle_flag(p):
    p.add_argument("-C", "--demangle", action="store_true",
                   help="show C++ and Rust symbol names readable (LLVM's demangler, llvm-cxxfilt); JSON keeps the "
                        "mangled name beside the readable one")


def demangled(items, args):
    """The render items, demangled when ``-C`` was given (a warning when no demangler is installed)."""
    if not getattr(args, "demangle", False):
        return items
    from ..demangle import demangle_items, demangler_warning
    from ..render import report_warning
    w = demangler_warning()
    if w:
        report_warning(w)
    return demangle_items(items)


def add_json_flag(p):
    name = p.prog.rsplit(" ", 1)[-1]
    p.add_argument("--json", action="store_true",
                   help=f"print JSON instead of tables (its JSON Schema: objllvm schema {name})")


def add_limit_flags(p):
    """The bounds of decompression (objllvm.formats.compression; cli.main applies them)."""
    from ..formats.compression import DEFAULT_CEILING, DEFAULT_RATIO, parse_size
    p.add_argument("--max-decompressed-ratio", type=int, metavar="N",
                   help=f"decompress a section or offload image to at most N times its compressed size "
                        f"(default: {DEFAULT_RATIO})")
    p.add_argument("--max-decompressed", type=parse_size, metavar="SIZE",
                   help=f"and never to more than SIZE bytes (K, M, G suffixes; default: {DEFAULT_CEILING >> 30}G)")


def report_errors(errors) -> int:
    """Print each error as one line; return the exit status (1 if any)."""
    n = 0
    for e in dict.fromkeys(map(str, errors)):     # (a broken section is reported by its object and its decode)
        report_error(e)
        n += 1
    return 1 if n else 0


def split_items(items):
    return [i for i in items if not isinstance(i, ObjllvmError)], [i for i in items if isinstance(i, ObjllvmError)]


def report_problems(errors, dumps) -> int:
    """Unreadable inputs (``errors``), then each dump's section warnings and errors in section order, one
    line each on standard error; the exit status: 1 when there was any (a warning is bad input too: a
    value was lost), else 0."""
    n = report_errors(errors)
    for d in dumps:
        for level, e in d.problems:
            (report_warning if level == "warning" else report_error)(str(e))
            n += 1
    return 1 if n else 0
