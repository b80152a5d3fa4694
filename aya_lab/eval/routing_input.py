"""The routing evaluators' side of which text Aya routes: their ``translate`` spelling of
:class:`~aya_lab.agents.route_input.RouteOn`, and one batch of translations before the room's rule.

:func:`route_requests` is what :mod:`aya_lab.eval.routing` and :mod:`aya_lab.eval.routing_sequences`
route: every non-English request is brought into English with the ``aya_translate`` prompt in one
``generate_texts`` batch (when the path translates), then
:func:`~aya_lab.agents.route_input.decide_input` — the function the room's supervisor node calls —
chooses the text for each request and says whether the keyword fallback also reads the original.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from aya_lab.agents.protocols import TextModel
from aya_lab.agents.route_input import RoutedInput, RouteOn, decide_input
from aya_lab.agents.translator import AyaTranslator
from aya_lab.errors import InputError
from aya_lab.models.base import record_generations
from aya_lab.models.result import Usage, usage

__all__ = ["Translate", "as_route_on", "route_requests", "translator_prompt"]

Translate = bool | Literal["gold", "auto"] | RouteOn
"""The evaluators' spelling of :class:`~aya_lab.agents.route_input.RouteOn` (kept for the notebooks and the
CLI): ``True``: translate first (``english``, the room's path); ``False``: the text as written (``original``);
``"gold"``: the set's English; ``"auto"``: translate, but keep the original where the translation is not
English (the room's ``route_on: auto``); or a ``RouteOn``."""


def as_route_on(translate: Translate) -> RouteOn:
    """The :class:`~aya_lab.agents.route_input.RouteOn` that ``translate`` spells (see :data:`Translate`)."""
    if isinstance(translate, bool):
        return RouteOn.ENGLISH if translate else RouteOn.ORIGINAL
    try:
        return RouteOn(translate)
    except ValueError:
        raise InputError(f"translate must be True, False, 'gold' or 'auto' (or a RouteOn); got {translate!r}") from None


class Request(Protocol):
    """A labelled request as the routing evaluations read it (single- and multi-intent examples alike)."""

    @property
    def text(self) -> str: ...
    @property
    def lang(self) -> str: ...
    @property
    def text_en(self) -> str | None: ...


def route_requests(
    model: TextModel, examples: Sequence[Request], translate: Translate = True, translator: TextModel | None = None
) -> tuple[list[RoutedInput], Usage]:
    """What the router sees for each example (``text``, ``lang``, and ``text_en`` for ``gold``) and the cost
    of the translations (one batch, made by ``translator``, default ``model``, when the path translates)."""
    route_on = as_route_on(translate)
    texts, langs = [ex.text for ex in examples], [ex.lang for ex in examples]
    cost = usage([])
    english: list[str | None] = [None] * len(texts)
    if route_on is RouteOn.GOLD:
        english = [ex.text_en for ex in examples]
    elif route_on.translates:
        with record_generations() as records:
            english = list(AyaTranslator(translator if translator is not None else model).to_english_many(texts, langs))
        cost = usage(records)
    return [decide_input(t, lang, e, route_on) for t, lang, e in zip(texts, langs, english, strict=True)], cost


def translator_prompt(
    model: TextModel, translate: Translate = True, translator: TextModel | None = None
) -> dict[str, str]:
    """The ``aya_translate`` prompt :func:`route_requests` uses on ``translator`` (default ``model``), as
    :meth:`~aya_lab.prompts.PromptChoice.as_meta` records it (with ``prompt_note`` where a base model got the
    completion variant); ``{}`` when the path does not translate."""
    if not as_route_on(translate).translates:
        return {}
    return AyaTranslator(translator if translator is not None else model).prompt_choice.as_meta()
