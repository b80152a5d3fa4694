"""Echo checks: outputs that copy their source, or copy an example of the completion prompt.

A base model prompted with few-shot examples sometimes repeats one of those examples instead of
translating: its output is fluent target-language text, so the language check passes and chrF
against the reference can beat the copy floor, yet nothing was translated. An output **echoes**

- its **source** when sacrebleu's sentence chrF against the source is at least
  :data:`~aya_lab.eval.langid.ECHO_CHRF` (80; identical text scores 100) — as
  :func:`aya_lab.eval.langid.echo_share` has always counted;
- an **example** when it equals, after normalisation (case, spacing, surrounding punctuation), or
  scores sentence chrF >= 80 against either side (source or target language of the pair) of any record
  of the completion prompts' few-shot pool (:data:`FEWSHOT_POOL`, ``data/fewshot/translations.yaml``
  via :func:`aya_lab.prompts.load_pool`).

Simplification: the whole pool's sentences in the pair's two languages are checked, not only the
(up to) three examples a prompt happened to show; a pool record never comes from a test set, so a
real translation does not match one by chance.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from aya_lab.eval.langid import ECHO_CHRF
from aya_lab.languages import UnknownLanguageError, get_language
from aya_lab.prompts import PromptError, load_pool

__all__ = ["FEWSHOT_POOL", "pool_sentences", "echo_flags", "echo_shares"]

FEWSHOT_POOL = "translations"
"""The few-shot pool the completion translation prompts draw their examples from."""

_EDGE = re.compile(r"^[\W_]+|[\W_]+$")


def _norm(text: str) -> str:
    text = " ".join(unicodedata.normalize("NFC", text).casefold().split())
    return _EDGE.sub("", text)


def _code(key: str) -> str | None:
    try:
        return get_language(key).code
    except (UnknownLanguageError, ValueError):
        return None


def pool_sentences(src: str, tgt: str, pool: str = FEWSHOT_POOL) -> list[str]:
    """Sentences of few-shot ``pool`` in the source or target language of the pair (empty when the pool
    lacks both languages, or is missing: then no prompt could have shown an example)."""
    wanted = {get_language(src).code, get_language(tgt).code}
    try:
        records = load_pool(pool)
    except PromptError:
        return []
    return [text for record in records for key, text in record.items() if _code(key) in wanted and text.strip()]


def _chrf_at_least(chrf, out: str, refs: Sequence[str], threshold: float) -> bool:
    return any(chrf.sentence_score(out, [ref]).score >= threshold for ref in refs)


def echo_flags(
    outputs: Sequence[str],
    sources: Sequence[str],
    src: str,
    tgt: str,
    *,
    examples: Sequence[str] | None = None,
    threshold: float = ECHO_CHRF,
) -> list[tuple[bool, bool]]:
    """Per output, ``(echoes its source, echoes a few-shot example)``.

    ``examples`` defaults to :func:`pool_sentences` of the pair. Empty outputs echo nothing.
    """
    from sacrebleu.metrics import CHRF

    if len(outputs) != len(sources):
        raise ValueError(f"{len(outputs)} outputs but {len(sources)} sources")
    examples = pool_sentences(src, tgt) if examples is None else list(examples)
    normed = {_norm(e) for e in examples}
    chrf = CHRF()
    flags = []
    for out, source in zip(outputs, sources):
        text = out.strip()
        if not text:
            flags.append((False, False))
            continue
        of_source = text == source.strip() or _chrf_at_least(chrf, out, [source], threshold)
        of_example = _norm(text) in normed or _chrf_at_least(chrf, out, examples, threshold)
        flags.append((of_source, of_example))
    return flags


def echo_shares(
    outputs: Sequence[str], sources: Sequence[str], src: str, tgt: str, *, examples: Sequence[str] | None = None
) -> dict[str, float]:
    """``echo_source_share``, ``echo_example_share`` and ``echo_share`` (either kind) of ``outputs``, 0..1
    (NaN for no outputs)."""
    flags = echo_flags(outputs, sources, src, tgt, examples=examples)
    if not flags:
        nan = float("nan")
        return {"echo_share": nan, "echo_source_share": nan, "echo_example_share": nan}
    n = len(flags)
    return {
        "echo_share": sum(a or b for a, b in flags) / n,
        "echo_source_share": sum(a for a, _ in flags) / n,
        "echo_example_share": sum(b for _, b in flags) / n,
    }
