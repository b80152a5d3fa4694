"""UserAgent: brings every room message into one language, with the recent conversation as context.

One agent per user, but translation is **per target language, not per user**: :meth:`UserAgent.translate_many`
takes a message and all the languages the room needs and sends one batch to the model. A message
already in a target language is not sent through the model. With ``context_window = K > 0`` the last K
room messages (in the target language where a translation exists) go into the prompt; K = 0 is the
original design's behaviour (it kept a history but never used it). With ``drafts = K > 1`` every translation
comes with K drafts and their agreement, and ``select`` says which draft is delivered
(:mod:`aya_lab.agents.consensus`). With ``sentences=True`` a message of several sentences is drafted one sentence
at a time (:func:`message_sentences`; a message of more than :data:`MAX_SENTENCES` whole), and each draft is its
sentences' drafts joined with the message's own separators (measured in docs/ROOM.md: not shown to deliver more faithful drafts).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.messages import BaseMessage

from aya_lab.agents.consensus import Drafted, Selection, check_selection, consensus, rotated_prompts
from aya_lab.agents.protocols import TextModel
from aya_lab.errors import InputError
from aya_lab.languages import language_name
from aya_lab.messages import ChatMessage
from aya_lab.prompts import PromptFile, choose_prompt, cut_at_stop

__all__ = ["MAX_DRAFTS", "MAX_SENTENCES", "UserAgent", "clean_translation", "message_sentences", "render_context"]

MAX_DRAFTS = 8
"""The most drafts of one translation (each is one more generation per message and language)."""
MAX_SENTENCES = 8
"""The most sentences drafted one at a time; a message of more is drafted whole, so a message of many short
sentences costs no more generations than this many times the drafts."""

_TAGS = re.compile(r"<\s*/?\s*(?:message|request)\s*>", re.I)  # spotlighting delimiters a model echoes
_PREFIX = re.compile(
    r"^\s*(translation|traduction|übersetzung|traducción|tafsiri|output|answer|message)\s*[:：]\s*", re.I
)
_END = re.compile(r"(?P<word>\w*)(?P<mark>[.!?…]+)[\"'»”)\]]*(?P<gap>\s+)(?=[\"'«“(\[]?(?P<next>[¿¡\w]))")


def _opens_sentence(char: str) -> bool:
    return char in "¿¡" or char.isdigit() or char.isupper()


def message_sentences(text: str) -> list[str]:
    """``text`` cut into sentences and the white space between them, alternating: ``[sentence, gap, sentence,
    ...]`` (one item when it is one sentence); ``"".join`` of the result is ``text``. A cut falls after
    ``. ! ? …`` (and a closing quote or bracket) and white space, before a capital, a digit or ``¿ ¡``; after a
    full stop only when the word before it has three letters or more or is a number, so "Dr. Weber",
    "z. B. morgen" and "Nr. 4471" stay whole."""
    parts: list[str] = []
    start = 0
    for end in _END.finditer(text):
        word, mark = end.group("word"), end.group("mark")
        if not _opens_sentence(end.group("next")):
            continue
        if mark == "." and not (len(word) >= 3 or word.isdigit()):
            continue
        parts += [text[start : end.start("gap")], end.group("gap")]
        start = end.end("gap")
    return parts + [text[start:]]


def clean_translation(text: str, target_language: str = "") -> str:
    """Strip what small models wrap around a translation: labels, quotes, trailing notes, and the
    prompts' spotlighting tags (``<message>``/``</message>``, ``<request>``) echoed around it."""
    out = _TAGS.sub("", text).strip()
    if target_language:
        out = re.sub(rf"^\s*{re.escape(target_language)}\s*[:：]\s*", "", out, flags=re.I)
    out = _PREFIX.sub("", out)
    out = out.split("\n\n", 1)[0].strip()
    if len(out) >= 2 and out[0] == out[-1] and out[0] in "\"'«“":
        out = out[1:-1].strip()
    return out or text.strip()


def render_context(history: Sequence[ChatMessage], lang: str, k: int) -> str:
    """The last ``k`` messages as ``sender: text`` lines under a ``Context:`` header ("" when k = 0)."""
    if k <= 0 or not history:
        return ""
    lines = [f"{m.sender}: {m.text_in(lang)}" for m in history[-k:]]
    return "Context (recent messages, do not translate):\n" + "\n".join(lines) + "\n"


