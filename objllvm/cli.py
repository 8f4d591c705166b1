"""``objllvm`` command line: a thin layer over the Python API.

Each command is a module in ``objllvm/commands/`` with ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int`` (exit status).  Command
modules import their heavy parts inside ``run``.  ``objllvm --version`` needs no parser (argparse is
imported by build_parser).
"""
import os
import sys

from .errors import ObjllvmError, UsageError, report_error

_PARSER_CLASS = None


def _parser_class():
    """The ArgumentParser of objllvm (parse errors: one line, exit status 2), made when first needed."""
    global _PARSER_CLASS
    if _PARSER_CLASS is None:
        import argparse

        class _Formatter(argparse.HelpFormatter):
            """argparse's formatter, the width found as shutil.get_terminal_size finds it but without
            importing shutil (and bz2, lzma... with it; argparse makes a formatter for every argument)."""
            def __init__(self, prog, indent_increment=2, max_help_position=24, width=None, **kwargs):
                if width is None:
                    width = _terminal_columns() - 2
                super().__init__(prog, indent_increment, max_help_position, width, **kwargs)

        class _Parser(argparse.ArgumentParser):
            def __init__(self, *args, **kwargs):
                kwargs.setdefault("formatter_class", _Formatter)
                super().__init__(*args, **kwargs)

            def error(self, message):  # exit status 2: the usage line, then one error line naming the command
                _write_stderr(f"usage: {_short_usage(self)}\n{self.prog}: error: {message}{_hint(self, message)}\n")
                sys.exit(2)

            def parse_args(self, args=None, namespace=None):
                # unrecognised arguments are the chosen command's: its parser reports them (its usage, its name)
                ns, extras = self.parse_known_args(args, namespace)
                if extras:
                    sub = _subparser(self, getattr(ns, "command", None)) or self
                    sub.error("unrecognized arguments: " + " ".join(extras))
                return ns
        _PARSER_CLASS = _Parser
    return _PARSER_CLASS


def _write_stderr(text: str) -> None:
    try:
        if sys.stderr is not None:
            sys.stderr.write(text)
    except (OSError, ValueError):
        pass


def _subparser(parser, name):
    """The parser of command ``name`` under ``parser`` (None when there is none)."""
    for a in getattr(parser, "_actions", ()):
        choices = getattr(a, "choices", None)
        if isinstance(choices, dict) and name in choices:
            return choices[name]
    return None


def _short_usage(parser) -> str:
    """One usage line: the program, ``[options]`` when it has any, the positional arguments (argparse's own
    usage of ``dump`` runs over a dozen lines: every codec adds options)."""
    words = [parser.prog]
    opts = [a for a in parser._actions if a.option_strings]
    if opts:
        words.append("[options]")
    for a in parser._actions:
        if a.option_strings:
            continue
        if isinstance(getattr(a, "choices", None), dict):
            words.append("COMMAND ...")
            continue
        m = a.metavar or a.dest.upper()
        words.append({"+": f"{m} [{m} ...]", "*": f"[{m} ...]", "?": f"[{m}]"}.get(a.nargs, m))
    return " ".join(words) + f"  ('{parser.prog} -h' for help)"


def _hint(parser, message: str) -> str:
    """A close match for a misspelt option, command or choice (argparse gives none before Python 3.14)."""
    import difflib
    import re
    m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
    if m:
        choices = re.findall(r"'([^']*)'", m.group(2)) or [c.strip() for c in m.group(2).split(",")]
        near = difflib.get_close_matches(m.group(1), choices, n=1)
        return f" (did you mean '{near[0]}'?)" if near else ""
    m = re.match(r"unrecognized arguments: (.*)$", message)
    if m:
        known = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
        hints = []
        for word in m.group(1).split():
            if word.startswith("--"):
                near = difflib.get_close_matches(word.split("=", 1)[0], known, n=1)
                if near:
                    hints.append((near[0], word.split("=", 1)[0]))
        if len(hints) == 1:
            return f" (did you mean {hints[0][0]}?)"
        return f" (did you mean {', '.join(f'{a} for {b}' for a, b in hints)}?)" if hints else ""
    return ""


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
    from ._modules import module_names          # (here: a plain command line names its command)
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
    from ._version import __version__
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
        sp.set_defaults(_run=mod.run, _inputs=getattr(mod, "INPUTS", ()))
    return p


