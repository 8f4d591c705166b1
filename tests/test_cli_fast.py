"""The command lines objllvm parses without argparse (cli.parse_fast): wherever it answers, its answer is
argparse's (the same attributes, values and order); the common forms are answered; a command run that way
imports neither argparse nor re."""
import contextlib
import io
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from objllvm import cli

from conftest import ROOT, TESTDATA

COMMANDS = [m.NAME for m in cli._command_modules()]


def _argparse(argv):
    """build_parser(argv).parse_args(argv) as vars items, or the exit status argparse ended with."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            return list(vars(cli.build_parser(argv).parse_args(argv)).items())
        except SystemExit as exc:
            return exc.code


def _check(argv):
    fast = cli.parse_fast(list(argv))
    want = _argparse(list(argv))
    if fast is not None:
        assert not isinstance(want, (int, type(None))), f"{argv}: argparse ends with status {want}, the fast path answers"
        assert list(vars(fast).items()) == want, argv
    return fast


COMMON = [
    ["dump", "a.o"], ["dump", "--json", "a.o"], ["dump", "a.o", "b.o", "--json"], ["dump", "-s", "deplibs", "a.o"],
    ["dump", "--section", "bb-addr-map", "--section", "deplibs", "--pretty-pgo", "a.o"],
    ["dump", "--pc-section", "x:insn", "--pc-width", "8", "--bitcode-symbols", "all", "-", "b.o"],
    ["--debug", "dump", "a.o"], ["--debug", "--debug", "sections", "--all", "a.o"], ["sections", "--json", "a.o"],
    ["extract", "a.o", "-o", "d"], ["extract", "-o", "d", "--force", "--coverage", "a.o", "b"],
    ["audit"], ["audit", "d", "--json", "-j", "2", "--fail-on", "never"], ["schema"], ["schema", "dump"],
    ["perf-map", "bin"], ["perf-map", "bin", "p1", "p2", "--top", "5", "--min-share", "0.1"],
    ["perf-map", "--layout", "heaviest-path", "bin"], ["cfg", "bin", "--function", "f", "-o", "x.svg"],
    ["completion", "bash"], ["dump", ""], ["sections", "-"],
]


@pytest.mark.parametrize("argv", COMMON, ids=" ".join)
def test_the_common_forms_are_parsed_without_argparse_as_argparse_parses_them(argv):
    assert _check(argv) is not None


ODD = [
    [], ["--help"], ["-h"], ["dump"], ["dump", "--help"], ["dump", "-h", "a.o"], ["dump", "--js", "a.o"],
    ["dump", "--json=1", "a.o"], ["dump", "-sdeplibs", "a.o"], ["dump", "--section=deplibs", "a.o"],
    ["dump", "-s", "nope", "a.o"], ["dump", "a.o", "--json", "b.o"], ["dump", "--", "a.o"], ["dump", "-1"],
    ["dump", "a.o", "--debug"], ["--version"], ["--version", "dump", "a.o"], ["--debug"], ["nope", "a.o"],
    ["_common"], ["dump", "--pc-width", "5", "a.o"], ["dump", "--pc-width", "x", "a.o"], ["dump", "-s"],
    ["dump", "-s", "-", "a.o"], ["extract", "a.o"], ["cfg", "bin", "-o", "x"], ["completion", "fish"],
    ["completion", "bash", "zsh"], ["schema", "a", "b"], ["perf-map", "bin", "--top", "5", "p1"],
    ["perf-map", "bin", "--top", "-5"], ["rewrite", "a.o", "-o", "b.o"], ["rewrite", "a.o", "--remove-section", "x"],
    ["audit", "--jobs", "x"], ["dump", "a o", "-x y"], ["-", "dump"],
]


@pytest.mark.parametrize("argv", ODD, ids=lambda a: " ".join(a) or "(none)")
def test_other_command_lines_are_argparse_s(argv):
    _check(argv)


def test_what_the_fast_path_leaves_to_argparse():
    for argv in (["--help"], ["dump", "--js", "a.o"], ["dump", "a.o", "--json", "b.o"], ["dump", "-s", "nope", "a.o"],
                 ["extract", "a.o"], ["dump", "--section=deplibs", "a.o"]):
        assert cli.parse_fast(argv) is None, argv


@pytest.mark.parametrize("argv", [
    ["rewrite", "a.o", "-o", "b.o"], ["rewrite", "a.o", "-o", "b.o", "--strip-llvm"],
    ["rewrite", "a.o", "--remove", "bb-addr-map", "--strip-llvm", "--remove", ".x", "-o", "b.o"],
    ["rewrite", "a.o", "--in-place", "--add-deplib", "m", "--drop-addrsig", "--add-deplib", "n", "--json"],
    ["rewrite", "a.o", "-n", "--scale-cg-weights", "2", "--drop-cg-edge", "f:g"],
])
def test_rewrite_operations_in_order_without_argparse(argv):
    """rewrite's operations (one list, in command-line order) come out of the fast path as argparse has them."""
    ns = cli.parse_fast(argv)
    assert ns is not None, argv
    _check(argv)
    want = [a for a in argv[2:] if a.startswith("--") and a not in ("--in-place", "--json")]
    assert [op for op, _ in ns.operations] == [
        next(c for o, _, c, _ in __import__("objllvm.commands.rewrite", fromlist=["_OPS"])._OPS if o == w)
        for w in want]


