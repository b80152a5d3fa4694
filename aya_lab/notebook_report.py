"""Prose generated from variables: a notebook's conclusions carry the numbers its cells computed.

``report(template, **values)`` formats ``template`` with ``values`` (``str.format`` syntax, so
``{share:.0%}`` and ``{delta:+.1f}`` work) and returns it as Markdown for display, so a re-record
that changes a figure changes the sentence with it. A placeholder with no value is a one-line
``KeyError`` naming it, never a silent blank. Pair it with ``assert`` on the facts the sentence
claims (a direction, a significance), which formatting cannot check.
"""

from __future__ import annotations

import string
from typing import Any

from IPython.display import Markdown

__all__ = ["report", "render_report"]


def render_report(template: str, **values: Any) -> str:
    """``template`` formatted with ``values``; every placeholder must have a value and every value be used."""
    names = {field for _, field, _, _ in string.Formatter().parse(template) if field}
    roots = {name.split(".")[0].split("[")[0] for name in names}
    missing = sorted(roots - values.keys())
    if missing:
        raise KeyError(f"report: no value for {', '.join(missing)}; pass {missing[0]}=... to report()")
    unused = sorted(values.keys() - roots)
    if unused:
        raise ValueError(f"report: {', '.join(unused)} passed but not in the text; use it or drop it")
    return template.format(**values)


def report(template: str, **values: Any) -> Markdown:
    """:func:`render_report` as Markdown, for the last line of a notebook cell."""
    return Markdown(render_report(template, **values))
