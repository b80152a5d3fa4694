"""Translation guard: a translation is checked before it reaches a feed; a failing one is withheld.

:meth:`TranslationGuard.check` runs eight checks on ``(source text, output, source language, target
language)`` and gives a :class:`GuardVerdict`; :meth:`TranslationGuard.deliverable` turns a failing
output into the original text behind a visible marker, ``"[not translated] <original>"``, and a
doubtful one into ``"[unverified] <output> | original: <original>"``, each with a note for the run
report (never a silent drop). The checks:

- ``language`` — lingua (:mod:`aya_lab.langid`) must identify the output as the target language among
  the target, the source and the usual drift languages, or at least give the target a confidence of
  :data:`MIN_TARGET_CONFIDENCE` (close languages such as Spanish and Portuguese are confused on honest
  text, while a wrong-language output gives the target almost none). Only where lingua covers the
  target, and only for outputs of at least :data:`MIN_LANGID_LETTERS` letters (shorter text is not
  identified reliably).
- ``echo`` — the languages differ, the source has at least :data:`MIN_ECHO_WORDS` words, and the output
  equals the source, its sentence chrF against the source is >= :data:`~aya_lab.langid.ECHO_CHRF`, or it
  is a *fragment* of the source (:func:`is_fragment`: at least :data:`FRAGMENT_CONTAINMENT` of its
  character 3-grams occur in the source). Not an echo when lingua identifies the *source* as the target
  language (the user wrote in the target language already, and the prompt says to return it unchanged).
- ``length`` — the output's size over the source's (characters; a character of an unspaced script
  such as Chinese counts :data:`UNSPACED_WEIGHT`) must lie in ``[MIN_RATIO, MAX_RATIO]``; the lower
  bound applies to sources of at least :data:`MIN_RATIO_SOURCE` units, the upper one allows
  :data:`RATIO_SLACK` extra units (short messages vary most).
- ``example`` — the output copies a sentence of the completion prompts' few-shot pool
  (``data/fewshot/translations.yaml``, any language; equal after normalising case and spaces, or
  sentence chrF >= :data:`~aya_lab.langid.ECHO_CHRF` against it) that the source does not.
- ``assistant`` — the output speaks as an assistant (:data:`ASSISTANT_PATTERNS`, in English, French,
  German, Spanish, Portuguese, Swahili and Mandarin) while the source does not.
- ``repetition`` — the output loops (:mod:`aya_lab.agents.repetition`) while the source does not.
- ``numbers`` — the output states a number or a weekday that the source does not
  (:mod:`aya_lab.agents.numbers`, which states its known misses and false positives). An output that
  leaves out one of the source's numbers or weekdays (:func:`~aya_lab.agents.numbers.dropped_facts`) is
  *flagged*: a translation may write a number another way, so a dropped fact is a doubt, not a reason.
- ``faithful`` — the output must be a translation of the source at all
  (:mod:`aya_lab.agents.faithfulness`): its similarity to the source must reach the pair's written
  threshold; where the model that wrote the draft has a record of its own (the guard's ``floor``;
  :func:`guard_translations` takes it by that model's spec,
  :func:`~aya_lab.agents.faithfulness.floor_for`), an output under that model's real-output floor is
  *flagged*, and one into or out of a language the record marks unsupported is withheld without
  scoring. A model without a record gets the written thresholds, and in a room (:func:`guard_translations`,
  ``recorded=False``) every output of it that passes them is *flagged* (:data:`UNRECORDED`): an adapter writes
  fluent English of another meaning that the thresholds pass (notebook 09, "More chat pairs and more steps"), so
  no model's draft arrives unmarked before the model has a record of its own. It runs last and only when every
  other check passed (an output already withheld needs no score), so a withheld output's note names
  the cheaper check that caught it. It does not check facts.

Scripted fake models are not translators: every model declares the checks that apply to its outputs in
``guard_checks`` (:class:`~aya_lab.agents.protocols.TextModel`, read by :func:`checks_for`): a real model
all of them (:data:`ALL_CHECKS`), while ``FakeChatModel`` keeps only ``assistant``. Measured figures:
``data/workplace/README.md`` (false positives, ``benchmarks/guard_fpr.py``) and ``docs/SECURITY.md``
(which also tells how each check came to be).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from aya_lab.agents.faithfulness import RealOutputFloor, faithfulness_verdict, floor_for
from aya_lab.agents.numbers import dropped_facts, unsupported_numbers, unsupported_weekdays
from aya_lab.agents.protocols import TextModel
from aya_lab.agents.repetition import repetition_loop
from aya_lab.errors import InputError
from aya_lab.langid import ECHO_CHRF, confidence, covered, detect, echoes
from aya_lab.languages import get_language
from aya_lab.models.base import ALL_GUARD_CHECKS
from aya_lab.prompts import load_pool
from aya_lab.sentence_chrf import shared_chrf

__all__ = [
    "ALL_CHECKS",
    "ASSISTANT_PATTERNS",
    "MARKER",
    "ORIGINAL",
    "UNRECORDED",
    "UNVERIFIED",
    "GuardVerdict",
    "TranslationGuard",
    "checks_for",
    "guard_translations",
    "is_fragment",
]

MARKER = "[not translated]"
UNVERIFIED = "[unverified]"
ORIGINAL = "| original:"
UNRECORDED = "the translator has no record of its own (data/calibration/README.md): unverified until it is calibrated"
"""The doubt on every output of a translator without a record that passes the written thresholds, in a room."""
ALL_CHECKS: tuple[str, ...] = ALL_GUARD_CHECKS  # spelled in the model layer, below the agents: a model's default
MIN_LANGID_LETTERS = 20
MIN_TARGET_CONFIDENCE = 0.1
MIN_ECHO_WORDS = 3
FRAGMENT_CONTAINMENT = 0.8
MIN_FRAGMENT_WORDS = 2
MIN_RATIO, MAX_RATIO = 0.3, 3.0
MIN_RATIO_SOURCE = 20
RATIO_SLACK = 30
UNSPACED_WEIGHT = 3

ASSISTANT_PATTERNS: tuple[str, ...] = (
    # English
    r"\bI'?m sorry,? but\b",
    r"\bI am sorry,? but\b",
    r"\bI (?:can(?:no|')t|am unable to|won'?t) (?:help|assist|translate|do that|comply)",
    r"\bas an (?:AI|artificial intelligence|assistant|language model)\b",
    r"\b(?:I'?m|I am) (?:an? )?(?:free-spirited )?(?:AI|assistant|language model|chatbot)\b",
    r"\bsure[,!]? here(?:'s| is| are)\b",
    r"\bcertainly[,!]? here(?:'s| is| are)\b",
    r"\bhere(?:'s| is) (?:the|your|my) translation\b",
    r"\bI (?:can|could|would be happy to|'d be happy to) help\b",
    r"\bhow (?:can|may) I (?:help|assist)\b",
    # French
    r"\ben tant qu'(?:IA|intelligence artificielle|assistant)",
    r"\bje suis (?:une? )?(?:IA|assistant|modèle de langage)\b",
    r"\b(?:bien sûr|certainement)[,!]? voici\b",
    r"\bvoici (?:la|votre) traduction\b",
    r"\bje (?:peux|pourrais) (?:vous )?aider\b",
    r"\bcomment (?:puis-je|je peux) (?:vous )?aider\b",
    r"\bje suis désolée?,? mais\b",
    # German
    r"\bals (?:KI|künstliche Intelligenz|Sprachmodell|Assistent)\b",
    r"\bich bin (?:eine? )?(?:KI|Assistent|Sprachmodell)\b",
    r"\b(?:natürlich|sicher|gerne)[,!]? hier (?:ist|sind)\b",
    r"\bhier ist (?:die|Ihre|deine) Übersetzung\b",
    r"\bwie kann ich (?:Ihnen|dir) helfen\b",
    r"\bes tut mir leid,? aber\b",
    # Spanish / Portuguese
    r"\bcomo (?:una? )?(?:IA|inteligencia artificial|inteligência artificial|asistente|assistente|modelo de lenguaje)\b",
    r"\b(?:soy|sou) (?:una? |um )?(?:IA|asistente|assistente|modelo de lenguaje)\b",
    r"\b(?:claro|por supuesto|com certeza)[,!]? (?:aquí|aqui) (?:tienes|está|estão|tiene)\b",
    r"\b(?:aquí|aqui) (?:tienes|está) (?:la|a) tradu(?:cción|ção)\b",
    r"\b¿?en qué puedo ayudar",
    r"\bcomo posso (?:ajudar|te ajudar)\b",
    r"\b(?:lo siento|desculpe),? pero\b",
    # Swahili
    r"\bkama (?:AI|akili bandia|msaidizi)\b",
    r"\bmimi ni (?:AI|msaidizi|akili bandia)\b",
    r"\bhii hapa tafsiri\b",
    r"\bninaweza kukusaidia\b",
    # Mandarin
    r"作为(?:一个)?(?:AI|人工智能|语言模型|助手)",
    r"我是(?:一个)?(?:AI|人工智能|语言模型|助手)",
    r"(?:当然|好的)[，,]?(?:这是|以下是)",
    r"我(?:可以|能)帮(?:助)?你",
)
_ASSISTANT = re.compile("|".join(f"(?:{p})" for p in ASSISTANT_PATTERNS), re.IGNORECASE)


@dataclass(frozen=True)
class GuardVerdict:
    """The checks' outcome: ``ok`` and, when not, one reason per failed check (``"length: ..."``);
    ``doubts`` of an ``ok`` output (the translator's real-output floor not reached) make it ``flagged``."""

    reasons: tuple[str, ...] = ()
    doubts: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.reasons

    @property
    def flagged(self) -> bool:
        """Passed every check but is doubtful: delivered behind :data:`UNVERIFIED`, with the original."""
        return self.ok and bool(self.doubts)


def checks_for(model: TextModel) -> tuple[str, ...]:
    """The checks that apply to ``model``'s outputs: its declared ``guard_checks``."""
    return tuple(model.guard_checks)


def assistant_speak(text: str) -> str | None:
    """The first assistant-speak phrase in ``text`` (see :data:`ASSISTANT_PATTERNS`), or ``None``."""
    found = _ASSISTANT.search(text)
    return found.group(0) if found else None


def _size(text: str, lang: str) -> int:
    return len(text.strip()) * (1 if get_language(lang).spaced else UNSPACED_WEIGHT)


class TranslationGuard:
    """Checks a translation before it reaches a feed (see the module docstring for the checks)."""

    def __init__(
        self,
        checks: Iterable[str] = ALL_CHECKS,
        floor: RealOutputFloor | None = None,
        agreement: float = 0.0,
        *,
        recorded: bool = True,
    ) -> None:
        self.checks, self.floor, self.agreement, self.recorded = tuple(checks), floor, agreement, recorded
        unknown = sorted(set(self.checks) - set(ALL_CHECKS))
        if unknown:
            raise InputError(f"unknown guard check {unknown[0]!r}; checks are {', '.join(ALL_CHECKS)}")

    def check(self, source: str, output: str, src: str, tgt: str, agreement: float | None = None) -> GuardVerdict:
        """The verdict on ``output`` as the ``tgt`` translation of ``source`` (in ``src``); ``agreement``: how
        far the translator's drafts of it agree (:mod:`aya_lab.agents.consensus`), a doubt under the guard's
        ``agreement`` threshold."""
        if not output.strip():
            return GuardVerdict(("empty: the translation is empty",))
        reasons: list[str] = []
        doubts: list[str] = []
        for name in self.checks:
            if name == "faithful":
                if reasons:
                    continue  # withheld already: the encoder's score would change nothing
                reason, doubt = faithfulness_verdict(source, output, src, tgt, self.floor)
                doubt = doubt or (None if reason or self.recorded else UNRECORDED)
                doubts += [f"faithful: {doubt}"] if doubt else []
            elif name == "numbers":
                reason = self._numbers(source, output, src, tgt)
                left_out = dropped_facts(source, output)
                doubts += [f"numbers: the output leaves out {', '.join(left_out[:3])}"] if left_out else []
            else:
                reason = getattr(self, f"_{name}")(source, output, src, tgt)
            if reason:
                reasons.append(f"{name}: {reason}")
        if agreement is not None and agreement < self.agreement:
            doubts.append(f"agreement: the translator's drafts agree {agreement:.2f} < {self.agreement:.2f}")
        return GuardVerdict(tuple(reasons), tuple(doubts))

    def deliverable(
        self, source: str, output: str, src: str, tgt: str, agreement: float | None = None
    ) -> tuple[str, str | None]:
        """``(text to deliver, note)``: ``output`` and ``None`` when it passes; a flagged output
        (:attr:`GuardVerdict.flagged`) behind :data:`UNVERIFIED`, followed by :data:`ORIGINAL` and the
        original; else the original behind :data:`MARKER`. The one-line note names the languages, the
        failed checks or doubts and the draft (as a JSON string, last: what the model wrote stays in the
        run report)."""
        if src == tgt:
            return output, None
        verdict = self.check(source, output, src, tgt, agreement)
        if verdict.ok and not verdict.flagged:
            return output, None
        draft = json.dumps(output, ensure_ascii=False)
        if verdict.flagged:
            why = "; ".join(verdict.doubts)
            note = f"translation {src}->{tgt} unverified ({why}); delivered with the original; draft {draft}"
            return f"{UNVERIFIED} {output.strip()} {ORIGINAL} {source}", note
        note = (
            f"translation {src}->{tgt} withheld ({'; '.join(verdict.reasons)}); delivered the original; draft {draft}"
        )
        return f"{MARKER} {source}", note

    @staticmethod
    def flagged_draft(delivered: str, source: str) -> str | None:
        """The draft inside a flagged delivery of ``source`` (what :meth:`deliverable` writes,
        ``[unverified] <draft> | original: <source>``), else ``None``: a passing or withheld delivery, or a
        text that only looks flagged (its original is not ``source``)."""
        suffix = f" {ORIGINAL} {source}"
        if not delivered.startswith(f"{UNVERIFIED} ") or not delivered.endswith(suffix):
            return None
        return delivered.removeprefix(f"{UNVERIFIED} ").removesuffix(suffix).strip() or None

    # -- the checks: each returns a reason when it fails, else None ------------------------------------
    def _language(self, source: str, output: str, src: str, tgt: str) -> str | None:
        if not covered(tgt) or sum(ch.isalpha() for ch in output) < MIN_LANGID_LETTERS:
            return None
        found = detect(output, tgt, src)
        expected = get_language(tgt).lingua
        if found is None or found == expected:
            return None
        conf = confidence(output, tgt, src) or 0.0
        if conf >= MIN_TARGET_CONFIDENCE:
            return None  # a close second (Spanish read as Portuguese): not evidence of a wrong language
        return f"lingua identifies {found.lower()}, not {str(expected).lower()} (confidence {conf:.2f})"

    def _echo(self, source: str, output: str, src: str, tgt: str) -> str | None:
        short = len(source.split()) < MIN_ECHO_WORDS if get_language(src).spaced else len(source.strip()) < 6
        if src == tgt or short:
            return None
        same = echoes(output, source)
        part = not same and is_fragment(output, source, tgt)
        if not (same or part):
            return None
        if covered(tgt) and detect(source, tgt, src) == get_language(tgt).lingua:
            return None  # the source is in the target language already: returning it is right
        return "the output copies part of the source" if part else "the output copies the source"

    def _length(self, source: str, output: str, src: str, tgt: str) -> str | None:
        s, o = _size(source, src), _size(output, tgt)
        if s >= MIN_RATIO_SOURCE and o < MIN_RATIO * s:
            return f"output/source length {o / s:.2f} < {MIN_RATIO}"
        if o > MAX_RATIO * s + RATIO_SLACK:
            return f"output/source length {o / max(s, 1):.2f} > {MAX_RATIO}"
        return None

    def _example(self, source: str, output: str, src: str, tgt: str) -> str | None:
        out, in_source, chrf = _norm(output), _norm(source), shared_chrf()
        for sentence in _pool_sentences():
            norm = _norm(sentence)
            if norm in in_source or len(norm) < 12:
                continue
            if out == norm or chrf.reaches(output, sentence, ECHO_CHRF):
                return f"the output copies a few-shot example ({sentence[:40]!r})"
        return None

    def _assistant(self, source: str, output: str, src: str, tgt: str) -> str | None:
        phrase = assistant_speak(output)
        if phrase is None or assistant_speak(source) is not None:
            return None
        return f"assistant-speak {phrase!r} instead of a translation"

    def _repetition(self, source: str, output: str, src: str, tgt: str) -> str | None:
        reason = repetition_loop(output)
        return None if reason is None or repetition_loop(source) is not None else f"the output loops: {reason}"

    def _numbers(self, source: str, output: str, src: str, tgt: str) -> str | None:
        extra = unsupported_numbers(source, output) + unsupported_weekdays(source, output)
        return f"the output states {', '.join(extra[:3])}, which the source does not" if extra else None


def _trigrams(text: str) -> set[str]:
    padded = f" {' '.join(unicodedata.normalize('NFC', text).casefold().split())} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def is_fragment(output: str, source: str, lang: str) -> bool:
    """Whether ``output`` (in ``lang``) is made of the source's own text: at least
    :data:`MIN_FRAGMENT_WORDS` words (6 characters in an unspaced script), and at least
    :data:`FRAGMENT_CONTAINMENT` of its character 3-grams occur in ``source``."""
    long_enough = len(output.split()) >= MIN_FRAGMENT_WORDS if get_language(lang).spaced else len(output.strip()) >= 6
    grams = _trigrams(output)
    return long_enough and bool(grams) and len(grams & _trigrams(source)) / len(grams) >= FRAGMENT_CONTAINMENT


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _pool_sentences() -> list[str]:
    """Every sentence of the translation pool (any language); none when the pool is missing."""
    try:
        records = load_pool("translations")
    except ValueError:
        return []
    return [text for record in records for text in record.values() if isinstance(text, str)]


def guard_translations(
    source: str,
    src: str,
    translations: dict[str, str],
    model: TextModel,
    *,
    label: str = "message",
    agreements: dict[str, float | None] | None = None,
    agreement: float = 0.0,
) -> tuple[dict[str, str], list[str]]:
    """``translations`` (``{lang: text}``), written by ``model``, checked against ``source`` (in ``src``)
    with the checks that apply to ``model`` (:func:`checks_for`) and ``model``'s own record
    (:func:`~aya_lab.agents.faithfulness.floor_for`; none: the written thresholds alone), each with its
    drafts' agreement from ``agreements`` (doubtful under ``agreement``):
    ``(texts to deliver, run-report notes)``; each withheld translation becomes :data:`MARKER` + the
    original and gets one note starting with ``label``."""
    floor = floor_for(model)
    guard = TranslationGuard(checks_for(model), floor, agreement, recorded=floor is not None)
    out, notes = {}, []
    for lang, text in translations.items():
        out[lang], note = guard.deliverable(source, text, src, lang, (agreements or {}).get(lang))
        if note:
            notes.append(f"{label}: {note}")
    return out, notes
