"""`objllvm completion bash|zsh`: scripts generated from the parser (shtab) that a real shell loads and uses."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from conftest import need_tool, run_objllvm

pytest.importorskip("shtab", reason="shtab is a dependency of objllvm: pip install -e .")


def _complete(script_path, words):
    """What bash's completion function offers for the command line ``words`` (the last word being typed)."""
    bash = need_tool("bash")
    arr = " ".join(f"'{w}'" for w in words)
    code = (f"source '{script_path}'; COMP_WORDS=({arr}); COMP_CWORD={len(words) - 1}; "
            f"COMP_LINE='{' '.join(words)}'; COMP_POINT=${{#COMP_LINE}}; _shtab_objllvm; "
            "printf '%s\\n' \"${COMPREPLY[@]}\"")
    p = subprocess.run([bash, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return set(p.stdout.split())


@pytest.fixture(scope="module")
def bash_script(tmp_path_factory):
    status, out, err = run_objllvm("completion", "bash")
    assert (status, err) == (0, "")
    path = tmp_path_factory.mktemp("completion") / "objllvm.bash"
    path.write_text(out)
    return path


def test_bash_script_registers_and_completes_commands(bash_script):
    p = subprocess.run([need_tool("bash"), "-c", f"source '{bash_script}'; complete -p objllvm"],
                       capture_output=True, text=True)
    assert p.returncode == 0 and "objllvm" in p.stdout, p.stderr
    commands = {"audit", "cfg", "completion", "dump", "extract", "perf-diff", "perf-map", "rewrite", "schema",
                "sections"}
    assert _complete(bash_script, ["objllvm", ""]) >= commands
    assert _complete(bash_script, ["objllvm", "pe"]) == {"perf-diff", "perf-map"}


def test_bash_script_completes_options_and_choices(bash_script):
    opts = _complete(bash_script, ["objllvm", "dump", "--"])
    assert {"--json", "--section", "--pretty-pgo", "--bitcode-symbols"} <= opts
    assert _complete(bash_script, ["objllvm", "dump", "--bitcode-symbols", ""]) == {"defined", "all", "none"}
    assert _complete(bash_script, ["objllvm", "completion", ""]) == {"bash", "zsh"}


def test_zsh_script():
    status, out, err = run_objllvm("completion", "zsh")
    assert (status, err) == (0, "")
    assert out.startswith("#compdef objllvm")
    for word in ("perf-map", "schema", "--bitcode-symbols"):
        assert word in out
    zsh = shutil.which("zsh")
    if zsh is None:
        pytest.skip("zsh is not installed: the script's syntax is not checked (apt-get install zsh)")
    p = subprocess.run([zsh, "-n"], input=out, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
