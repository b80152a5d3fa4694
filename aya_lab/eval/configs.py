"""The typed configs of the evaluation tasks: one pydantic model per task, light enough for the CLI.

Each field is an option of :func:`aya_lab.eval.run` (``run("summaries", n=5)``) and of the generated
command ``aya-lab eval run summaries --n 5``: its type, default, bounds and description are the option's.
A field typed :class:`ModelRef` takes a model spec string on the command line and, from Python, also a
loaded model. A bad value is refused before any data is loaded or model called, in one line naming the
option, what was given and what is allowed. This module imports only pydantic and light name tables.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, SkipValidation

from aya_lab.agents.summarizer_names import SUMMARIZER_VARIANTS
from aya_lab.eval.names import ATTACK_CATEGORIES, DEFAULT_MEMORY_POLICY, SUMMARY_FLOORS, Category

__all__ = [
    "CONFIGS",
    "AttacksConfig",
    "FaithfulnessConfig",
    "GroundingConfig",
    "ModelRef",
    "RoleSpecs",
    "SummariesConfig",
    "TaskConfig",
]

ModelRef = Annotated[object, SkipValidation, Field(json_schema_extra={"cli": "spec"})]
"""A model: a spec string (``smollm2``, ``hf:ID``, ``llama:PATH``) or, from Python, a loaded model."""
RoleSpecs = Annotated[list[str], Field(json_schema_extra={"cli": "role-specs"})]
"""A room's models: ``[ROLE=]SPEC`` strings (a bare spec sets every role; the command's option repeats)."""


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


class FaithfulnessConfig(TaskConfig):
    """The translation guard's faithfulness gate: thresholds picked on one split, precision/recall on another."""

    data: str | None = Field(default=None, description="labelled pairs JSONL (default data/faithfulness/pairs.jsonl)")
    split: Literal["holdout", "calibration"] = Field(default="holdout", description="the split to report on")
    translator: str | None = Field(
        default=None, min_length=1, description="apply this translator's committed real-output floor, e.g. gemma3-270m"
    )
    n_bootstrap: int = Field(default=1000, ge=0, le=100_000, description="bootstrap resamples for the 95% CIs")
    seed: int = Field(default=0, ge=0, description="the resampling seed")


class GroundingConfig(TaskConfig):
    """The fact check of answers and the copy check of summaries on the repository's data (no model)."""

    data: str | None = Field(default=None, description="a drafts JSONL file (default data/adversarial/drafts.jsonl)")
    docs: str | None = Field(default=None, description="the handbook folder the drafts quote (default data/kb)")
    n_bootstrap: int = Field(default=1000, ge=0, le=100_000, description="bootstrap resamples for the 95% CIs")
    seed: int = Field(default=0, ge=0, description="the resampling seed")


class AttacksConfig(TaskConfig):
    """The adversarial set, each attack in a fresh room; attack success and made-up translations delivered."""

    model: RoleSpecs = Field(default_factory=list, description="the rooms' models")
    max_new_tokens: int = Field(default=128, gt=0, le=1_000_000, description="generation limit")
    batch_size: int = Field(default=8, gt=0, le=100_000, description="prompts per generate")
    data: str | None = Field(default=None, description="an attacks JSONL file (default data/adversarial/attacks.jsonl)")
    categories: list[Category] | None = Field(
        default=None, min_length=1, description=f"only these categories, of {', '.join(ATTACK_CATEGORIES)}"
    )
    kb: str | None = Field(default=None, description="the knowledge-base folder each room copies (default data/kb)")
    memory_policy: str = Field(
        default=DEFAULT_MEMORY_POLICY, description="the rooms' remember policy: anyone, listed:USERS or confirm"
    )
    labels: str | None = Field(
        default=None,
        description="a person's labels of translator drafts (default data/adversarial/unseen_labels.jsonl)",
    )
    n: int | None = Field(default=None, gt=0, le=10_000_000, description="only the first N attacks")
    n_bootstrap: int = Field(default=1000, gt=0, le=100_000, description="bootstrap resamples for the 95% CIs")
    seed: int = Field(default=0, ge=0, description="the resampling seed")
    progress: bool | None = Field(default=None, description="a progress bar (default: when stderr is a terminal)")


CONFIGS: dict[str, type[TaskConfig]] = {
    "summaries": SummariesConfig,
    "faithfulness": FaithfulnessConfig,
    "grounding": GroundingConfig,
    "attacks": AttacksConfig,
}
"""The config of each built-in task that the generated command covers, by task name."""
