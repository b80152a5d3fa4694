"""Faithfulness: is an output a translation of its source at all? A reference-free score and its thresholds.

The score is the cosine similarity of source and output under the multilingual sentence encoder
(multilingual-e5-small, :mod:`aya_lab.rag.sentence_encoder`; both sides with e5's ``"query: "`` prefix):
Dale et al. (2023) found cross-lingual sentence similarity the strongest reference-free detector of
hallucinated machine translation. A translation scores near 0.9; an invented sentence (another message's
translation, a few-shot example or a paraphrase of one) near 0.8; the same text twice scores 1.0, so an
output equal to a source already written in the target language passes (an echo is the ``echo`` check's
business, not this one's). The score does not check facts: a changed number hardly moves it.

Every number the gate compares a score with is measured and read from ``data/calibration/``
(:mod:`aya_lab.agents.calibration`), never written here:

- **Thresholds per language** (:func:`faithful_thresholds`, model-independent): the
  :data:`WITHHELD_QUANTILE` quantile of the scores of honest written translations to or from the language.
  A pair uses the lower of its two languages' thresholds; a language without calibration data uses the
  lowest calibrated one (:func:`default_threshold`: fewer honest translations withheld, fewer inventions
  caught). The scores are unmasked (shared names and numbers are encoded as written).
- **A translator's own record** (:func:`floor_for`, keyed by the exact spec of the model that wrote the
  draft): a :class:`RealOutputFloor` placed on its labelled drafts, which binds that model only. An output
  scoring between the written threshold and the floor is *doubtful*: delivered flagged, not withheld
  (:func:`faithfulness_verdict`). An output into or out of a language the record marks unsupported is
  withheld without scoring. A model with no record (an adapter is not its base) gets the written
  thresholds alone.

Measured figures, per kind and per language: ``data/faithfulness/README.md``; how the gate came to be:
``docs/SECURITY.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from aya_lab.agents.calibration import load_thresholds, translator_record
from aya_lab.languages import normalize_language
from aya_lab.models.cache import GenerationCache, get_default_cache
from aya_lab.rag.sentence_encoder import ENCODER_NAME, similarity

__all__ = [
    "REAL_OUTPUT_QUANTILE",
    "RealOutputFloor",
    "WITHHELD_QUANTILE",
    "agreement_for",
    "default_threshold",
    "faithful_thresholds",
    "faithfulness_scores",
    "faithfulness_verdict",
    "floor_for",
    "threshold_for",
    "translator_floor",
    "unfaithful_reason",
]

WITHHELD_QUANTILE = 0.10
"""Each language's threshold is this quantile of its honest translations' scores (calibration split)."""


def faithful_thresholds() -> dict[str, float]:
    """Per language, the similarity below which an output is not a translation: the committed
    ``data/calibration/faithfulness-thresholds.json`` (:func:`~aya_lab.agents.calibration.load_thresholds`)."""
    return dict(load_thresholds().thresholds)


def default_threshold() -> float:
    """The threshold of a language without calibration data: the lowest calibrated one."""
    return min(faithful_thresholds().values())


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
    by_target: tuple[tuple[str, int, int], ...] = ()  # (language, faithful, labelled) drafts into it

    def record_into(self, tgt: str) -> tuple[int, int] | None:
        """``(faithful, labelled)`` drafts of the model into ``tgt``, or ``None``: none labelled."""
        lang = normalize_language(tgt)
        return next(((f, n) for code, f, n in self.by_target if code == lang and n), None)

    def unsupported_in(self, src: str, tgt: str) -> str | None:
        """The first of ``src``, ``tgt`` the model does not translate, or ``None``."""
        return next(
            (lang for lang in (normalize_language(src), normalize_language(tgt)) if lang in self.unsupported), None
        )

    def applies(self, src: str, tgt: str) -> bool:
        """Whether the floor binds the ``src`` -> ``tgt`` pair (any spelling of the languages)."""
        return normalize_language(src) in self.languages and normalize_language(tgt) in self.languages


def translator_floor(spec: str) -> RealOutputFloor | None:
    """The record of the translator ``spec`` (its calibration file,
    :func:`~aya_lab.agents.calibration.translator_record`) as a floor, or ``None``: no record, the
    model-independent gate only."""
    record = translator_record(spec)
    if record is None:
        return None
    by_target = tuple((lang, f, n) for lang, (f, n) in sorted(record.faithful_by_target.items()))
    return RealOutputFloor(
        record.floor, frozenset(record.floor_languages), record.model, frozenset(record.unsupported), by_target
    )


def floor_for(model: object) -> RealOutputFloor | None:
    """The record of the model that wrote a draft, matched by its exact ``spec`` (:func:`translator_floor`),
    or ``None`` (no record, or no spec: a model object without one)."""
    spec = getattr(model, "spec", None)
    return translator_floor(spec) if isinstance(spec, str) else None


def agreement_for(model: object, prompt: str) -> float:
    """The agreement threshold the record of the model that wrote a draft measured for drafts under ``prompt``
    (:class:`~aya_lab.agents.calibration.AgreementCalibration`), or 0.0 (never doubtful) where there is none:
    no record, none measured, or one measured on another prompt's drafts."""
    spec = getattr(model, "spec", None)
    record = translator_record(spec) if isinstance(spec, str) else None
    measured = record.agreement if record is not None else None
    return measured.threshold if measured is not None and measured.prompt == prompt else 0.0


def threshold_for(
    src: str,
    tgt: str,
    thresholds: dict[str, float] | None = None,
    floor: RealOutputFloor | None = None,
) -> float:
    """The threshold of a ``src`` -> ``tgt`` pair: the lower of its two languages' thresholds, raised to
    ``floor`` where it applies (a translator's real-output floor; ``None``, the default: the written-pair
    thresholds alone, as every translation evaluation's hallucination rate uses them)."""
    table = faithful_thresholds() if thresholds is None else thresholds
    default = min(table.values()) if table else default_threshold()
    base = min(table.get(normalize_language(lang), default) for lang in (src, tgt))
    return max(base, floor.value) if floor is not None and floor.applies(src, tgt) else base


def faithfulness_scores(
    sources: Sequence[str], outputs: Sequence[str], cache: GenerationCache | None = None
) -> np.ndarray:
    """The cosine similarity of each source and its output under the multilingual encoder (-1..1); scores
    ``cache`` (default: the generation cache) recorded are read back
    (:meth:`~aya_lab.models.cache.GenerationCache.get_similarities`), the others computed (and recorded,
    outside replay mode)."""
    if len(sources) != len(outputs):
        return similarity(list(sources), list(outputs))  # its one-line error
    pairs = [(s.strip(), o.strip()) for s, o in zip(sources, outputs, strict=True)]
    cache = cache if cache is not None else get_default_cache()
    known = cache.get_similarities(ENCODER_NAME, pairs) if cache is not None else {}
    todo = [i for i in range(len(pairs)) if i not in known]
    if todo:
        computed = similarity([pairs[i][0] for i in todo], [pairs[i][1] for i in todo])
        known.update(zip(todo, computed.tolist(), strict=True))
        if cache is not None:
            cache.put_similarities(ENCODER_NAME, [pairs[i] for i in todo], computed.tolist())
    return np.array([known[i] for i in range(len(pairs))], dtype=np.float64)


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
