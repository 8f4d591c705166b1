"""``objllvm`` command line: a thin layer over the Python API.

Each command is a module in ``objllvm/commands/`` with ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int`` (exit status).  Command
modules import their heavy parts inside ``run``.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from . import __version__
from .errors import ObjllvmError, UsageError
from .render import report_error


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # exit status 2, one line
        report_error(f"{self.prog}: {message}")
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    from . import commands
    p = _Parser(prog="objllvm", description="Inspect and rewrite the LLVM-specific sections of object files.")
    p.add_argument("--version", action="version", version=f"objllvm {__version__}")
    p.add_argument("--debug", action="store_true", help="show a traceback for internal errors")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    mods = sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name)
    for m in mods:
        if m.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{commands.__name__}.{m.name}")
        sp = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(sp)
        sp.set_defaults(_run=mod.run)
    return p


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
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
    except Exception as exc:  # an internal bug: short report, traceback with --debug
        if args.debug:
            raise
        report_error(f"internal error ({type(exc).__name__}: {exc}). This is a bug in objllvm: please report it "
                     f"with the input file and the command line; run again with --debug for the traceback.")
        return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
