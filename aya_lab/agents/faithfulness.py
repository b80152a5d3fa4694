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
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from aya_lab.languages import normalize_language
from aya_lab.rag.sentence_encoder import similarity

__all__ = [
    "CALIBRATION_COMMAND",
    "DEFAULT_THRESHOLD",
    "FAITHFUL_THRESHOLDS",
    "WITHHELD_QUANTILE",
    "faithfulness_scores",
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


def threshold_for(src: str, tgt: str, thresholds: dict[str, float] | None = None) -> float:
    """The threshold of a ``src`` -> ``tgt`` pair: the lower of its two languages' thresholds."""
    table = FAITHFUL_THRESHOLDS if thresholds is None else thresholds
    default = min(table.values()) if table else DEFAULT_THRESHOLD
    return min(table.get(normalize_language(lang), default) for lang in (src, tgt))


def faithfulness_scores(sources: Sequence[str], outputs: Sequence[str]) -> np.ndarray:
    """The cosine similarity of each source and its output under the multilingual encoder (-1..1)."""
    return similarity([s.strip() for s in sources], [o.strip() for o in outputs])


def unfaithful_reason(source: str, output: str, src: str, tgt: str) -> str | None:
    """Why ``output`` is not a translation of ``source`` (its score under the pair's threshold), or ``None``."""
    score = float(faithfulness_scores([source], [output])[0])
    limit = threshold_for(src, tgt)
    if score >= limit:
        return None
    return f"similarity to the source {score:.3f} < {limit:.3f}: the output does not translate the message"
