"""``objllvm`` command line: a thin layer over the Python API.

Each command is a module in ``objllvm/commands/`` with ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int`` (exit status).  Command
modules import their heavy parts inside ``run``.  ``objllvm --version`` needs no parser (argparse is
imported by build_parser).
"""
from __future__ import annotations

import os
import sys

from ._version import __version__
from ._modules import module_names
from .errors import ObjllvmError, UsageError, report_error

_PARSER_CLASS = None


def _parser_class():
    """The ArgumentParser of objllvm (parse errors: one line, exit status 2), made when first needed."""
    global _PARSER_CLASS
    if _PARSER_CLASS is None:
        import argparse

        class _Formatter(argparse.HelpFormatter):
            """argparse's formatter, the width found as shutil.get_terminal_size finds it but without
            importing shutil (and bz2, lzma...: about 2 ms; argparse makes a formatter for every argument)."""
            def __init__(self, prog, indent_increment=2, max_help_position=24, width=None, **kwargs):
                if width is None:
                    width = _terminal_columns() - 2
                super().__init__(prog, indent_increment, max_help_position, width, **kwargs)

        class _Parser(argparse.ArgumentParser):
            def __init__(self, *args, **kwargs):
                kwargs.setdefault("formatter_class", _Formatter)
                super().__init__(*args, **kwargs)

            def error(self, message):  # exit status 2, one line
                report_error(f"{self.prog}: {message}")
                sys.exit(2)
        _PARSER_CLASS = _Parser
    return _PARSER_CLASS


def _command_modules(only=None) -> list:
    """The command modules (all, in name order; or only the one whose NAME is ``only``: [] when none is)."""
    from . import commands
    if only is not None:
        modname = only.replace("-", "_")
        if not modname.isidentifier() or modname.startswith("_"):
            return []
        try:
            mod = _import(f"{commands.__name__}.{modname}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{commands.__name__}.{modname}":
                raise
            return []
        return [mod] if getattr(mod, "NAME", None) == only else []
    return [_import(f"{commands.__name__}.{name}") for name in module_names(commands)]


def _import(name: str):
    """``importlib.import_module(name)`` for an absolute name, without importing importlib."""
    __import__(name)
    return sys.modules[name]


def _chosen_command(argv):
    """The command word of ``argv`` when the parser would see it as one (the first argument not
    starting with '-'), and no top-level help is asked for before it; else None."""
    for a in argv:
        if a == "--" or (a.startswith("-") and a != "-"):
            if (a.startswith("-h") or a.startswith("--h") and "--help".startswith(a)
                    or not a.startswith("--") and "h" in a):    # -h, --help, --he, -xh (clustered)
                return None
            continue
        return a
    return None


def build_parser(argv=None) -> "argparse.ArgumentParser":
    """The parser.  With ``argv``, only the command named there (when it names one) is set up: the other
    command modules are not imported (start-up time); the result for that command line is the same."""
    _Parser = _parser_class()
    p = _Parser(prog="objllvm", description="Inspect and rewrite the LLVM-specific sections of object files.")
    p.add_argument("--version", action="version", version=f"objllvm {__version__}")
    p.add_argument("--debug", action="store_true", help="show a traceback for internal errors")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    name = _chosen_command(argv) if argv is not None else None
    mods = (_command_modules(name) if name is not None else []) or _command_modules()
    for mod in mods:
        sp = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(sp)
        sp.set_defaults(_run=mod.run)
    return p


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns`` (what argparse formats its messages to), without shutil."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
        except (AttributeError, ValueError, OSError):
            columns = 80
    return columns


def _version_only(argv) -> bool:
    """``objllvm --version`` alone: print what argparse's version action prints, as it does (an error writing
    it is ignored), and say so; False (nothing done) when argparse would wrap the line (a terminal narrower
    than the line + 2 columns) or the command line is anything else."""
    line = f"objllvm {__version__}"
    if argv != ["--version"] or max(_terminal_columns() - 2, 11) < len(line):
        return False
    try:
        sys.stdout.write(line + "\n")
    except (AttributeError, OSError):
        pass
    return True


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if _version_only(argv):
        sys.exit(0)          # as argparse's version action exits (no parser, no command module imported)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return args._run(args)
    except UsageError as exc:
        report_error(str(exc))
        return 2
    except ObjllvmError as exc:
        report_error(str(exc))
        return 1
    except KeyboardInterrupt:
        report_error("interrupted")
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:    # the system refused something (readers turn bad input into ObjllvmError):
        if args.debug:        # most often the output cannot be written (a full disk, a closed terminal)
            raise
        report_error((f"{exc.filename}: " if exc.filename else "") + (exc.strerror or str(exc)))
        return 1
    except Exception as exc:  # an internal bug: short report, traceback with --debug
        if args.debug:
            raise
        report_error(f"internal error ({type(exc).__name__}: {exc}). This is a bug in objllvm: please report it "
                     f"with the input file and the command line; run again with --debug for the traceback.")
        return 3


def run() -> None:
    """The ``objllvm`` command (console script and ``python -m objllvm``): :func:`main`, its output flushed,
    then the process ends without the interpreter freeing its objects one by one; the operating system
    takes the memory back at once (clang's ``-disable-free`` does the same).  A rewrite of an object with
    60,000 sections leaves about a million objects, which take ~20 ms to free.  Nothing of objllvm's is
    left to do at exit: files are written and closed by then.  A failing flush is reported (exit status 1),
    a closed pipe is not.  (``main`` itself returns, for callers in Python.)"""
    status = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            pass
        except (OSError, ValueError) as exc:
            if stream is sys.stdout:
                report_error(getattr(exc, "strerror", None) or str(exc))
                status = status or 1
    os._exit(status if isinstance(status, int) else 1)


if __name__ == "__main__":  # pragma: no cover
    run()
