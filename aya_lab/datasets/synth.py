"""``aya-lab data synth summarize``: seeded chat transcripts with their gold, written programmatically.

The design's second way to a one-call summarizer is "generating a lot of examples to actually finetune a
LLM"; this writes them, in the evaluators' transcript format (``data/transcripts``: one JSON object per
line, validated by :class:`~aya_lab.datasets.project.Transcript`), so the same loader reads them and
``aya-lab tune summarize-onecall`` trains on them.

How a chat is made (``random.Random(seed)``, so the same seed writes the same bytes):

1. a topic and 3–6 colleagues of another fictional company (:data:`~.synth_phrases.CAST`: names,
   roles, offices); each writes in English or always in their one language of the room's six
   (English, German, French, Spanish, Swahili, Chinese), and every message has its English meaning;
2. 6–16 messages drawn from kinds: a commitment ("I'll send the invoice to Rift Foods by Friday"), a
   request and its acceptance, an instruction to everyone, an offer without commitment, a vague "we
   should", a task reported done, an update on the topic (a question, on track, days late, to the
   Thursday meeting), thanks. Tasks come from the speaker's role (the addressee's, for a request);
   dates and names fill the frames;
3. the gold: an action item (owner, "task date" in English) is attached to the message that commits to
   it (the acceptance, for a request; owner ``all`` for an instruction to everyone); offers, "we
   should" and finished tasks are not action items; the request asks for the last N messages (2 to
   all of them, as digits or words) or for everything (``gold_count`` 0), in one of the six languages;
   the gold list is the action items inside that window, and the reference summary is written from
   the window: its topic and updates, then who will do what, then what was reported done.

The generator reads no evaluation data: its company, cast, vocabulary and frames are its own
(:mod:`~aya_lab.datasets.synth_phrases`), so no test transcript can shape what it writes.
``tests/test_synth.py`` checks the written file against every evaluation transcript set independently (no
shared sentence, no shared speaker). ``forbidden`` sentences, when a caller gives them, are drawn again
(compared case- and punctuation-blind).
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from aya_lab.datasets.project import Transcript
from aya_lab.datasets.synth_phrases import (
    CAST,
    DATES,
    FRAMES,
    INFO,
    LANGS,
    NUMBER_WORDS,
    REQUESTS,
    SLOTS,
    SMALL_NUMBERS,
    TASK_PHRASES,
    TOPICS,
)
from aya_lab.errors import InputError
from aya_lab.whole_files import write_text

__all__ = ["SynthChat", "sentences", "synth_transcripts", "write_synth"]

_KINDS = ("commit", "request", "group", "offer", "vague", "done", "info", "thanks")
_WEIGHTS = (22, 16, 5, 7, 7, 8, 28, 7)
_SPLIT = re.compile(r"(?<=[.!?。！？])\s*")


def _normal(sentence: str) -> str:
    text = unicodedata.normalize("NFKC", sentence).casefold()
    return " ".join(re.sub(r"[^\w\s]", " ", text).split())


def sentences(text: str) -> list[str]:
    """The normalised sentences of ``text`` (split after . ! ? and their CJK forms; case and punctuation dropped)."""
    return [s for s in (_normal(part) for part in _SPLIT.split(text)) if s]


@dataclass
class SynthChat:
    """A chat being written: messages, their English, and the action items committed in them."""

    people: list[tuple[str, str, str]]  # (name, writes in, role)
    topic: tuple[str, ...]
    messages: list[dict[str, str]] = field(default_factory=list)
    items: list[tuple[int, str, str]] = field(default_factory=list)  # (message index, owner, task)
    facts: list[tuple[int, str]] = field(default_factory=list)  # (message index, English fact)
    done: list[tuple[int, str, str]] = field(default_factory=list)  # (message index, who, English noun)
    tasks: set[str] = field(default_factory=set)  # English tasks already in the chat (each appears once)


class _Writer:
    """Draws chats from the phrase tables with one ``random.Random``."""

    def __init__(self, seed: int, forbidden: set[str]) -> None:
        self.rng, self.forbidden = random.Random(seed), forbidden

    def slots(self) -> tuple[dict[str, str], dict[str, str]]:
        """Slot values for one task: (Latin-script forms, Chinese-text forms)."""
        picked = {name: self.rng.choice(values) for name, values in SLOTS.items()}
        return {k: v[0] for k, v in picked.items()}, {k: v[1] for k, v in picked.items()}

    def task_forms(self, role: str) -> tuple[dict[str, str], dict[str, str], str]:
        """``(infinitive forms by language, noun forms by language, English gold task)`` of a task for ``role``."""
        task = self.rng.choice([t for t in TASK_PHRASES if t[0] == role])
        latin, han = self.slots()
        date = self.rng.choice(DATES)
        phrases, nouns = cast(tuple[str, ...], task[1:7]), cast(tuple[str, ...], task[7])
        inf = {lang: phrases[i].format(**(han if lang == "cmn" else latin)) for i, lang in enumerate(LANGS)}
        noun = {lang: nouns[i].format(**(han if lang == "cmn" else latin)) for i, lang in enumerate(LANGS)}
        forms = {lang: inf[lang] for lang in LANGS}
        forms.update({f"date_{lang}": date[i] for i, lang in enumerate(LANGS)})
        return forms, noun, f"{inf['eng']} {date[0]}"

    def frame(self, kind: str, lang: str, variant: int, values: dict[str, str]) -> str:
        """Frame ``variant`` of ``kind`` in ``lang`` with ``values`` (task forms by language, dates, nouns, a name)."""
        frames = FRAMES[kind][LANGS.index(lang)]
        stem, _, obj = values.get("swh", "").partition("|")
        return frames[variant % len(frames)].format(
            task=values.get(lang, ""), date=values.get(f"date_{lang}", ""), name=values.get("name", ""),
            noun=values.get(f"noun_{lang}", ""), stem=stem, obj=obj,
        )  # fmt: skip

    def clean(self, *texts: str) -> bool:
        return not any(s in self.forbidden for text in texts for s in sentences(text))


def _message(chat: SynthChat, sender: tuple[str, str, str], text: str, english: str) -> int:
    name, lang, _ = sender
    if lang == "fra":  # élision before a vowel-initial name: "de Atlas Paper" -> "d'Atlas Paper"
        text = re.sub(r"\b([dD])e (?=[AEIOU])", r"\1'", text)
    chat.messages.append({"sender": name, "lang": lang, "text": text if lang != "eng" else english, "text_en": english})
    return len(chat.messages) - 1


def _say(w: _Writer, chat: SynthChat, kind: str, speaker: tuple[str, str, str], other: tuple[str, str, str]) -> bool:
    """Add the messages of one ``kind`` (False, adding nothing, when a sentence collides with the evaluation's)."""
    variant = w.rng.randrange(4)
    if kind in ("info", "thanks"):
        return _say_info(w, chat, kind, speaker, other, variant)
    forms, noun, gold = w.task_forms(other[2] if kind == "request" else speaker[2])
    if forms["eng"] in chat.tasks:
        return False
    values = {**forms, **{f"noun_{lang}": v for lang, v in noun.items()}, "name": other[0].capitalize()}
    english, text = w.frame(kind, "eng", variant, values), w.frame(kind, speaker[1], variant, values)
    accept = {"name": speaker[0].capitalize()}
    reply_en, reply = w.frame("accept", "eng", variant, accept), w.frame("accept", other[1], variant, accept)
    if not w.clean(text, english, *((reply, reply_en) if kind == "request" else ())):
        return False
    chat.tasks.add(forms["eng"])
    index = _message(chat, speaker, text, english)
    if kind == "request":
        chat.items.append((_message(chat, other, reply, reply_en), other[0], gold))
    elif kind in ("commit", "group"):
        chat.items.append((index, speaker[0] if kind == "commit" else "all", gold))
    elif kind == "done":
        chat.done.append((index, speaker[0], noun["eng"]))
    return True


def _say_info(w: _Writer, chat: SynthChat, kind: str, speaker: tuple[str, str, str], other: tuple[str, str, str], variant: int) -> bool:  # fmt: skip
    col = LANGS.index(speaker[1])
    if kind == "thanks":
        english = FRAMES["thanks"][0][0].format(name=other[0].capitalize())
        text = FRAMES["thanks"][col][0].format(name=other[0].capitalize())
        fact = None
    else:
        row = INFO[variant % len(INFO)]
        n = w.rng.randrange(4)
        t = chat.topic
        values = {
            "t_en": t[0], "T_en": t[0][0].upper() + t[0][1:], "T_de": t[1][0].upper() + t[1][1:], "t_dezu": t[2],
            "t_fr": t[3], "T_fr": t[3][0].upper() + t[3][1:], "t_frde": t[4], "t_es": t[5], "T_es": t[5][0].upper() + t[5][1:],
            "t_sw": t[6], "t_zh": t[7], "name": other[0].capitalize(),
            **{f"n_{k}": v[n] for k, v in SMALL_NUMBERS.items()},
        }  # fmt: skip
        english, text = str(row[1]).format(**values), str(row[1 + col]).format(**values)
        fact = row[0].format(**values) if row[0] is not None else None
    if not w.clean(text, english):
        return False
    index = _message(chat, speaker, text, english)
    if fact is not None and fact not in [f for _, f in chat.facts]:
        chat.facts.append((index, fact))
    return True


def _people(w: _Writer) -> list[tuple[str, str, str]]:
    """3-6 colleagues; each writes this chat in English or in their own language."""
    chosen = w.rng.sample(CAST, w.rng.randint(3, 6))
    return [(name, lang if lang == "eng" or w.rng.random() < 0.7 else "eng", role) for name, lang, role, _ in chosen]


def _chat(w: _Writer) -> SynthChat:
    chat = SynthChat(_people(w), w.rng.choice(TOPICS))
    length = w.rng.randint(6, 16)
    for _ in range(500):
        if len(chat.messages) >= length:
            return chat
        kind = w.rng.choices(_KINDS, _WEIGHTS)[0]
        if kind == "request" and len(chat.messages) > length - 2:
            continue
        speaker, other = w.rng.sample(chat.people, 2)
        _say(w, chat, kind, speaker, other)
    raise InputError("the phrase tables cannot fill a chat without reusing evaluation sentences; widen them")


def _request(w: _Writer, size: int) -> tuple[str, str, int]:
    """``(request, its language, gold_count)``: the last N messages (2..all, digits or words) or everything (0)."""
    for _ in range(100):
        lang = w.rng.choices(LANGS, (50, 10, 10, 10, 10, 10))[0]
        last_n, everything = REQUESTS[lang]
        if w.rng.random() < 0.2:
            text, n = w.rng.choice(everything), 0
        else:
            n = size if w.rng.random() < 0.15 else w.rng.randint(2, size)
            frame = w.rng.choice(last_n)
            text = frame.format(n=n, w=NUMBER_WORDS[lang][n - 2] if n <= 10 else n)
        if w.clean(text):
            return text, lang, n
    raise InputError("the request phrasings all collide with evaluation sentences; widen them")  # pragma: no cover


def _summary(chat: SynthChat, start: int) -> str:
    """The reference summary of the messages from ``start`` on: topic and updates, commitments, finished tasks."""
    facts = [f for i, f in chat.facts if i >= start]
    parts = [f"The messages are about {chat.topic[0]}" + (": " + "; ".join(facts) if facts else "") + "."]
    items = [
        ("Everyone" if owner == "all" else owner.capitalize(), task) for i, owner, task in chat.items if i >= start
    ]
    parts.append(
        "; ".join(f"{owner} will {task}" for owner, task in items) + "." if items else "Nobody takes on a new task."
    )
    done = [f"{who.capitalize()} reports {noun} done" for i, who, noun in chat.done if i >= start]
    if done:
        parts.append("; ".join(done) + ".")
    return " ".join(parts)


def synth_transcripts(n: int, seed: int = 0, forbidden: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """``n`` transcript records (see the module docstring); ``forbidden``: normalised sentences
    (:func:`sentences`) never to write (default: none; the generator reads no evaluation data)."""
    if n < 1:
        raise InputError(f"n must be a positive number of transcripts, got {n}")
    w = _Writer(seed, set(forbidden or ()))
    records = []
    for i in range(n):
        chat = _chat(w)
        request, lang, count = _request(w, len(chat.messages))
        start = len(chat.messages) - count if count else 0
        record = {
            "id": f"s{seed}-{i + 1:04d}",
            "messages": chat.messages,
            "request": request,
            "request_lang": lang,
            "gold_count": count,
            "gold_action_items": [{"owner": o, "task": t} for idx, o, t in chat.items if idx >= start],
            "reference_summary": _summary(chat, start),
        }
        Transcript.model_validate(record)  # the loader's own checks (window, owners) hold by construction
        records.append(record)
    return records


def write_synth(path: str | Path, n: int = 300, seed: int = 0) -> Path:
    """Write :func:`synth_transcripts` to ``path`` as JSONL (UTF-8, LF; through a temporary file)."""
    target = Path(path)
    lines = [json.dumps(r, ensure_ascii=False) for r in synth_transcripts(n, seed)]
    write_text(target, "\n".join(lines) + "\n")
    return target
