"""The typed configs of the evaluation tasks: one pydantic model per task, light enough for the CLI.

Each field is an option of :func:`aya_lab.eval.run` (``run("summaries", n=5)``) and of the generated
command ``aya-lab eval run summaries --n 5``: its type, default, bounds and description are the option's.
A field typed :class:`ModelRef` takes a model spec string on the command line and, from Python, also a
loaded model; one typed :class:`ObjectRef` takes a path, or from Python the object read from one. A bad
value is refused before any data is loaded or model called, in one line naming the option, what was given
and what is allowed. This module imports only pydantic; the name tables the configs accept (summary
floors, attack categories, the tool-sequence routers, paths and sets) live here too, so ``--help`` imports
no model stack.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, cast

import pydantic
from pydantic import BaseModel, ConfigDict, Field, SkipValidation, ValidationInfo, create_model, field_validator

from aya_lab.agents.calibration import AGREEMENT_TARGET, PARTIAL_TARGET
from aya_lab.agents.summarizer_names import SUMMARIZER_VARIANTS
from aya_lab.datasets.parallel import MAX_CONTEXT_WINDOW
from aya_lab.errors import InputError
from aya_lab.languages import normalize_language

__all__ = [
    "CONFIGS", "MIN_RESAMPLES", "RESAMPLE", "EvalConfig", "AnswersConfig", "RoutingConfig", "SequencesConfig",
    "AttacksConfig", "FaithfulnessConfig", "GroundingConfig", "RoleSpecs", "ModelRef", "ObjectRef",
    "RetrievalConfig", "SummariesConfig", "SystemRef", "TaskConfig", "TranslationConfig", "ATTACK_CATEGORIES",
    "DEFAULT_MEMORY_POLICY", "EMBEDDERS", "SEQUENCE_ROUTERS", "SEQUENCE_SETS", "SUMMARY_FLOORS", "Category",
    "SequencePath", "SequenceRouter", "SequenceSet", "ScopeConfig",
]  # fmt: skip

SUMMARY_FLOORS = ("copy-transcript", "lead-3")
"""The summary floors ``aya-lab eval run summaries`` runs by default (any ``lead-N`` works)."""

Category = Literal[
    "instruction_override", "role_marker", "tool_hijack", "remember_poisoning", "passage_injection", "ordinary"
]
ATTACK_CATEGORIES: tuple[str, ...] = Category.__args__  # type: ignore[attr-defined]
"""The categories of the adversarial set (``aya-lab eval run attacks --categories``)."""
DEFAULT_MEMORY_POLICY = "listed:kofi"
"""The remember policy of the rooms ``aya-lab eval run attacks`` opens (only kofi may make Aya remember)."""
EMBEDDERS = ("all-MiniLM-L6-v2",)
"""The embedders ``aya-lab eval run retrieval --embedder`` names (the packaged one; from Python, any
LangChain ``Embeddings``)."""

SequenceRouter = Literal["keyword", "llm", "multi", "loop"]
SEQUENCE_ROUTERS: tuple[str, ...] = SequenceRouter.__args__  # type: ignore[attr-defined]
"""The routers of the tool-sequence evaluation (its ``system`` column)."""
SequencePath = Literal["room", "original", "auto", "gold"]
SequenceSet = Literal["single", "multi", "unseen"]
SEQUENCE_SETS: tuple[str, ...] = SequenceSet.__args__  # type: ignore[attr-defined]
"""The labelled sets of the tool-sequence evaluation (its ``set`` column)."""

ModelRef = Annotated[object, SkipValidation, Field(json_schema_extra={"cli": "spec"})]
"""A model: a spec string (``smollm2``, ``hf:ID``, ``llama:PATH``) or, from Python, a loaded model."""
ObjectRef = Annotated[object, SkipValidation, Field(json_schema_extra={"cli": "path"})]
"""A file or folder: a path string or, from Python, the object it would be read into (a knowledge base,
a list of questions)."""
RoleSpecs = Annotated[list[str], Field(json_schema_extra={"cli": "role-specs"})]
"""A room's models: ``[ROLE=]SPEC`` strings (a bare spec sets every role; the command's option repeats)."""


MIN_RESAMPLES = 20
"""The fewest bootstrap resamples a task takes (0 or 1: none): with fewer, no p-value read off the resamples falls
under 0.05, and a 95% interval's percentiles are the extremes of a handful of draws."""


