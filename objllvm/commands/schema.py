"""objllvm schema: print the JSON Schema of a command's JSON output."""
from __future__ import annotations

NAME = "schema"
HELP = "print the JSON Schema (draft 2020-12) of a command's --json output: dump, sections, perf-map, audit, " \
       "extract (its manifest.json too), rewrite; perf-profile (perf-map --save-profile)"


def add_arguments(p):
    p.add_argument("name", nargs="?", metavar="NAME", help="a command name; without it, list the schemas")


def run(args) -> int:
    from .. import api
    from ..render import Table, render_json, render_text
    if args.name is None:
        rows = [[n, api.json_schema(n).get("title", "")] for n in api.schema_names()]
        render_text([Table(["name", "describes"], rows)])
        return 0
    render_json(api.json_schema(args.name))
    return 0
