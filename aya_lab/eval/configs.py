"""The typed configs of the evaluation tasks: one pydantic model per task, light enough for the CLI.

Each field is an option of :func:`aya_lab.eval.run` (``run("summaries", n=5)``) and of the generated
command ``aya-lab eval run summaries --n 5``: its type, default, bounds and description are the option's.
A field typed :class:`ModelRef` takes a model spec string on the command line and, from Python, also a
loaded model. A bad value is refused before any data is loaded or model called, in one line naming the
option, what was given and what is allowed. This module imports only pydantic and light name tables.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, SkipValidation, field_validator

from aya_lab.agents.summarizer_names import SUMMARIZER_VARIANTS
from aya_lab.eval.names import SUMMARY_FLOORS, SequencePath, SequenceRouter, SequenceSet

__all__ = ["CONFIGS", "ModelRef", "RoutingConfig", "SequencesConfig", "SummariesConfig", "TaskConfig"]

ModelRef = Annotated[object, SkipValidation, Field(json_schema_extra={"cli": "spec"})]
"""A model: a spec string (``smollm2``, ``hf:ID``, ``llama:PATH``) or, from Python, a loaded model."""


class TaskConfig(BaseModel):
    """The base of every task config: frozen, and a misspelt option is an error, not ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)


class SummariesConfig(TaskConfig):
    """Summarizer variants (and the floors) on the project's transcripts; the first is the baseline."""

    variants: list[str] = Field(
        default_factory=lambda: [*SUMMARIZER_VARIANTS, *SUMMARY_FLOORS],
        min_length=1,
        description=f"summarizer variants ({', '.join(SUMMARIZER_VARIANTS)}) or floors (copy-transcript, lead-N)",
    )
    model: ModelRef = Field(default=None, description="the chat model (default AYA_LAB_MODEL or smollm2)")
    n: int | None = Field(default=None, gt=0, le=10_000_000, description="the first N transcripts (all when unset)")
    translate_requests: bool = Field(default=True, description="bring a request into English first, as the room")
    n_bootstrap: int = Field(default=1000, ge=0, le=100_000, description="bootstrap resamples for CIs and tests")
    seed: int = Field(default=0, ge=0, description="the resampling seed")
    progress: bool | None = Field(default=None, description="a progress bar (default: when stderr is a terminal)")


_TRANSLATE = (
    "which text is routed: true (translate first, the room's path), false (as written), gold (the set's "
    "English) or auto (the translation unless it is not English)"
)
_TRANSLATE_SPELLINGS: dict[str, bool | str] = {"true": True, "model": True, "false": False, "none": False}
_TRANSLATE_SPELLINGS |= {"gold": "gold", "auto": "auto"}


class RoutingConfig(TaskConfig):
    """Supervisor prompt variants routing the labelled requests; the first is the baseline."""

    variants: list[str] = Field(
        default_factory=lambda: ["baseline", "fewshot"],
        min_length=1,
        description="supervisor prompt variants (names under prompts/supervisor/ or prompt files)",
    )
    model: ModelRef = Field(default=None, description="the routing model (default AYA_LAB_MODEL or smollm2)")
    translator: ModelRef = Field(default=None, description="the model that translates requests (default: model)")
    data: str | None = Field(
        default=None, description="the requests: a set name (unseen) or a JSONL file (default requests.jsonl)"
    )
    n: int | None = Field(default=None, gt=0, le=10_000_000, description="the first N requests (all when unset)")
    translate: bool | Literal["gold", "auto"] = Field(default=True, description=_TRANSLATE)
    n_bootstrap: int = Field(default=1000, ge=0, le=100_000, description="bootstrap resamples for CIs and tests")
    seed: int = Field(default=0, ge=0, description="the resampling seed")

    @field_validator("translate", mode="before")
    @classmethod
    def _translate_spelling(cls, value: object) -> object:
        """``true``/``model``, ``false``/``none``, ``gold`` or ``auto`` (the ``eval route`` spellings too)."""
        if isinstance(value, bool):
            return value
        spelled = _TRANSLATE_SPELLINGS.get(str(value).strip().lower())
        if spelled is None:
            raise ValueError("use true, false, gold or auto")
        return spelled


def _routers() -> list[SequenceRouter]:
    return ["keyword", "llm", "multi"]


def _paths() -> list[SequencePath]:
    return ["room", "original"]


def _sets() -> list[SequenceSet]:
    return ["single", "multi"]


class SequencesConfig(TaskConfig):
    """Routers choosing every tool each request needs, per path and labelled set; the first is the baseline."""

    routers: list[SequenceRouter] = Field(default_factory=_routers, min_length=1, description="routers to run")
    paths: list[SequencePath] = Field(default_factory=_paths, min_length=1, description="which text each run routes")
    sets: list[SequenceSet] = Field(default_factory=_sets, min_length=1, description="the labelled sets")
    model: ModelRef = Field(default=None, description="the routing model (default AYA_LAB_MODEL or smollm2)")
    translator: ModelRef = Field(default=None, description="the model that translates requests (default: model)")
    prompt: str = Field(default="supervisor/baseline", description="the llm and multi routers' supervisor prompt")
    loop_prompt: str | None = Field(default=None, description="the loop router's prompt (default router_loop/baseline)")
    data: str | None = Field(
        default=None, description="the single set: a set name (unseen) or a JSONL file (default requests.jsonl)"
    )
    multi_data: str | None = Field(default=None, description="the multi set: a JSONL file (default multi_intent.jsonl)")
    n: int | None = Field(default=None, gt=0, le=10_000_000, description="the first N requests of each set")
    n_bootstrap: int = Field(default=1000, ge=0, le=100_000, description="bootstrap resamples for CIs and tests")
    seed: int = Field(default=0, ge=0, description="the resampling seed")


CONFIGS: dict[str, type[TaskConfig]] = {
    "summaries": SummariesConfig,
    "routing": RoutingConfig,
    "sequences": SequencesConfig,
}
"""The config of each built-in task that the generated command covers, by task name."""
