"""Output-language check: is a system's output in the target language, or an echo of its source?

A core module: the room's translation guard in ``aya_lab.agents`` and the evaluation both use it.

- ``target_share``: the share of outputs that ``lingua-language-detector`` identifies as the target
  language. The detector is built once per set of languages (target, source, English and a few
  languages small models drift into), with only those languages loaded. Where lingua does not cover
  the target (Hausa, Amharic, Nepali, Sinhala, Khmer, Igbo, ...) the share is ``None`` ("n/a").
- ``echo_share``: the share of outputs that copy their source: sacrebleu's sentence chrF of the
  output against the source is at least :data:`ECHO_CHRF` (identical text scores 100). This needs no
  language identifier, so it is defined for every language.

Simplification: a detector restricted to a handful of candidates always picks one of them; an output
in some other language counts as "not the target", which is what the check is for.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from aya_lab.languages import get_language
from aya_lab.sentence_chrf import shared_chrf

__all__ = ["ECHO_CHRF", "confidence", "covered", "detect", "target_share", "echoes", "echo_share", "detector_for"]

ECHO_CHRF = 80.0
_DRIFT = ("ENGLISH", "FRENCH", "SPANISH", "PORTUGUESE", "GERMAN")


def covered(lang: str) -> bool:
    """Whether lingua can identify ``lang``."""
    return get_language(lang).lingua is not None


@functools.lru_cache(maxsize=16)
def _detector(names: tuple[str, ...]):
    from lingua import Language as LinguaLanguage
    from lingua import LanguageDetectorBuilder

    langs = [getattr(LinguaLanguage, n) for n in names]
    return LanguageDetectorBuilder.from_languages(*langs).build()


def detector_for(*languages: str):
    """A lingua detector for the given languages (those it covers) plus the usual drift languages."""
    names = {n for n in (get_language(lang).lingua for lang in languages) if n is not None} | set(_DRIFT)
    return _detector(tuple(sorted(names)))


def detect(text: str, *languages: str) -> str | None:
    """lingua's language (its enum name, e.g. ``"FRENCH"``) for ``text`` among ``languages`` (those it
    covers) and the drift languages; ``None`` when it cannot tell (empty or symbol-only text)."""
    found = detector_for(*languages).detect_language_of(text) if text.strip() else None
    return None if found is None else found.name


def confidence(text: str, lang: str, *others: str) -> float | None:
    """lingua's confidence (0..1) that ``text`` is in ``lang``, among ``lang``, ``others`` and the drift
    languages; ``None`` when lingua does not cover ``lang``."""
    from lingua import Language as LinguaLanguage

    name = get_language(lang).lingua
    if name is None:
        return None
    return float(detector_for(lang, *others).compute_language_confidence(text, getattr(LinguaLanguage, name)))


def target_share(outputs: Sequence[str], tgt: str, *, src: str | None = None) -> float | None:
    """Share (0..1) of ``outputs`` identified as ``tgt``; ``None`` when lingua does not cover ``tgt``."""
    target = get_language(tgt)
    if target.lingua is None:
        return None
    if not outputs:
        return float("nan")
    detector = detector_for(tgt, *([src] if src else []))
    found = detector.detect_languages_in_parallel_of(list(outputs))
    hits = sum(1 for lang in found if lang is not None and lang.name == target.lingua)
    return hits / len(outputs)


def echoes(output: str, source: str, threshold: float = ECHO_CHRF) -> bool:
    """Whether ``output`` copies ``source``: it is not empty, and equal to it (spaces around stripped) or its
    sentence chrF against it is >= ``threshold``. The guard's echo check, :func:`echo_share` and the
    evaluation's echo flags all ask this."""
    out = output.strip()
    return bool(out) and (out == source.strip() or shared_chrf().reaches(output, source, threshold))


def echo_share(outputs: Sequence[str], sources: Sequence[str], *, threshold: float = ECHO_CHRF) -> float:
    """Share (0..1) of outputs that copy their own source (:func:`echoes` at ``threshold``)."""
    if len(outputs) != len(sources):
        raise ValueError(f"{len(outputs)} outputs but {len(sources)} sources")
    if not outputs:
        return float("nan")
    return sum(echoes(out, src, threshold) for out, src in zip(outputs, sources)) / len(outputs)