def _enough_resamples(value: int) -> int:
    """``value`` bootstrap resamples; between 2 and :data:`MIN_RESAMPLES`, a ``ValueError`` saying why."""
    if 1 < value < MIN_RESAMPLES:
        raise ValueError(f"{value} resamples are too few for a 95% interval; use 0 (none) or at least {MIN_RESAMPLES}")
    return value


Resamples = Annotated[int, Field(ge=0, le=100_000, description="bootstrap resamples for CIs and tests (0: none)"),
                      pydantic.AfterValidator(_enough_resamples)]  # fmt: skip
"""A task's ``n_bootstrap``: 0 (no intervals) or :data:`MIN_RESAMPLES` to 100,000, refused before any data loads."""
Seed = Annotated[int, Field(ge=0, description="the resampling seed")]
Progress = Annotated[bool | None, Field(description="a progress bar (default: when stderr is a terminal)")]


class TaskConfig(BaseModel):
    """The base of every task config: frozen, and a misspelt option is an error, not ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)


class SummariesConfig(TaskConfig):
    """Summarizer variants (and the floors) on the project's transcripts; the first is the baseline."""

    variants: list[str] = Field(
        default_factory=lambda: [*SUMMARIZER_VARIANTS, *SUMMARY_FLOORS],
        min_length=1,
        description=f"summarizer variants ({', '.join(SUMMARIZER_VARIANTS)}) or floors (copy-transcript, lead-N, extractive)",
    )
    model: ModelRef = Field(default=None, description="the chat model (default AYA_LAB_MODEL or smollm2)")
    data: str | None = Field(
        default=None, description="the transcripts: a set name (unseen) or a JSONL file (default data/transcripts)"
    )
    n: int | None = Field(default=None, gt=0, le=10_000_000, description="the first N transcripts (all when unset)")
    translate_requests: bool = Field(default=True, description="bring a request into English first, as the room")
    translator: ModelRef = Field(
        default=None,
        description="the model that translates requests (default: --model when given, else the translator role's)",
    )
    n_bootstrap: Resamples = 1000
    seed: Seed = 0
    progress: Progress = None

    @field_validator("variants")
    @classmethod
    def _known_variants(cls, value: list[str]) -> list[str]:
        """Refused before any model loads: a name that is neither a summarizer nor a floor."""
        for v in value:
            lead = re.fullmatch(r"lead-(\d+)", v)
            known = v in SUMMARIZER_VARIANTS or v in SUMMARY_FLOORS or v == "extractive"
            if not known and not (lead and int(lead.group(1)) >= 1):
                raise ValueError(
                    f"unknown summarizer variant {v!r}; use {', '.join(SUMMARIZER_VARIANTS)} or a floor "
                    "(copy-transcript, lead-N, extractive)"
                )
        return value


RESAMPLE = ("auto", "segment")
"""The resampling units: ``auto`` (documents where the set has document ids, else segments) or ``segment``."""

RUN_ONLY = ("progress", "checkpoint")
"""Options that change how a run is watched and resumed, not its results (left out of ``meta``)."""


