"""objllvm completion: print a shell completion script, generated from the command-line parser (shtab)."""
from __future__ import annotations

NAME = "completion"
HELP = "print a completion script for bash or zsh, e.g. `objllvm completion bash > " \
       "~/.local/share/bash-completion/completions/objllvm`"


def add_arguments(p):
    p.add_argument("shell", choices=["bash", "zsh"], help="the shell")


def run(args) -> int:
    import shtab
    from ..cli import build_parser
    from ..render import Text, render_text
    parser = build_parser()                       # every command (not only this one)
    script = shtab.complete(parser, shell=args.shell)
    render_text([Text(script.rstrip("\n"))])
    return 0
