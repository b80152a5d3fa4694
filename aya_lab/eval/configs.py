"""The typed configs of the evaluation tasks: one pydantic model per task, light enough for the CLI.

Each field is an option of :func:`aya_lab.eval.run` (``run("summaries", n=5)``) and of the generated
command ``aya-lab eval run summaries --n 5``: its type, default, bounds and description are the option's.
A field typed :class:`ModelRef` takes a model spec string on the command line and, from Python, also a
loaded model. A bad value is refused before any data is loaded or model called, in one line naming the
option, what was given and what is allowed. This module imports only pydantic and light name tables.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, SkipValidation, create_model

from aya_lab.agents.summarizer_names import SUMMARIZER_VARIANTS
from aya_lab.eval.names import SUMMARY_FLOORS
from aya_lab.eval.translation.config import EvalConfig

__all__ = ["CONFIGS", "ModelRef", "SummariesConfig", "SystemRef", "TaskConfig", "TranslationConfig"]

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


SystemRef = Annotated[object, SkipValidation]
"""A translation system: a spec string (``copy``, ``smollm2@strict``, ``seq2seq:PATH``) or, from Python, a system."""


class _TranslationTarget(TaskConfig):
    """Translation systems on a parallel test set: what is evaluated (the run's options follow)."""

    systems: list[SystemRef] = Field(
        default_factory=lambda: list[object](["copy", "smollm2"]),
        min_length=1,
        description="system specs (copy, smollm2@strict, ...)",
    )
    dataset: str | list[str] = Field(default="workplace", description="a test set name or a files: spec")
    pairs: list[str] | str | None = Field(
        default=None, description="language pairs such as eng-swh (the set's default)"
    )


def _evaluation_options() -> dict[str, tuple[object, object]]:
    """:class:`~aya_lab.eval.translation.config.EvalConfig`'s fields as pydantic fields: the one source of
    the translation options (EvalConfig validates them again when the run starts)."""
    hints = typing.get_type_hints(EvalConfig)
    return {f.name: (hints[f.name], f.default) for f in dataclasses.fields(EvalConfig)}


TranslationConfig = create_model(  # type: ignore[call-overload]
    "TranslationConfig", __base__=_TranslationTarget, __doc__=_TranslationTarget.__doc__, **_evaluation_options()
)
"""The ``translation`` task's config: the systems, set and pairs, then every option of ``EvalConfig``."""

CONFIGS: dict[str, type[TaskConfig]] = {"summaries": SummariesConfig, "translation": TranslationConfig}
"""The config of each built-in task that the generated command covers, by task name."""
