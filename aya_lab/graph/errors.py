"""Located spec errors.

Every problem found in a graph spec is a :class:`Problem`: a path into the spec
(``flows[3].flow_parameter.conditions[1].expression.eq[0]``) and a message that says what to do.
Validation collects *all* problems and raises one :class:`SpecError` listing them, so a researcher
fixes a spec in one pass instead of one error per run.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from aya_lab.errors import AyaLabError
from aya_lab.text_safety import describe_code_points

__all__ = [
    "Problem",
    "SpecError",
    "SpecFileError",
    "SpecWarning",
    "RegistryError",
    "ConditionError",
    "format_path",
    "did_you_mean",
    "hidden_characters",
    "COMPAT_HINT",
    "MAX_SHOWN_PROBLEMS",
]

COMPAT_HINT = "; or run the spec as kenkenpa does: add `compat: kenkenpa` at its top (CLI: --compat kenkenpa)"
"""Appended to every strict refusal that kenkenpa's compatibility mode would accept."""

MAX_SHOWN_PROBLEMS = 20
"""A :class:`SpecError` lists this many problems, then counts the rest (20,000 unknown keys are 20
lines and a count, not 20,003 lines)."""

PathPart = str | int
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def format_path(parts: Sequence[PathPart]) -> str:
    """``("flows", 3, "flow_parameter", "==")`` -> ``flows[3].flow_parameter["=="]``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENT.match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{part!r}]".replace("'", '"')
    return out or "<spec>"


def did_you_mean(name: object, candidates: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest candidate, or ``''`` when none is close."""
    if not isinstance(name, str):
        return ""
    pool = sorted({c for c in candidates if isinstance(c, str)})
    best = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    if not best:
        lowered = {c.lower(): c for c in pool}
        if name.lower() in lowered:
            best = [lowered[name.lower()]]
    return f" (did you mean {best[0]!r}?{_lookalike(name, best[0])})" if best else ""


def _lookalike(name: str, best: str) -> str:
    """Where ``name`` and its suggestion differ in a non-ASCII or invisible character (so they may look
    identical), the code points that differ: `` 'аgent' has U+0430 CYRILLIC SMALL LETTER A where
    'agent' has U+0061 LATIN SMALL LETTER A``."""
    diffs = [
        (name[i1:i2], best[j1:j2])
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, name, best, autojunk=False).get_opcodes()
        if tag != "equal"
    ]
    if all((a + b).isascii() and (a + b).isprintable() for a, b in diffs):
        return ""
    shown = "; ".join(
        f"{name!r} has {describe_code_points(a) or 'nothing'} where {best!r} has {describe_code_points(b) or 'nothing'}"
        for a, b in diffs[:3]
    )
    return f" They look alike but differ: {shown}"


def hidden_characters(name: str) -> str:
    """The code points in ``name`` that are invisible, control, bidi or unusual space characters
    (categories Cc, Cf, Cs, Co, Cn, Zl, Zp, and any space but U+0020), or ``''``: such a name can look
    like another, or reorder the text shown around it."""
    bad = [ch for ch in dict.fromkeys(name) if unicodedata.category(ch) in _HIDDEN or (ch.isspace() and ch != " ")]
    return describe_code_points("".join(bad))


_HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


@dataclass(frozen=True)
class Problem:
    """One located problem: ``path`` into the spec and a message saying what is wrong and the fix."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class SpecError(AyaLabError, ValueError):
    """A graph spec (or overlay) is invalid. ``str()``: one problem is one line (``graph spec in FILE:
    PATH: message``); several are a summary line, then one problem per line (the first
    :data:`MAX_SHOWN_PROBLEMS`, then a count of the rest saying how to see them; ``.problems`` holds them
    all, :meth:`render_all` lists them all)."""

    def __init__(self, problems: Sequence[Problem], source: str | None = None) -> None:
        self.problems: list[Problem] = list(problems)
        self.source = source
        super().__init__(self._render())

    def _render(self, shown: int | None = MAX_SHOWN_PROBLEMS) -> str:
        n = len(self.problems)
        where = f" in {self.source}" if self.source else ""
        if n == 1:
            return f"graph spec{where}: {self.problems[0]}"
        head = f"graph spec{where} has {n} problems:"
        lines = [head, *(f"  {p}" for p in self.problems[:shown])]
        if shown is not None and n > shown:
            lines.append(f"  ... and {n - shown} more; {self._how_to_see_all()}")
        return "\n".join(lines)

    def _how_to_see_all(self) -> str:
        n = len(self.problems)
        if not self.source:
            return f"all {n} are in the error's .problems"
        file = self.source.removesuffix(" (resolved)")
        return f"run `aya-lab graph validate {file} --all` to see all {n}"

    def render_all(self) -> str:
        """``str()`` with every problem listed, however many."""
        return self._render(None)

    def __str__(self) -> str:
        return self._render()


class SpecFileError(SpecError):
    """A spec file refused as a whole (too big, too deep, an alias, unreadable, a base outside its
    folder). ``str()`` is one line: ``WHERE: message`` where ``WHERE`` is ``file[:line:col]``."""

    def __init__(self, where: str, message: str, source: str | None = None) -> None:
        self.where = where
        super().__init__([Problem(where, message)], source)

    def _render(self, shown: int | None = MAX_SHOWN_PROBLEMS) -> str:
        return f"{self.where}: {self.problems[0].message}"


class SpecWarning(UserWarning):
    """Something compatibility mode accepted that strict mode refuses (``str()``: ``path: message``)."""


class RegistryError(AyaLabError, ValueError):
    """A registration is invalid (a name clash, or a callable with the wrong signature)."""


class ConditionError(AyaLabError, ValueError):
    """A condition could not be evaluated at run time (e.g. comparing ``None`` with a number)."""


class Problems:
    """A collector: ``add(path_parts, message)``; ``raise_if_any(source)``."""

    def __init__(self) -> None:
        self.items: list[Problem] = []

    def add(self, path: Sequence[PathPart], message: str) -> None:
        self.items.append(Problem(format_path(path), message))

    def __bool__(self) -> bool:
        return bool(self.items)

    @property
    def busy(self) -> bool:
        """As many problems as a :class:`SpecError` shows: skip the costly hints of further ones."""
        return len(self.items) >= MAX_SHOWN_PROBLEMS

    def raise_if_any(self, source: str | None = None) -> None:
        if self.items:
            raise SpecError(self.items, source)
