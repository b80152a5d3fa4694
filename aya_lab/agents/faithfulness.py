"""Faithfulness: is an output a translation of its source at all? A reference-free score and its thresholds.

The score is the cosine similarity of source and output under the multilingual sentence encoder
(multilingual-e5-small, :mod:`aya_lab.rag.sentence_encoder`; both sides with e5's ``"query: "`` prefix):
Dale et al. (2023) found cross-lingual sentence similarity the strongest reference-free detector of
hallucinated machine translation. A translation scores near 0.9; an invented sentence (another message's
translation, a few-shot example or a paraphrase of one) near 0.8; the same text twice scores 1.0, so an
output equal to a source already written in the target language passes (an echo is the ``echo`` check's
business, not this one's).

**Thresholds per language.** e5 places low-resource languages less precisely, so honest Yoruba and
Hausa translations score lower than French ones (median 0.88 and 0.86 against 0.93 in
``data/faithfulness``). Each language has its own threshold (:data:`FAITHFUL_THRESHOLDS`: the 10th percentile of the
scores of honest translations to or from it in the calibration split of ``data/faithfulness``, chosen
to withhold about one honest translation in ten at most); a pair uses the lower of its two languages'
thresholds, and a language without calibration data uses :data:`DEFAULT_THRESHOLD` (the lowest
calibrated one: fewer honest translations withheld, fewer inventions caught). A shared name or number
lifts an invented output's score; masking shared names and numbers before encoding was measured and
did not separate better (ROC AUC over the whole set 0.921 against 0.929 unmasked), so the score is
unmasked.

Measured 2026-12-02 on the held-out split (``aya-lab eval faithfulness``; figures with 95% CIs, per kind
and per language, in ``data/faithfulness/README.md``): honest translations withheld 3.1%; inventions
(unrelated sentences, few-shot echoes and paraphrases) caught 92–95%; half translations 40%; a changed
number or weekday 0% — the score does not check facts. Yoruba: 16.7% of honest translations withheld.

**A floor from the translator's own outputs.** Written translations are freer than a small model's and
score lower, so inventions between English, German, French and Spanish passed those thresholds. The
default translator's labelled drafts place :data:`REAL_OUTPUT_FLOOR`, which binds that model only
(:func:`floor_for`; :mod:`aya_lab.eval.faithfulness_real` calibrates it). An output scoring between the
written threshold and the floor is *doubtful*, not withheld (:func:`faithfulness_verdict`): as a
withholding threshold the floor withheld 4 of 16 faithful drafts on the second unseen run, because faithful
and invented drafts share the band, so the room delivers such a draft flagged, beside the original.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from aya_lab.languages import normalize_language
from aya_lab.rag.sentence_encoder import similarity

__all__ = [
    "CALIBRATION_COMMAND",
    "DEFAULT_THRESHOLD",
    "FAITHFUL_THRESHOLDS",
    "REAL_OUTPUT_FLOOR",
    "REAL_OUTPUT_QUANTILE",
    "RealOutputFloor",
    "WITHHELD_QUANTILE",
    "faithfulness_scores",
    "faithfulness_verdict",
    "floor_for",
    "threshold_for",
    "unfaithful_reason",
]

WITHHELD_QUANTILE = 0.10
"""Each language's threshold is this quantile of its honest translations' scores (calibration split)."""
CALIBRATION_COMMAND = "aya-lab eval faithfulness --split holdout"
"""The command that recomputes :data:`FAITHFUL_THRESHOLDS` from the calibration split and reports the
held-out precision and recall (see ``data/faithfulness/README.md``)."""

FAITHFUL_THRESHOLDS: dict[str, float] = {
    "eng": 0.843,
    "swh": 0.858,
    "deu": 0.870,
    "fra": 0.885,
    "yor": 0.842,
    "hau": 0.827,
}
"""Per language, the similarity below which an output is not a translation (calibrated 2026-12-02 by
:data:`CALIBRATION_COMMAND` on ``data/faithfulness/pairs.jsonl``, calibration split: 522 honest
translations; the README's table has the figures)."""
DEFAULT_THRESHOLD = min(FAITHFUL_THRESHOLDS.values())
"""The threshold of a language without calibration data: the lowest calibrated one."""


REAL_OUTPUT_QUANTILE = 0.05
"""The real-output floor is this quantile of the scores of the translator's own faithful outputs."""


@dataclass(frozen=True)
class RealOutputFloor:
    """What one translator's own labelled outputs say of it, for that ``model`` (its spec, as the room's
    loader names it): a lower bound ``value`` on the threshold, for pairs whose both languages are in
    ``languages`` (those with enough faithful outputs to place it), and the ``unsupported`` languages
    (enough labelled drafts into or out of them, none faithful: the model does not translate them)."""

    value: float
    languages: frozenset[str]
    model: str = ""
    unsupported: frozenset[str] = frozenset()

    def unsupported_in(self, src: str, tgt: str) -> str | None:
        """The first of ``src``, ``tgt`` the model does not translate, or ``None``."""
        return next(
            (lang for lang in (normalize_language(src), normalize_language(tgt)) if lang in self.unsupported), None
        )

    def applies(self, src: str, tgt: str) -> bool:
        """Whether the floor binds the ``src`` -> ``tgt`` pair (any spelling of the languages)."""
        return normalize_language(src) in self.languages and normalize_language(tgt) in self.languages


REAL_OUTPUT_FLOOR = RealOutputFloor(
    0.908, frozenset({"deu", "eng", "fra", "spa"}), "gemma3-270m", unsupported=frozenset({"swh", "yor"})
)
"""The room's default translator's floor, calibrated 2026-12-02 (``aya-lab eval faithfulness``) on the 166 labelled drafts of the first
unseen-message run (``data/adversarial/unseen_labels.jsonl``, translator gemma3-270m): the
:data:`REAL_OUTPUT_QUANTILE` quantile of its 20 faithful drafts' scores, for the languages with at least
five of them on either side. Written human translations are freer than a 270M model's literal ones and
score lower (the per-language thresholds above come from them), so inventions between these languages
slipped under those thresholds (0.834-0.890) while every faithful draft of the model scored 0.901 or
more. Swahili, Yoruba and Hausa have no faithful drafts to place a floor. Swahili (66 drafts into or out
of it) and Yoruba (32) had none faithful at all: the model does not translate them, and its drafts in
them are withheld (notebook 08 measured the same with references: prompted English -> Swahili chrF 7.7
against 19.8 for copying the source). Hausa had no drafts: it keeps the written thresholds.
The floor is the model's, not the languages': human translations are freer, and it would withhold 30% of
the workplace set's honest German and Spanish references (``benchmarks/guard_fpr.py --floor``), so
another translator keeps the written-pair thresholds until its own drafts are labelled and calibrated
(:func:`floor_for`)."""


def floor_for(model: object) -> RealOutputFloor | None:
    """The real-output floor calibrated on ``model`` (matched by its ``spec``), or ``None``."""
    return REAL_OUTPUT_FLOOR if getattr(model, "spec", None) == REAL_OUTPUT_FLOOR.model else None


def threshold_for(
    src: str,
    tgt: str,
    thresholds: dict[str, float] | None = None,
    floor: RealOutputFloor | None = None,
) -> float:
    """The threshold of a ``src`` -> ``tgt`` pair: the lower of its two languages' thresholds, raised to
    ``floor`` where it applies (a translator's real-output floor; ``None``, the default: the written-pair
    thresholds alone, as every translation evaluation's hallucination rate uses them)."""
    table = FAITHFUL_THRESHOLDS if thresholds is None else thresholds
    default = min(table.values()) if table else DEFAULT_THRESHOLD
    base = min(table.get(normalize_language(lang), default) for lang in (src, tgt))
    return max(base, floor.value) if floor is not None and floor.applies(src, tgt) else base


def faithfulness_scores(sources: Sequence[str], outputs: Sequence[str]) -> np.ndarray:
    """The cosine similarity of each source and its output under the multilingual encoder (-1..1)."""
    return similarity([s.strip() for s in sources], [o.strip() for o in outputs])


def unfaithful_reason(source: str, output: str, src: str, tgt: str) -> str | None:
    """Why ``output`` is not a translation of ``source`` (its score under the pair's written threshold),
    or ``None``."""
    return faithfulness_verdict(source, output, src, tgt)[0]


def faithfulness_verdict(
    source: str, output: str, src: str, tgt: str, floor: RealOutputFloor | None = None
) -> tuple[str | None, str | None]:
    """``(reason to withhold, doubt)`` of ``output`` as a translation of ``source``: a reason when ``floor``
    marks a language of the pair unsupported, or when the score is under the pair's written threshold;
    else a doubt when the score is under the threshold with ``floor`` applied (:func:`threshold_for`; the
    room delivers such an output flagged, beside the original); else ``(None, None)``."""
    if floor is not None and (lang := floor.unsupported_in(src, tgt)) is not None:
        return f"{floor.model} produced no faithful translation into or out of {lang} in its labelled drafts", None
    score = float(faithfulness_scores([source], [output])[0])
    limit, top = threshold_for(src, tgt), threshold_for(src, tgt, floor=floor)
    if score < limit:
        return f"similarity to the source {score:.3f} < {limit:.3f}: the output does not translate the message", None
    if score < top:
        return None, f"similarity to the source {score:.3f} < the translator's floor {top:.3f}"
    return None, None
