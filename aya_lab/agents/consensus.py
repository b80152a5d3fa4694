"""Several drafts of one translation, and how far they agree: a doubt when a small model is guessing.

A small translator's draft depends on the few-shot examples its prompt shows. With ``drafts = K > 1``
(:class:`~aya_lab.agents.user.UserAgent`) the translator writes K drafts of a message: draft 0 under the
prompt as written, draft ``j`` under the prompt's example records rotated by ``j * (n // K)`` (``n``: the records
the prompt draws from; :func:`rotated_prompts`), or, when the prompt chooses its examples per message
(``examples.nearest``), under the next ``k`` most alike after the ``j * k`` shown to the drafts before it.
Draft 0 is delivered, as with one draft; the others are evidence (:func:`consensus`): draft 0's mean
sentence chrF against them, over 100, is its *agreement*, and the guard flags a draft whose agreement is under
the delivery rule's ``agreement`` threshold (:class:`~aya_lab.agents.guard.TranslationGuard`). A draft the
model would write under any examples scores near 1; one that changes a fact or a clause when the examples
change scores lower. A prompt without few-shot
examples writes one draft (greedy decoding would write the same one K times), and its agreement is ``None``.

With ``select="similarity"`` the delivered draft is instead the one most like its source under the guard's
multilingual encoder (:func:`~aya_lab.agents.faithfulness.faithfulness_scores`, reference-free quality estimation;
ties: the earlier draft), and the agreement is that draft's against the others. Delivering the drafts' medoid
(minimum-Bayes-risk selection with chrF) was measured on the labelled drafts of two development runs and
delivered fewer faithful drafts than draft 0 (docs/ROOM.md, which gives both measurements).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from aya_lab.agents.faithfulness import faithfulness_scores
from aya_lab.errors import InputError
from aya_lab.prompts import PromptFile
from aya_lab.prompts.fewshot import spec_records

__all__ = ["SELECTIONS", "Drafted", "Selection", "check_selection", "consensus", "rotated_prompts"]

Selection = Literal["first", "similarity"]
SELECTIONS: tuple[Selection, ...] = ("first", "similarity")
"""How the delivered draft is chosen: draft 0, or the one most like the source (see the module docstring)."""


def check_selection(select: str) -> Selection:
    """``select`` when it names one of :data:`SELECTIONS`; raises a one-line ``InputError`` naming it otherwise."""
    for known in SELECTIONS:
        if select == known:
            return known
    raise InputError(f"select must be one of {', '.join(SELECTIONS)}; got {select!r}")


@dataclass(frozen=True)
class Drafted:
    """One translation and the drafts behind it: the delivered ``text`` (draft ``chosen``, 0 unless chosen by
    similarity), its ``agreement`` with the other drafts (0–1; ``None``: one draft was written) and every
    ``drafts`` text, draft 0 first."""

    text: str
    agreement: float | None = None
    drafts: tuple[str, ...] = ()
    chosen: int = 0


def rotated_prompts(prompt: PromptFile, k: int) -> list[PromptFile]:
    """``k`` variants of ``prompt`` whose example records are rotated, or skipped for a prompt choosing its
    examples per message (see the module docstring); the prompt alone when ``k`` is 1, it has no few-shot
    examples, or its records are fewer than ``k``."""
    spec = prompt.examples
    if k <= 1 or spec is None:
        return [prompt]
    if spec.nearest is not None:
        return [prompt] + [
            prompt.model_copy(
                update={
                    "examples": spec.model_copy(update={"skip": spec.skip + j * spec.k}),
                    "variant": f"{prompt.variant}+skip{j * spec.k}",
                }
            )
            for j in range(1, k)
        ]
    records = spec_records(spec)
    step = len(records) // k
    if step == 0:
        return [prompt]
    variants = [prompt]
    for j in range(1, k):
        turned = tuple(records[j * step :] + records[: j * step])
        examples = spec.model_copy(update={"records": turned})
        variants.append(prompt.model_copy(update={"examples": examples, "variant": f"{prompt.variant}+rotated{j}"}))
    return variants


def consensus(drafts: Sequence[str], source: str = "", select: Selection = "first") -> Drafted:
    """The delivered draft -- draft 0, or with ``select="similarity"`` the draft most like ``source`` -- with its
    mean sentence chrF against the other drafts over 100 as its agreement (one draft: agreement ``None``).
    Raises ``ValueError`` on no drafts or ``similarity`` without a ``source``, ``InputError`` (a ``ValueError``)
    on an unknown ``select``."""
    if not drafts:
        raise ValueError("consensus needs at least one draft")
    check_selection(select)
    if len(drafts) == 1:
        return Drafted(drafts[0], None, tuple(drafts))
    chosen = 0
    if select == "similarity":
        if not source.strip():
            raise ValueError("select='similarity' needs the source text the drafts translate")
        scores = faithfulness_scores([source] * len(drafts), list(drafts))
        chosen = max(range(len(drafts)), key=lambda i: (scores[i], -i))
    from sacrebleu.metrics import CHRF  # heavy; only when several drafts were written

    chrf = CHRF()
    others = [d for i, d in enumerate(drafts) if i != chosen]
    mean = sum(chrf.sentence_score(drafts[chosen], [other]).score for other in others) / len(others)
    return Drafted(drafts[chosen], round(mean / 100, 4), tuple(drafts), chosen)