# -- the common command lines without argparse ---------------------------------------------------------------
# argparse (with the `re`, `gettext` and `locale` it imports and the parser it builds) is a large share of the
# start-up of a small command (docs/benchmarks.md, "Start-up").  A command line of the plain forms (exact option names, option
# values that do not start with '-', the positional arguments together) is parsed here from the very same
# add_arguments calls, recorded (one definition of each option); anything else (help, an abbreviation,
# `--opt=value`, an error of any kind, an action argparse has and this does not) goes to argparse, which
# gives its own result or message.  tests/test_cli_fast.py checks that the two agree on every command line
# where this one answers.

class Namespace:
    """The result of parsing: attributes, as argparse.Namespace (``vars(args)`` is the same mapping, in the
    same order)."""

    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    def __eq__(self, other):
        return vars(self) == vars(other) if hasattr(other, "__dict__") else NotImplemented

    def __contains__(self, key):
        return key in self.__dict__

    def __repr__(self):
        return "Namespace(" + ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items()) + ")"


class _Unsupported(Exception):
    """A declaration or a command line the fast path does not take: argparse does it."""


_ACTION_KEYS = frozenset(("action", "nargs", "default", "type", "choices", "required", "help", "metavar", "dest",
                          "const"))


class _Argument:
    __slots__ = ("flags", "dest", "action", "nargs", "default", "type", "choices", "required", "__dict__")

    def __init__(self, flags, dest, action, nargs, default, type, choices, required):
        self.flags, self.dest, self.action, self.nargs = flags, dest, action, nargs
        self.default, self.type, self.choices, self.required = default, type, choices, required


