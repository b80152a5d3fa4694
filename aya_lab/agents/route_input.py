"""Which text Aya routes: one vocabulary (:class:`RouteOn`, defined in the light
:mod:`~aya_lab.agents.route_on` and exported here too) and one decision (:func:`decide_input`).

A request to Aya may be written in any language; the supervisor's router prompts and the knowledge base
are English. The room and the routing evaluators translate the request first (the ``aya_translate``
prompt) and then route either the translation or the request as written. This module decides which,
from three texts only: the request as written, its language and its English text (a model translation,
or, in evaluation, a reference gloss). It calls no model; the caller translates (or not: see
:attr:`RouteOn.translates`) and passes the result in.

The rules, in order:

1. an explicit command (``/remember ...``, ``approve 3``: :func:`~aya_lab.agents.authority.parse_command`)
   is routed as written, untranslated, in every mode;
2. an English request is routed as written (a translator passes English through unchanged);
3. otherwise :class:`RouteOn` decides: the translation, the original, the translation unless it fails
   the output-language check (:func:`~aya_lab.agents.translator.is_english`), or a reference English.

The result also says whether the routed text is a model translation that differs from what was
written (:attr:`RoutedInput.original`): the keyword fallback then matches the request as written too,
so a keyword the translation lost still counts. A reference gloss (``gold``) is not a model
translation: the fallback reads the gloss alone, so the evaluation measures routing on the gloss.

Simplified: the knowledge-base query is the routed text (the router's ``Action Input`` or a
multi-intent clause may still replace it step by step); :attr:`RoutedInput.kb_query` names it so a
change of that rule has one place to go.
"""

from __future__ import annotations

from dataclasses import dataclass

from aya_lab.agents.authority import parse_command
from aya_lab.agents.route_on import RouteOn
from aya_lab.agents.translator import is_english

__all__ = ["RouteOn", "RoutedInput", "decide_input", "COMMAND_NOTE"]

COMMAND_NOTE = "explicit command, read untranslated"


@dataclass(frozen=True)
class RoutedInput:
    """What :func:`decide_input` decided for one request.

    ``text`` is what the router reads; ``original`` is the request as written when ``text`` is a model
    translation that differs from it (the keyword fallback also matches it), else ``None``; ``note``
    says why ``text`` is not the English translation (for the run's log), else ``None``.
    """

    text: str
    original: str | None = None
    note: str | None = None

    @property
    def translated(self) -> bool:
        """Whether the request was routed on a model translation that differs from what was written."""
        return self.original is not None

    @property
    def kb_query(self) -> str:
        """The text the ``query`` tool searches the knowledge base with when the router gives no input
        of its own: the routed text (see the module docstring)."""
        return self.text


def decide_input(
    original: str, lang: str, english: str | None = None, route_on: RouteOn | str = RouteOn.AUTO
) -> RoutedInput:
    """The text to route for ``original`` (written in ``lang``) given its English text ``english``.

    ``english`` is the model translation (``route_on`` ``english`` or ``auto``) or the reference gloss
    (``gold``); ``original`` needs none, and an English request never does. A ``route_on`` that is not
    a :class:`RouteOn` value raises ``ValueError``; so does a missing ``english`` that is needed.
    """
    route_on = RouteOn(route_on)
    if parse_command(original) is not None:
        return RoutedInput(original, note=COMMAND_NOTE)
    if lang == "eng":
        return RoutedInput(original)
    if route_on is RouteOn.ORIGINAL:
        return RoutedInput(original, note="routed on the original request (route_on: original)")
    if english is None:
        raise ValueError(f"route_on {route_on.value!r} needs the English text of this {lang} request; got none")
    if route_on is RouteOn.GOLD:
        return RoutedInput(english)
    if route_on is RouteOn.AUTO and not is_english(english, lang):
        why = f"its translation {english[:40]!r} is not English"
        return RoutedInput(original, note=f"routed on the original request: {why}")
    return RoutedInput(english, original if english != original else None)
