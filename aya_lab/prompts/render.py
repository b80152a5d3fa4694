"""Rendering: a prompt file and the caller's values -> the messages a model is sent.

Templates use Python ``{name}`` fields (write ``{{``/``}}`` for literal braces; :func:`template_fields`).
:func:`render_messages` checks the variables first: a missing one is named (``prompt
'user_translate/baseline' needs variable 'target_language'``), an unexpected one too. Then every
value the prompt lists as ``untrusted`` is kept inside the template's delimiter tags and, in
completion prompts, on one line (:func:`spotlit`, :mod:`aya_lab.spotlight`).

A chat prompt renders to an optional ``SystemMessage`` and a ``HumanMessage``. A completion prompt
renders to one ``HumanMessage`` carrying its stop strings (:mod:`aya_lab.prompts.completion`), with
its few-shot examples (:func:`examples_block`) put where the template says ``{examples}``.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, Protocol

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from aya_lab.prompts.completion import COMPLETION_KEY
from aya_lab.prompts.errors import PromptError
from aya_lab.prompts.fewshot import ExamplesSpec, fewshot_dir, spec_keys, spec_records
from aya_lab.spotlight import delimiter_tags, spotlight_value

__all__ = ["RenderablePrompt", "examples_block", "nearest_records", "render_messages", "spotlit", "template_fields"]


class RenderablePrompt(Protocol):
    """What rendering reads of a prompt: :class:`~aya_lab.prompts.file.PromptFile` is one (it renders itself
    through this module, so this module names the fields rather than importing it)."""

    @property
    def name(self) -> str: ...
    @property
    def format(self) -> str: ...
    @property
    def system(self) -> str | None: ...
    @property
    def user(self) -> str: ...
    @property
    def defaults(self) -> Mapping[str, str]: ...
    @property
    def examples(self) -> ExamplesSpec | None: ...
    @property
    def untrusted(self) -> Sequence[str]: ...
    @property
    def variables(self) -> set[str]: ...
    @property
    def stop_strings(self) -> list[str]: ...


def template_fields(text: str) -> set[str]:
    """The ``{name}`` fields of a template (literal ``{{``/``}}`` braces are not fields)."""
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def render_messages(prompt: RenderablePrompt, values: dict[str, Any]) -> list[BaseMessage]:
    """What :meth:`PromptFile.render` returns for ``values`` (see the module docstring)."""
    if prompt.examples is not None:
        spec_records(prompt.examples)  # a missing pool is named before any variable
    merged, variables = {**prompt.defaults, **values}, prompt.variables
    missing = sorted(variables - set(merged))
    if missing:
        raise PromptError(f"prompt {prompt.name!r} needs variable {missing[0]!r}; pass {missing[0]}=...")
    unexpected = sorted(set(values) - variables - set(prompt.defaults))
    if unexpected:
        raise PromptError(
            f"prompt {prompt.name!r} has no variable {unexpected[0]!r}; its variables are {', '.join(sorted(variables))}"
        )
    merged = spotlit(prompt, merged)
    if prompt.format == "completion":
        if prompt.examples is not None:
            merged["examples"] = examples_block(prompt, merged)
        text = prompt.user.format(**merged)
        return [HumanMessage(text, additional_kwargs={COMPLETION_KEY: {"stop": prompt.stop_strings}})]
    out: list[BaseMessage] = []
    if prompt.system:
        out.append(SystemMessage(prompt.system.format(**merged)))
    out.append(HumanMessage(prompt.user.format(**merged)))
    return out


def spotlit(prompt: RenderablePrompt, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with each of ``prompt.untrusted`` kept inside its delimiters (:mod:`aya_lab.spotlight`)."""
    if not prompt.untrusted:
        return values
    tags = delimiter_tags(prompt.system or "", prompt.user)
    single = prompt.format == "completion"
    return {k: spotlight_value(v, tags, single_line=single) if k in prompt.untrusted else v for k, v in values.items()}


def examples_block(prompt: RenderablePrompt, values: dict[str, Any]) -> str:
    """The few-shot examples of a completion prompt, each written with ``examples.template``.

    The records that have every needed key and repeat no render value: the first ``k`` of the pool (in
    file order) or, with ``examples.nearest``, the ``k`` most alike to the input after ``skip`` (see
    :class:`~aya_lab.prompts.fewshot.ExamplesSpec`); fewer than ``min`` (default ``k``) is a
    :class:`PromptError` naming the pool.
    """
    spec = prompt.examples
    assert spec is not None
    keys_in_pool = spec_keys(spec)
    record_keys = {f: f for f in template_fields(spec.template) if f in keys_in_pool}
    record_keys.update({f: key.format(**values) for f, key in spec.keys.items()})
    taken = {str(v).strip() for v in values.values() if str(v).strip()}
    usable = []
    for record in spec_records(spec):
        texts = {f: str(record.get(k) or "").strip() for f, k in record_keys.items()}
        if all(texts.values()) and not taken & set(texts.values()):
            usable.append(texts)
    if spec.nearest is None:
        chosen = usable[: spec.k]
    else:
        chosen = nearest_records(usable, spec.nearest.field, str(values.get(spec.nearest.value, "")), spec.k, spec.skip)
    need = spec.k if spec.min is None else spec.min
    if len(chosen) < need:
        wanted = ", ".join(sorted(set(record_keys.values())))
        raise PromptError(
            f"prompt {prompt.name!r} needs {need} examples with {wanted} from pool {spec.pool!r} but found "
            f"{len(chosen)}; add records with those keys to "
            + (
                f"its inline records ({spec.pool})"
                if spec.records is not None
                else str(fewshot_dir() / f"{spec.pool}.yaml")
            )
        )
    return "".join(spec.template.format(**{**values, **texts}) + spec.separator for texts in chosen)


def nearest_records(
    records: list[dict[str, str]], field: str, text: str, k: int, skip: int = 0
) -> list[dict[str, str]]:
    """The ``k`` of ``records`` whose ``field`` is most like ``text`` by sentence chrF (ties: the earlier
    record), after the ``skip`` most alike, least alike first."""
    ranked = _ranking(tuple(r.get(field, "") for r in records), text)[skip : skip + k]
    return [records[i] for i in reversed(ranked)]


@lru_cache(maxsize=1024)
def _ranking(candidates: tuple[str, ...], text: str) -> tuple[int, ...]:
    """The indices of ``candidates``, the most like ``text`` by sentence chrF first (ties: the earlier).
    Cached: a room ranks one message's pool once, not once per target language and draft."""
    from sacrebleu.metrics import CHRF  # heavy; only for prompts that choose their examples per input

    chrf = CHRF()
    scores = [chrf.sentence_score(c, [text]).score for c in candidates]
    return tuple(sorted(range(len(candidates)), key=lambda i: (-scores[i], i)))