class _Recorder:
    """Takes a command's ``add_arguments`` calls in place of an ArgumentParser (and its argument groups) and
    parses the plain command lines of what they declare as argparse does; raises _Unsupported for a
    declaration it does not know."""

    def __init__(self, prog: str):
        self.prog = prog
        self.arguments: list = []
        self.defaults: dict = {}

    def add_argument(self, *flags, **kw):
        if not flags or set(kw) - _ACTION_KEYS:
            raise _Unsupported
        action = kw.get("action", "store")
        if action not in ("store", "store_true", "store_false", "append", "append_const"):
            raise _Unsupported
        if ("const" in kw) != (action == "append_const"):
            raise _Unsupported
        nargs = kw.get("nargs")
        if not flags[0].startswith("-"):                    # a positional argument
            if len(flags) != 1 or "dest" in kw or action != "store" or nargs not in (None, "?", "*", "+"):
                raise _Unsupported
            if nargs == "*" and kw.get("choices") is not None:
                raise _Unsupported
            dest = flags[0]
            required = nargs in (None, "+")
        else:
            if nargs is not None or not all(f.startswith("-") and len(f) > 1 for f in flags):
                raise _Unsupported
            dest = kw.get("dest")
            if dest is None:
                long = [f for f in flags if f.startswith("--")]
                dest = (long or flags)[0].lstrip("-").replace("-", "_")
            required = bool(kw.get("required", False))
        if action in ("store_true", "store_false", "append_const") and ("type" in kw or "choices" in kw):
            raise _Unsupported
        if "default" in kw:
            default = kw["default"]
        elif dest in self.defaults:
            default = self.defaults[dest]
        else:
            default = {"store_true": False, "store_false": True}.get(action)
        if default == "==SUPPRESS==":                       # argparse.SUPPRESS
            raise _Unsupported
        arg = _Argument(flags, dest, action, nargs, default, kw.get("type"), kw.get("choices"), required)
        arg.const = kw.get("const")
        self.arguments.append(arg)
        return arg

    def add_argument_group(self, *args, **kwargs):
        return self                                         # groups only change the help text

    def set_defaults(self, **kwargs):
        self.defaults.update(kwargs)
        for a in self.arguments:
            if a.dest in kwargs:
                a.default = kwargs[a.dest]

    def __getattr__(self, name):                            # anything else of ArgumentParser's
        raise _Unsupported

    @staticmethod
    def _value(a, text):
        """argparse's _get_value and _check_value: the type applied, the choices checked."""
        if a.type is not None:
            if not callable(a.type):
                raise _Unsupported
            try:
                text = a.type(text)
            except Exception:
                raise _Unsupported from None
        if a.choices is not None and text not in a.choices:
            raise _Unsupported
        return text

    def parse(self, argv) -> dict:
        """The values of a plain command line, in argparse's order (raises _Unsupported for any other)."""
        values: dict = {}
        options = {}
        positionals = []
        for a in self.arguments:
            values.setdefault(a.dest, a.default)
            if a.flags[0].startswith("-"):
                for f in a.flags:
                    options[f] = a
            else:
                positionals.append(a)
        for dest, v in self.defaults.items():
            values.setdefault(dest, v)
        seen = set()
        words: list = []
        after_words = False
        i, n = 0, len(argv)
        while i < n:
            t = argv[i]
            if t[:1] == "-" and t != "-":
                a = options.get(t)
                if a is None:
                    raise _Unsupported
                after_words = bool(words)
                if a.action == "store_true" or a.action == "store_false":
                    values[a.dest] = a.action == "store_true"
                else:
                    if a.action == "append_const":
                        v = a.const
                    else:
                        i += 1
                        if i == n or (argv[i][:1] == "-" and argv[i] != "-"):
                            raise _Unsupported
                        v = self._value(a, argv[i])
                    if a.action == "store":
                        values[a.dest] = v
                    else:                                   # append(_const): a new list, as argparse copies it
                        old = values[a.dest]
                        values[a.dest] = (list(old) if old is not None else []) + [v]
                seen.add(a)
            else:
                if after_words:                             # positional words on both sides of an option
                    raise _Unsupported
                words.append(t)
            i += 1
        counts = _match_counts([a.nargs for a in positionals], len(words))
        if counts is None:
            raise _Unsupported
        k = 0
        for a, c in zip(positionals, counts):
            got = words[k:k + c]
            k += c
            if a.nargs is None:
                values[a.dest] = self._value(a, got[0])
            elif a.nargs == "?":
                if got:
                    values[a.dest] = self._value(a, got[0])
                else:
                    v = a.default
                    values[a.dest] = self._value(a, v) if isinstance(v, str) else v
            elif a.nargs == "*" and not got:
                values[a.dest] = a.default if a.default is not None else []
            else:
                values[a.dest] = [self._value(a, w) for w in got]
            seen.add(a)
        for a in self.arguments:
            if a.required and a not in seen:
                raise _Unsupported
            if (a not in seen and isinstance(a.default, str) and a.type is not None
                    and values.get(a.dest) is a.default):
                values[a.dest] = self._value(a, a.default) if callable(a.type) else a.default
        return values


def _match_counts(nargs: list, n: int):
    """How many of ``n`` words each positional takes, as argparse's greedy patterns give them (None: no fit)."""
    if not nargs:
        return [] if n == 0 else None
    lo, hi = {None: (1, 1), "?": (0, 1), "*": (0, n), "+": (1, n)}[nargs[0]]
    for c in range(min(hi, n), lo - 1, -1):
        rest = _match_counts(nargs[1:], n - c)
        if rest is not None:
            return [c] + rest
    return None


def parse_fast(argv):
    """A Namespace equal to the one argparse gives for ``argv`` (build_parser(argv).parse_args(argv)), or None
    when ``argv`` is not one of the plain forms this takes (then argparse parses it)."""
    i, debug = 0, False
    while i < len(argv) and argv[i] == "--debug":
        debug = True
        i += 1
    if i == len(argv) or argv[i][:1] == "-":
        return None
    mods = _command_modules(argv[i])
    if not mods:
        return None
    mod = mods[0]
    rec = _Recorder(f"objllvm {mod.NAME}")
    try:
        mod.add_arguments(rec)
        rec.set_defaults(_run=mod.run, _inputs=getattr(mod, "INPUTS", ()))
        values = rec.parse(argv[i + 1:])
    except _Unsupported:
        return None
    ns = Namespace(debug=debug, command=mod.NAME)
    ns.__dict__.update(values)
    return ns


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
    if argv != ["--version"]:
        return False
    from ._version import __version__
    line = f"objllvm {__version__}"
    if max(_terminal_columns() - 2, 11) < len(line):
        return False
    try:
        sys.stdout.write(line + "\n")
    except (AttributeError, OSError):
        pass
    return True


