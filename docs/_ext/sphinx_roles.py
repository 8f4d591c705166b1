"""A Griffe extension for the documentation site: the Sphinx roles of objllvm's docstrings become links.

Docstrings write cross-references the Sphinx way (``:class:`ObjectDump```, ``:func:`~objllvm.api.dump```).
mkdocstrings shows such roles as plain text, so this extension turns each into an mkdocs-autorefs reference
marked optional: a link where the target is on the site, code text where it is not.
"""
import re

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|data|exc|obj|const):`(~?)([\w.]+)(\(\))?`")


def _target(obj: griffe.Object, name: str) -> str:
    """The full path of ``name`` as seen from ``obj``: as written when qualified, else resolved in the
    object's scope (its class, then its module), else the name as it is."""
    if "." in name and name.split(".")[0] in ("objllvm", "os", "io"):
        return name
    scope: griffe.Object | None = obj
    while scope is not None:
        try:
            return scope.resolve(name)
        except (griffe.NameResolutionError, AttributeError):
            scope = scope.parent
    return name


def rewrite_roles(obj: griffe.Object, text: str) -> str:
    def link(m: re.Match[str]) -> str:
        short, name, call = m.group(1), m.group(2), m.group(3) or ""
        title = (name.rsplit(".", 1)[-1] if short else name) + call
        return f'<autoref identifier="{_target(obj, name)}" optional><code>{title}</code></autoref>'
    return _ROLE.sub(link, text)


class SphinxRoles(griffe.Extension):
    """Rewrites the roles of every docstring once the package is loaded (names resolve then)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: object) -> None:
        def walk(obj: griffe.Object) -> None:
            if obj.docstring is not None:
                obj.docstring.value = rewrite_roles(obj, obj.docstring.value)
            for member in obj.members.values():
                if not member.is_alias:
                    walk(member)  # type: ignore[arg-type]
        walk(pkg)