def _vocabulary(name):
    rec = cli._Recorder(f"objllvm {name}")
    try:
        cli._command_modules(name)[0].add_arguments(rec)
    except cli._Unsupported:
        pass
    flags = [f for a in rec.arguments for f in a.flags if f.startswith("-")]
    return flags + ["a.o", "b", "-", "", "deplibs", "4", "8", "-5", "bash", "zsh", "never", "x:insn", "0.5", "--",
                    "-h", "--he", "--debug", "--json=1", "-sdeplibs", "c3", "dump"]


@pytest.mark.parametrize("name", COMMANDS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_command_line_the_fast_path_answers_is_argparse_s(name, data):
    words = data.draw(st.lists(st.sampled_from(_vocabulary(name)), max_size=7))
    pre = data.draw(st.sampled_from([[], ["--debug"]]))
    _check(pre + [name] + words)


def test_a_dump_imports_neither_argparse_nor_re():
    code = ("import sys; before = set(sys.modules); from objllvm import cli; st = cli.main(['dump', sys.argv[1]]); "
            "print(st, 'argparse' in sys.modules, 're' in set(sys.modules) - before)")   # (a .pth may import re)
    p = subprocess.run([sys.executable, "-c", code, str(TESTDATA / "elf" / "deplibs.o")], capture_output=True,
                       text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert "SHT_LLVM_DEPENDENT_LIBRARIES" in p.stdout and p.stdout.splitlines()[-1] == "0 False False"


def test_recorded_and_argparse_declarations_are_the_same_calls():
    """The recorder accepts what argparse accepts for the commands it takes, and the argparse parser of a command
    has exactly the options the recorder saw (one definition)."""
    for name in COMMANDS:
        rec = cli._Recorder(f"objllvm {name}")
        try:
            cli._command_modules(name)[0].add_arguments(rec)
        except cli._Unsupported:
            continue
        p = cli._subparser(cli.build_parser([name]), name)
        want = [tuple(a.option_strings) or (a.dest,) for a in p._actions if a.dest != "help"]
        assert [a.flags for a in rec.arguments] == want, name
        assert [a.dest for a in rec.arguments] == [a.dest for a in p._actions if a.dest != "help"], name


def test_random_command_lines_agree_and_many_are_answered():
    """The property above on a fixed sample, counting the answers: the agreement is not vacuous."""
    import random
    r = random.Random(1)
    answered = {}
    for name in ("dump", "sections", "audit", "perf-map", "schema"):
        vocab = _vocabulary(name)
        answered[name] = sum(_check([name] + [r.choice(vocab) for _ in range(r.randrange(6))]) is not None
                             for _ in range(150))
    assert all(n >= 10 for n in answered.values()), answered