def _missing_inputs(args) -> list:
    """The input paths named on the command line (the command's INPUTS) that do not exist."""
    out = []
    for dest in getattr(args, "_inputs", ()):
        v = getattr(args, dest, None)
        for p in (v if isinstance(v, list) else [v]):
            if isinstance(p, str) and p != "-" and not os.path.lexists(p):
                out.append(p)
    return out


def main(argv=None) -> int:
    """Exit statuses (docs/errors.md): 0 done, every input read in full; 1 bad input (an error or warning
    about a file) or findings; 2 usage (bad arguments, an input path that does not exist); 3 internal error;
    130 interrupted."""
    argv = sys.argv[1:] if argv is None else argv
    if _version_only(argv):
        sys.exit(0)          # as argparse's version action exits (no parser, no command module imported)
    args = parse_fast(argv)
    if args is None:
        parser = build_parser(argv)
        args = parser.parse_args(argv)
        if not getattr(args, "_run", None):
            parser.print_help(sys.stderr)
            return 2
    missing = _missing_inputs(args)
    if missing:
        for p in missing:
            report_error(f"{args.command}: {p}: no such file or directory")
        return 2
    ratio, ceiling = getattr(args, "max_decompressed_ratio", None), getattr(args, "max_decompressed", None)
    if ratio is not None or ceiling is not None:
        if ratio is not None and ratio < 1:
            report_error(f"{args.command}: --max-decompressed-ratio must be at least 1")
            return 2
        from .formats.compression import set_limits
        set_limits(ratio, ceiling)
    if sys.stdout is None:               # started with standard output closed (`objllvm dump x >&-`)
        report_error("cannot write the output: standard output is closed")
        return 1
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
        where = f"{exc.filename}: " if exc.filename else "cannot write the output: "
        report_error(where + (exc.strerror or str(exc)))
        return 1
    except Exception as exc:  # an internal bug: short report, traceback with --debug
        if args.debug:
            raise
        report_error(f"internal error ({type(exc).__name__}: {exc}). This is a bug in objllvm: please report it "
                     f"with the input file and the command line; run again with --debug for the traceback.")
        return 3


def run() -> None:
    """The ``objllvm`` command (bin/objllvm, ``python -m objllvm``): :func:`main`, its output flushed,
    then the process ends without the interpreter freeing its objects one by one; the operating system
    takes the memory back at once (clang's ``-disable-free`` does the same): a rewrite of an object of many
    sections leaves millions of objects.  Nothing of objllvm's is left to do at exit: files are written and
    closed by then.  A failing flush is reported (exit status 1),
    a closed pipe is not.  (``main`` itself returns, for callers in Python.)

    The collector's first threshold is raised (to 20,000 new container objects) for the run: the imports and
    the decoders allocate many objects and few cycles, and each young collection is work without garbage to
    find; at most 20,000 unreachable objects wait for one."""
    import gc
    gc.set_threshold(20000, *gc.get_threshold()[1:])
    if sys.stderr is None:               # started with standard error closed: messages go nowhere
        sys.stderr = open(os.devnull, "w")
    status = main()
    for stream in (sys.stdout, sys.stderr):
        if stream is None:
            continue
        try:
            stream.flush()
        except BrokenPipeError:
            pass
        except (OSError, ValueError) as exc:
            if stream is sys.stdout:
                report_error("cannot write the output: " + (getattr(exc, "strerror", None) or str(exc)))
                status = status or 1
    os._exit(status if isinstance(status, int) else 1)


if __name__ == "__main__":  # pragma: no cover
    run()
