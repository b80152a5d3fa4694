"""One prompt variant as validated data: :class:`PromptFile`, its variables and its content hash.

A prompt file is validated into :class:`PromptFile` (unknown keys rejected; a completion-only key on
a chat prompt, or an ``untrusted`` name that no template uses, is refused with the fix). Every prompt
has a content hash (of the file's canonical content, plus its few-shot pool's bytes) that results
carry, so a changed prompt is a different system. Rendering lives in :mod:`aya_lab.prompts.render`;
:meth:`PromptFile.render` and :meth:`PromptFile.chat_template` are its entry points.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from langchain_core.messages import BaseMessage
from langchain_core.prompts import ChatPromptTemplate
from pydantic import BaseModel, ConfigDict, Field, model_validator

from aya_lab.prompts.errors import PromptError
from aya_lab.prompts.fewshot import ExamplesSpec, pool_hash, spec_keys
from aya_lab.prompts.render import render_messages, spotlit, template_fields

__all__ = ["PromptFile", "SpotlitChatTemplate"]


class PromptFile(BaseModel):
    """One prompt variant: optional system text, a user template, declared variables and defaults."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str
    format: Literal["chat", "completion"] = "chat"
    system: str | None = None
    user: str
    defaults: dict[str, str] = Field(default_factory=dict)
    examples: ExamplesSpec | None = None
    stop: list[str] | None = None
    untrusted: list[str] = Field(default_factory=list)  # variables holding untrusted text (aya_lab.spotlight)
    task: str = ""
    variant: str = ""

    @model_validator(mode="after")
    def _format_fits(self) -> PromptFile:
        if self.format == "chat" and (self.examples is not None or self.stop is not None):
            raise ValueError("examples and stop belong to completion prompts; add 'format: completion'")
        if self.format == "completion" and self.system is not None:
            raise ValueError("a completion prompt has no system message; put its text at the top of 'user'")
        if self.examples is not None and "examples" not in template_fields(self.user):
            raise ValueError("a prompt with examples must place them with {examples} in 'user'")
        near = self.examples.nearest if self.examples is not None else None
        if near is not None and self.examples is not None:
            if near.field not in template_fields(self.examples.template):
                raise ValueError(
                    f"examples.nearest.field {near.field!r} is not a field of examples.template; "
                    "name one of its {fields}"
                )
            if near.value not in template_fields(self.user):
                raise ValueError(
                    f"examples.nearest.value {near.value!r} is not a variable of 'user'; name one of its {{variables}}"
                )
        if self.stop is not None and (not self.stop or not all(self.stop)):
            raise ValueError("stop must list one or more non-empty strings, e.g. ['\\n']")
        used = template_fields(self.system or "") | template_fields(self.user)
        unknown = sorted(set(self.untrusted) - used)
        if unknown:
            raise ValueError(f"untrusted lists {unknown[0]!r}, which no template uses; list only its {{variables}}")
        return self

    @property
    def name(self) -> str:
        return f"{self.task}/{self.variant}"

    @property
    def stop_strings(self) -> list[str]:
        """Where generation stops: ``stop``, or the end of the line for completion prompts."""
        if self.format != "completion":
            return []
        return list(self.stop) if self.stop is not None else ["\n"]

    @property
    def variables(self) -> set[str]:
        """The values a rendering needs: the templates' fields, with ``{examples}`` replaced by the
        example template's fields that no pool record supplies."""
        fields = template_fields(self.system or "") | template_fields(self.user)
        if self.examples is not None:
            fields.discard("examples")
            from_records = set(self.examples.keys) | spec_keys(self.examples)
            fields |= {f for f in template_fields(self.examples.template) if f not in from_records}
            fields |= {f for key in self.examples.keys.values() for f in template_fields(key)}
        return fields

    @property
    def content_hash(self) -> str:
        data = self.model_dump(exclude={"task", "variant"})
        for name, default in (("format", "chat"), ("examples", None), ("stop", None), ("untrusted", [])):
            if data[name] == default:  # fields added later: absent while at their default, so old hashes hold
                del data[name]
        if self.examples is not None and self.examples.records is None:
            del data["examples"]["records"]  # absent while unused, so the hashes of pool prompts hold
            data["pool_sha256"] = pool_hash(self.examples.pool)
        if self.examples is not None:
            for key, unset in (("nearest", None), ("skip", 0)):
                if data["examples"][key] == unset:  # added later: absent at their default, as above
                    del data["examples"][key]
        payload = json.dumps(data, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def with_examples(self, records: Sequence[Mapping[str, str]], label: str, k: int) -> PromptFile:
        """This completion prompt drawing ``k`` examples (every one required) from ``records`` instead of its
        pool file, named ``<variant>+<label>``; the records enter :attr:`content_hash`. ``k=0`` with no
        records is the zero-shot prompt. Raises :class:`PromptError` for a prompt without examples."""
        if self.examples is None:
            raise PromptError(f"prompt {self.name!r} takes no examples; use a completion prompt with examples:")
        rows = tuple({str(key): str(v) for key, v in r.items()} for r in records)
        spec = ExamplesSpec(**{**self.examples.model_dump(), "pool": label, "k": max(k, 1), "min": k, "records": rows})
        return self.model_copy(update={"examples": spec, "variant": f"{self.variant}+{label}"})

    def chat_template(self) -> ChatPromptTemplate:
        """A LangChain template (composes with ``| model``; defaults partially applied) that renders what
        :meth:`render` renders, untrusted values spotlit (a template made from it with ``+`` is not)."""
        if self.format == "completion":
            raise PromptError(f"prompt {self.name!r} is a completion prompt; render it with .render(...)")
        parts = ([("system", self.system)] if self.system else []) + [("human", self.user)]
        template = SpotlitChatTemplate(parts, prompt=self)  # type: ignore[call-arg]  # __init__ infers the rest
        needed = self.variables
        used = {k: v for k, v in self.defaults.items() if k in needed}
        return template.partial(**used) if used else template

    def render(self, **values: Any) -> list[BaseMessage]:
        """The messages for ``values``; raises :class:`PromptError` naming a missing/unexpected variable.

        A completion prompt gives one ``HumanMessage`` (its text is the whole prompt) whose
        ``additional_kwargs[COMPLETION_KEY]`` holds the stop strings.
        """
        return render_messages(self, values)


class SpotlitChatTemplate(ChatPromptTemplate):
    """:meth:`PromptFile.chat_template`: ``prompt.untrusted`` values are spotlit on every (a)format/partial."""

    prompt: PromptFile

    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        return super().format_messages(**spotlit(self.prompt, self._merge_partial_and_user_variables(**kwargs)))

    async def aformat_messages(self, **kwargs: Any) -> list[BaseMessage]:
        merged = self._merge_partial_and_user_variables(**kwargs)
        return await super().aformat_messages(**spotlit(self.prompt, merged))