class UserAgent:
    """Translates room messages into target languages with a ``user_translate/<variant>`` prompt."""

    def __init__(
        self,
        model: TextModel,
        prompt: str | PromptFile = "user_translate/baseline",
        context_window: int = 0,
        drafts: int = 1,
        select: Selection = "first",
        sentences: bool = False,
    ) -> None:
        if context_window < 0:
            raise InputError(f"context_window must be >= 0; got {context_window}")
        if not 1 <= drafts <= MAX_DRAFTS:
            raise InputError(f"drafts must be from 1 to {MAX_DRAFTS}; got {drafts}")
        self.select: Selection = check_selection(select)
        self.model = model
        self.prompt_choice = choose_prompt(prompt, model)  # a base model gets the baseline's completion variant
        self.prompt = self.prompt_choice.used
        self.context_window = context_window
        self.prompts = rotated_prompts(self.prompt, drafts)  # one per draft; the prompt alone without examples
        self.sentences = sentences

    def conversation(
        self, text: str, source: str, target: str, history: Sequence[ChatMessage] = (), prompt: PromptFile | None = None
    ) -> list[BaseMessage]:
        """The prompt messages translating ``text`` from ``source`` into ``target`` (ISO 639-3 codes), with
        ``prompt`` (default: the agent's own)."""
        values = {
            "target_language": language_name(target),
            "message": text,
            "context": render_context(history, target, self.context_window),
            "source_language": language_name(source),
            "source_code": source,
            "target_code": target,
        }
        prompt = prompt or self.prompt
        needed = prompt.variables  # computed once, not once per value (it reads the pool's keys)
        return prompt.render(**{k: v for k, v in values.items() if k in needed})

    def _clean(self, text: str, target: str) -> str:
        return clean_translation(cut_at_stop(text, self.prompt.stop_strings), language_name(target))

    def translate_texts(
        self, texts: Sequence[str], source: str, target: str, contexts: Sequence[Sequence[ChatMessage]] | None = None
    ) -> list[str]:
        """Translate many texts into one language, as one batch (identity when source == target)."""
        if source == target:
            return list(texts)
        contexts = contexts or [()] * len(texts)
        convs = [self.conversation(t, source, target, c) for t, c in zip(texts, contexts, strict=True)]
        return [self._clean(r.text, target) for r in self.model.generate_texts(convs)]

    def draft_texts(self, texts: Sequence[str], source: str, target: str) -> list[Drafted]:
        """Every text's drafts into one language and their agreement, as one batch (no context; each text
        itself when ``source == target``)."""
        if source == target:
            return [Drafted(t) for t in texts]
        return self._drafts([(t, source, target, ()) for t in texts])

    def translate_many(
        self, message: ChatMessage, targets: Sequence[str], history: Sequence[ChatMessage] = ()
    ) -> dict[str, str]:
        """``{lang: text}`` for every target language, model called once with a batch of the needed ones."""
        return {lang: drafted.text for lang, drafted in self.draft_many(message, targets, history).items()}

    def draft_many(
        self, message: ChatMessage, targets: Sequence[str], history: Sequence[ChatMessage] = ()
    ) -> dict[str, Drafted]:
        """``{lang: Drafted}`` for every target language: the model called once with a batch of every draft
        of the needed ones (:attr:`prompts`), each language's draft 0 with its agreement
        (:func:`~aya_lab.agents.consensus.consensus`); the message itself, one draft, in its own language."""
        needed = [t for t in dict.fromkeys(targets) if t != message.lang]
        out = {t: Drafted(message.content) for t in targets if t == message.lang}
        if needed:
            jobs = [(message.content, message.lang, t, history) for t in needed]
            out |= dict(zip(needed, self._drafts(jobs), strict=True))
        return out

    def _drafts(self, jobs: Sequence[tuple[str, str, str, Sequence[ChatMessage]]]) -> list[Drafted]:
        """Each ``(text, source, target, history)`` job's drafts (one per :attr:`prompts`, cleaned; with
        :attr:`sentences`, each sentence drafted alone and the drafts joined with the text's own gaps) and their
        agreement (:func:`~aya_lab.agents.consensus.consensus`), every draft of every job in one model batch."""
        pieces = [_pieces(job[0]) if self.sentences else [job[0]] for job in jobs]
        convs = [
            self.conversation(sentence, src, tgt, history, p)
            for (_, src, tgt, history), parts in zip(jobs, pieces, strict=True)
            for sentence in parts[::2]
            for p in self.prompts
        ]
        texts = iter([r.text for r in self.model.generate_texts(convs)])
        out = []
        for job, parts in zip(jobs, pieces, strict=True):
            by_sentence = [[self._clean(next(texts), job[2]) for _ in self.prompts] for _ in parts[::2]]
            drafts = [_joined([d[j] for d in by_sentence], parts[1::2]) for j in range(len(self.prompts))]
            out.append(consensus(drafts, job[0], self.select))
        return out


def _pieces(text: str) -> list[str]:
    """``text``'s sentences and gaps (:func:`message_sentences`), or ``text`` whole past :data:`MAX_SENTENCES`."""
    parts = message_sentences(text)
    return parts if len(parts) <= 2 * MAX_SENTENCES - 1 else [text]


def _joined(sentences: Sequence[str], gaps: Sequence[str]) -> str:
    """``sentences`` put back together with the ``gaps`` that separated their sources."""
    return "".join(s + g for s, g in zip(sentences, [*gaps, ""], strict=True))