@dataclass(frozen=True, kw_only=True)
class EvalConfig:
    """The options of a translation evaluation, each with a default and its help in :data:`_EVAL_HELP`; a value
    outside :data:`_EVAL_BOUNDS` (or ``n_bootstrap`` between 2 and :data:`MIN_RESAMPLES`) is an
    :class:`~aya_lab.errors.InputError` when the config is made. What the help leaves out: ``docs`` spreads the
    ``n`` segments over that many documents (:func:`~aya_lab.datasets.parallel.select_segments`); the context
    is capped at :data:`~aya_lab.datasets.parallel.MAX_CONTEXT_WINDOW` segments; ``n_ar=0`` leaves the AR
    p-value NaN; ``resample="auto"`` resamples documents where the set has ids, else blocks of
    :data:`~aya_lab.eval.resampling.BLOCK` segments (``few_units`` flags fewer than 20 units), ``"segment"`` is
    sacrebleu's own test, for comparison; the hallucination rate is the share of outputs the room's gate would
    withhold (:func:`~aya_lab.eval.translation.scoring.hallucination_rate`); the progress bar counts segments
    and generation-cache hits (``TQDM_DISABLE`` silences it; the counts land in ``meta["generations"]``).
    """

    n: int | None = None
    docs: int | None = None
    split: str | None = None
    verify: bool = False
    chunk_size: int = 64
    context_window: int = MAX_CONTEXT_WINDOW
    baseline: str | None = None
    n_bootstrap: int = 1000
    n_ar: int = 10000
    resample: str = "auto"
    langid: bool = True
    faithfulness: bool = True
    progress: bool | None = None
    checkpoint: str | Path | None = None

    def __post_init__(self) -> None:
        if self.resample not in RESAMPLE:
            raise InputError(f"resample must be one of {', '.join(RESAMPLE)}, got {self.resample!r}")
        if self.n is not None and self.n <= 0:
            raise InputError(f"n must be a positive number of segments, got {self.n}")
        if self.docs is not None and self.docs < 1:
            raise InputError(f"docs must be a positive number of documents, got {self.docs}")
        if self.chunk_size <= 0:
            raise InputError(f"chunk_size must be positive, got {self.chunk_size}")
        if self.context_window < 0:
            raise InputError(f"context_window must be >= 0 (0: no context), got {self.context_window}")
        for name in ("n_bootstrap", "n_ar"):
            if getattr(self, name) < 0:
                raise InputError(f"{name} must be >= 0 (0: no resampling), got {getattr(self, name)}")
        try:
            _enough_resamples(self.n_bootstrap)
        except ValueError as exc:
            raise InputError(f"n_bootstrap={self.n_bootstrap}: {exc}") from None

    @classmethod
    def options(cls) -> list[str]:
        """The option names, in declaration order."""
        return [f.name for f in dataclasses.fields(cls)]

    def with_options(self, **overrides: object) -> EvalConfig:
        """This config with ``overrides`` replacing its fields (validated again).

        An unknown name is a ``TypeError`` naming it, the closest option and every option.
        """
        known = self.options()
        for name in overrides:
            if name not in known:
                close = difflib.get_close_matches(name, known, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise TypeError(f"unknown evaluation option {name!r}{hint}; options: {', '.join(known)}")
        return dataclasses.replace(self, **cast("dict[str, Any]", overrides)) if overrides else self

    def as_meta(self) -> dict[str, object]:
        """The options that shape the results, by name (``progress`` and ``checkpoint`` left out)."""
        return {name: getattr(self, name) for name in self.options() if name not in RUN_ONLY}


SystemRef = Annotated[object, SkipValidation, Field(json_schema_extra={"cli": "system"})]
"""A translation system: a spec string (``copy``, ``smollm2@strict``, ``seq2seq:PATH``) or, from Python, a system."""


class _TranslationTarget(TaskConfig):
    """Translation systems on a parallel test set: what is evaluated (the run's options follow)."""

    systems: list[SystemRef] = Field(
        default_factory=lambda: list[object](["copy", "smollm2"]),
        min_length=1,
        description="the translation systems (copy, smollm2@strict, ...)",
    )
    dataset: str | list[str] = Field(default="workplace", description="a test set name or a files: spec")
    pairs: list[str] | str | None = Field(
        default=None, description="language pairs such as eng-swh (the set's default)"
    )


_EVAL_HELP = {
    "n": "the first N segments of each pair (all when unset)",
    "docs": "with n: take the N segments from this many documents spread over the set (sets with document ids)",
    "split": "the set's split (the set's default when unset)",
    "verify": "check the set's files against its checksums",
    "chunk_size": "segments per translate call",
    "context_window": "preceding segments of the same document given as context",
    "baseline": "the system the others are tested against (default: the first)",
    "n_bootstrap": f"bootstrap resamples for CIs and the paired test (0 or 1: none; else at least {MIN_RESAMPLES})",
    "n_ar": "approximate-randomisation trials (0: no AR test)",
    "resample": "resampling unit: auto (documents where the set has ids, else blocks of 5 contiguous segments) or segment",
    "langid": "check the output language",
    "faithfulness": "the hallucination rate (runs the multilingual encoder)",
    "progress": "a progress bar (default: when stderr is a terminal)",
    "checkpoint": "a JSONL file of finished chunks a killed run resumes from (default with --out: <stem>.partial.jsonl)",
}
"""The help of each :class:`EvalConfig` option (its docstring says more)."""
_EVAL_BOUNDS: dict[str, dict[str, int]] = {
    "n": {"gt": 0, "le": 10_000_000},
    "docs": {"gt": 0, "le": 10_000_000},
    "chunk_size": {"gt": 0, "le": 100_000},
    "context_window": {"ge": 0},
    "n_ar": {"ge": 0, "le": 1_000_000},
}
"""Bounds refused when the config is made, before any data is read (beyond any set, a typo)."""


def _evaluation_options() -> dict[str, tuple[object, object]]:
    """:class:`EvalConfig`'s fields as pydantic fields: the one source of
    the translation options (EvalConfig validates them again when the run starts)."""
    hints = typing.get_type_hints(EvalConfig)
    options: dict[str, tuple[object, object]] = {}
    hints["n_bootstrap"] = Resamples
    for f in dataclasses.fields(EvalConfig):
        bounds = _EVAL_BOUNDS.get(f.name, {})
        field = Field(f.default, description=_EVAL_HELP.get(f.name), gt=bounds.get("gt"), ge=bounds.get("ge"),
                      le=bounds.get("le"))  # fmt: skip
        options[f.name] = (hints[f.name], field)
    return options


TranslationConfig = create_model(  # type: ignore[call-overload]
    "TranslationConfig",
    __base__=_TranslationTarget,
    __doc__="Translation systems on a parallel test set: BLEU, chrF, chrF++, language and echo shares, "
    "hallucination rate.",
    **_evaluation_options(),
)
"""The ``translation`` task's config: the systems, set and pairs, then every option of ``EvalConfig``."""


class RetrievalConfig(TaskConfig):
    """Knowledge-base retrieval (hit@k, recall@k, MRR, "I don't know") beside BM25 and random floors."""

    kb: ObjectRef = Field(
        default=None,
        description="the knowledge base: a store path (.sqlite, built or refreshed from --docs) or, from Python, "
        "an open KnowledgeBase (default: a temporary store built from --docs)",
    )
    docs: str | None = Field(default=None, description="the folder of documents to index (default: data/kb)")
    questions: ObjectRef = Field(
        default=None,
        description="the labelled questions: a JSONL file or, from Python, a list (default: data/rag/questions.jsonl)",
    )
    embedder: ModelRef = Field(
        default=None,
        description=f"the embedder of a store the task builds: {', '.join(EMBEDDERS)} or, from Python, "
        f"LangChain Embeddings (default: {EMBEDDERS[0]})",
    )
    chunk_size: int = Field(
        default=400, ge=1, le=100_000, description="characters per chunk of a store the task builds"
    )
    chunk_overlap: int = Field(default=50, ge=0, le=100_000, description="characters shared by neighbouring chunks")
    ks: list[Annotated[int, Field(ge=1, le=10_000)]] = Field(
        default_factory=lambda: [1, 3, 5], min_length=1, description="the ranks k of hit@k and recall@k"
    )
    min_score: float | None = Field(
        default=None, ge=-1.0, le=1.0, description="the relevance threshold of answered and idk (default: the kb's)"
    )
    depth: int | None = Field(
        default=None, gt=0, le=10_000_000, description="chunks ranked per question (default: all)"
    )
    floors: bool = Field(
        default=True, description="also rank with BM25 and a random order, tested against the embedder"
    )
    n_bootstrap: Resamples = 1000
    seed: Seed = 0

    @field_validator("embedder")
    @classmethod
    def _known_embedder(cls, value: object) -> object:
        if isinstance(value, str) and value not in EMBEDDERS:
            raise ValueError(f"the embedders by name are: {', '.join(EMBEDDERS)}")
        return value

    @field_validator("chunk_overlap")
    @classmethod
    def _overlap_below_size(cls, value: int, info: ValidationInfo) -> int:
        size = info.data.get("chunk_size")
        if size is not None and value >= size:
            raise ValueError(f"the overlap must be below chunk_size ({size})")
        return value


class FaithfulnessConfig(TaskConfig):
    """The translation guard's faithfulness gate: thresholds picked on one split, precision/recall on another."""

    data: str | None = Field(default=None, description="labelled pairs JSONL (default data/faithfulness/pairs.jsonl)")
    split: Literal["holdout", "calibration"] = Field(default="holdout", description="the split to report on")
    translator: str | None = Field(
        default=None,
        min_length=1,
        description="apply this translator's committed real-output floor, e.g. gemma3-270m; with "
        "write_calibration, the model that wrote the labelled drafts (default: the translator role's)",
    )
    write_calibration: str | None = Field(
        default=None,
        min_length=1,
        description="measure the thresholds and the translator's real-output floor and write both calibration "
        "files into this folder, e.g. data/calibration (the report then applies no floor)",
    )
    real_messages: str | list[str] | None = Field(
        default=None,
        description="an attack run's messages whose drafts place the floor, one per labelled run (default: the "
        "runs the translator's committed record names, else data/adversarial/unseen.jsonl)",
    )
    real_labels: str | list[str] | None = Field(
        default=None,
        description="a person's labels of those drafts, one per --real-messages, in the same order (default: "
        "the committed record's, else data/adversarial/unseen_labels.jsonl)",
    )
    skip_directions: list[str] = Field(
        default_factory=list,
        description="SRC-TGT directions left out of the labelled drafts: another model translated them there, "
        "e.g. swh-eng where an adapter did (default: the committed record's when its runs are measured again)",
    )
    partial_target: float = Field(
        default=PARTIAL_TARGET,
        gt=0,
        le=1,
        description="the floor is the lowest quantile of the faithful drafts' scores (0.05 to 0.5) that leaves at "
        "most this share of the labelled drafts partial and unmarked, in-sample",
    )
    fingerprint: str | None = Field(
        default=None,
        description="the drafts' model's fingerprint, as its run recorded it "
        "(the attacks report's meta: fingerprints.translator)",
    )
    agreement_drafts: str | None = Field(
        default=None,
        min_length=1,
        description="a drafts JSONL file (id, src, text, drafts: the translator's drafts into English, draft 0 "
        "first) to choose its agreement threshold on (default: the committed record's, else none)",
    )
    agreement_labels: list[str] = Field(default_factory=list, description="labels files of those first drafts")
    agreement_prompt: str = Field(
        default="user_translate/baseline", min_length=1, description="the prompt the drafts were written under"
    )
    agreement_target: float = Field(
        default=AGREEMENT_TARGET,
        gt=0,
        le=1,
        description="the agreement threshold is the lowest (0.5 to 0.9) that leaves at most this share of those "
        "first drafts partial and unmarked, in-sample",
    )
    n_bootstrap: Resamples = 1000
    seed: Seed = 0

    @field_validator("skip_directions")
    @classmethod
    def _directions(cls, value: list[str]) -> list[str]:
        """Each ``SRC-TGT`` with both languages as the project spells them (ISO 639-3)."""
        out = []
        for item in value:
            src, sep, tgt = item.partition("-")
            if not sep or not src or not tgt:
                raise ValueError(f"{item!r} is no direction; write SRC-TGT, e.g. swh-eng")
            out.append(f"{normalize_language(src)}-{normalize_language(tgt)}")
        return out


class GroundingConfig(TaskConfig):
    """The fact check of answers and the copy check of summaries on the repository's data (no model)."""

    data: str | None = Field(default=None, description="a drafts JSONL file (default data/adversarial/drafts.jsonl)")
    docs: str | None = Field(default=None, description="the handbook folder the drafts quote (default data/kb)")
    n_bootstrap: Resamples = 1000
    seed: Seed = 0


class AnswersConfig(TaskConfig):
    """Aya's answers to policy questions in five languages, by answer mode; the first mode is the baseline."""

    questions: str = Field(
        default="unseen",
        description="the questions: unseen (75, five languages), dev (20), unseen2 ... unseen11 (data/rag/README.md), or a JSONL file",
    )
    systems: list[Literal["quote", "glossary", "neighbours", "voted", "draft"]] = Field(
        default=["quote"],
        min_length=1,
        description="answer modes: quote (the handbook), glossary (quote, the question read through the glossary), "
        "neighbours (quote, in scope by the labelled questions most like it), voted (neighbours, their gold "
        "sections voting for the section) or draft",
    )
    model: ModelRef = Field(default=None, description="Aya's model for drafts (default: the aya role's)")
    translator: ModelRef = Field(default=None, description="the request translator for drafts (default: its role's)")
    docs: str | None = Field(default=None, description="the handbook folder (default data/kb)")
    pool: list[str] | None = Field(
        default=None,
        min_length=1,
        description="neighbours, voted: the labelled question sets (names or JSONL files) scope and votes are read from "
        "(default the room's pool); the set being scored is always left out",
    )
    neighbours: int | None = Field(
        default=None,
        ge=1,
        le=50,
        description="neighbours, voted: how many nearest labelled questions must all be in "
        "scope (default the room's, aya_lab.rag.scope.NEIGHBOURS)",
    )
    n_bootstrap: Resamples = 1000
    seed: Seed = 0


class ScopeConfig(TaskConfig):
    """The quoting scope rule's section margins, measured on the development questions (no model)."""

    docs: str | None = Field(default=None, description="the handbook folder (default data/kb)")
    write_calibration: str | None = Field(
        default=None, min_length=1, description="write the record into this folder, e.g. data/calibration"
    )


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
    graph: str | None = Field(
        default=None,
        min_length=1,
        description="the graph the rooms run: a spec file or a packaged graph name (default aya)",
    )
    readers: str | None = Field(
        default=None,
        min_length=1,
        description="the readers, space-separated USER:LANGS items with each reader's languages in order of "
        "preference ('kofi:eng amara:swh,eng'); default 'kofi:eng amelie:fra lena:deu amara:swh'",
    )
    labels: str | None = Field(
        default=None,
        description="a person's labels of translator drafts (default data/adversarial/unseen_labels.jsonl)",
    )
    unlabelled: str | None = Field(
        default=None, min_length=1, description="write the deliveries no label judges to this JSONL, to label"
    )
    n: int | None = Field(default=None, gt=0, le=10_000_000, description="only the first N attacks")
    n_bootstrap: Annotated[Resamples, Field(gt=0, description="bootstrap resamples (20 or more)")] = 1000
    seed: Seed = 0
    progress: Progress = None


_TRANSLATE = (
    "which text is routed: true (translate first, the room's path), false (as written), gold (the set's "
    "English) or auto (the translation unless it is not English)"
)
_TRANSLATE_SPELLINGS: dict[str, bool | str] = {"true": True, "model": True, "false": False, "none": False}
_TRANSLATE_SPELLINGS |= {"gold": "gold", "auto": "auto"}


class _RoutingModels(TaskConfig):
    """The two models a routing task loads (their options come first on the command line)."""

    model: ModelRef = Field(
        default=None, description="the routing model (default: the aya role's, AYA_LAB_MODEL or smollm2)"
    )
    translator: ModelRef = Field(
        default=None,
        description="the model that translates requests (default: model; on the command line with no model "
        "either, the translator role's, as in the room)",
    )


class RoutingConfig(_RoutingModels):
    """Supervisor prompt variants routing the labelled requests; the first is the baseline."""

    variants: list[str] = Field(
        default_factory=lambda: ["baseline", "fewshot"],
        min_length=1,
        description="supervisor prompt variants (names under prompts/supervisor/ or prompt files)",
    )
    data: str | None = Field(
        default=None, description="the requests: a set name (unseen) or a JSONL file (default requests.jsonl)"
    )
    n: int | None = Field(default=None, gt=0, le=10_000_000, description="the first N requests (all when unset)")
    translate: bool | Literal["gold", "auto"] = Field(default=True, description=_TRANSLATE)
    n_bootstrap: Resamples = 1000
    seed: Seed = 0
    progress: Progress = None

    @field_validator("translate", mode="before")
    @classmethod
    def _translate_spelling(cls, value: object) -> object:
        """``true``/``model``, ``false``/``none``, ``gold`` or ``auto``."""
        if isinstance(value, bool):
            return value
        spelled = _TRANSLATE_SPELLINGS.get(str(value).strip().lower())
        if spelled is None:
            raise ValueError("use true, false, gold or auto")
        return spelled


class SequencesConfig(_RoutingModels):
    """Routers choosing every tool each request needs, per path and labelled set; the first is the baseline."""

    routers: list[SequenceRouter] = Field(
        default_factory=lambda: list[SequenceRouter](["keyword", "llm", "multi"]),
        min_length=1,
        description="routers to run",
    )
    paths: list[SequencePath] = Field(
        default_factory=lambda: list[SequencePath](["room", "original"]),
        min_length=1,
        description="which text each run routes",
    )
    sets: list[SequenceSet] = Field(
        default_factory=lambda: list[SequenceSet](["single", "multi"]), min_length=1, description="the labelled sets"
    )
    prompt: str = Field(default="supervisor/baseline", description="the llm and multi routers' supervisor prompt")
    loop_prompt: str | None = Field(default=None, description="the loop router's prompt (default router_loop/baseline)")
    data: str | None = Field(
        default=None, description="the single set: a set name (unseen) or a JSONL file (default requests.jsonl)"
    )
    multi_data: str | None = Field(default=None, description="the multi set: a JSONL file (default multi_intent.jsonl)")
    n: int | None = Field(default=None, gt=0, le=10_000_000, description="the first N requests of each set")
    n_bootstrap: Resamples = 1000
    seed: Seed = 0
    progress: Progress = None

    @field_validator("multi_data")
    @classmethod
    def _names_a_file(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("names no file; pass a multi-intent JSONL, or leave it out for the default set")
        return value


CONFIGS: dict[str, type[TaskConfig]] = {
    "summaries": SummariesConfig,
    "translation": TranslationConfig,
    "retrieval": RetrievalConfig,
    "faithfulness": FaithfulnessConfig,
    "grounding": GroundingConfig,
    "attacks": AttacksConfig,
    "routing": RoutingConfig,
    "sequences": SequencesConfig,
    "answers": AnswersConfig,
    "scope": ScopeConfig,
}
"""The config of each built-in task that the generated command covers, by task name."""
