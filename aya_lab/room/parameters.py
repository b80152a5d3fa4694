"""The Aya room's node factories' parameters, as pydantic models (a spec's ``factory_parameter``, typed).

Each factory in :mod:`aya_lab.room.nodes` declares one of these models
(:meth:`~aya_lab.graph.registry.Registry.add_node_factory` ``parameters=``), so ``aya-lab graph validate``
reports a bad parameter with its location (``flows[3].factory_parameter.summarizer: ...``) before
anything is built, and ``python -m aya_lab.graph show aya`` lists every parameter with its default.
Unknown keys are refused (``extra="forbid"``); a prompt name must name an existing variant of the task
the node runs. This module is light on purpose: checking a spec imports neither the agents nor a model.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from aya_lab.agents.route_on import RouteOn
from aya_lab.paths import prompts_dir

__all__ = [
    "ROOM_ROUTE_ON",
    "DeliveryParameters",
    "IngestParameters",
    "SupervisorParameters",
    "TranslatorParameters",
]

ROOM_ROUTE_ON: tuple[str, ...] = tuple(sorted(r.value for r in RouteOn if r is not RouteOn.GOLD))
""":class:`~aya_lab.agents.route_on.RouteOn`'s values but ``gold`` (a room has no reference English), sorted:
the choices of :attr:`SupervisorParameters.route_on`, derived from the one vocabulary."""
if TYPE_CHECKING:
    RoomRouteOn = str  # a Literal built from a tuple is runtime-only; nodes convert the value to a RouteOn
else:
    RoomRouteOn = Literal[ROOM_ROUTE_ON]  # pydantic checks and shows it: Literal['auto', 'english', 'original']


def _prompt_of(task: str, ref: str) -> str:
    """``ref`` if it names an existing variant of ``task`` (``variant``, ``task/variant`` or a YAML
    file), else a ``ValueError`` naming the variants (pydantic locates it). Only the file's existence is
    checked here (loading it needs the prompt stack); the node loads it when the graph is built."""
    if Path(ref).suffix in {".yaml", ".yml"}:
        if not Path(ref).is_file():
            raise ValueError(f"prompt file {ref!r} does not exist; give a YAML prompt file or a {task}/VARIANT name")
        return ref
    name = ref if "/" in ref else f"{task}/{ref}"
    named_task, _, variant = name.partition("/")
    if named_task != task:
        raise ValueError(f"prompt {ref!r} is a {named_task!r} prompt; this node needs a {task!r} prompt")
    folder = prompts_dir().resolve() / task
    path = (folder / f"{variant or 'baseline'}.yaml").resolve()
    if not path.is_relative_to(folder) or not path.is_file():
        variants = ", ".join(sorted(p.stem for p in folder.glob("*.yaml")))
        raise ValueError(f"no {task} prompt variant {variant!r}; variants: {variants}")
    return ref


class _Parameters(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class IngestParameters(_Parameters):
    """``aya_ingest.v1`` takes no parameters."""


class DeliveryParameters(_Parameters):
    """``aya_user_agents.v1`` and ``aya_reply_delivery.v1``: how a message is translated for every user."""

    prompt: str = "user_translate/baseline"
    """The ``user_translate`` prompt variant (one model batch: every draft of every language)."""
    context_window: int = Field(0, ge=0, le=50)
    """How many earlier room messages the prompt shows as context (0: none)."""
    route: Literal["measured", "preference"] = "measured"
    """The order a reader's languages are tried in (:func:`~aya_lab.room.delivery.route`): by the measured
    records (the original first, then the more faithful translations) or by the reader's order alone."""
    drafts: int = Field(1, ge=1, le=8)
    """How many drafts the translator writes of each translation (:mod:`aya_lab.agents.consensus`: few-shot
    examples rotated; draft 0, the prompt's own, is delivered; 1: no others). The bound is the agent's
    ``MAX_DRAFTS``."""
    agreement: float | Literal["calibrated"] = 0.0
    """A draft that agrees less than this with the translator's other drafts (its mean chrF over 100 against
    them) arrives flagged ``[unverified]`` beside the original; 0: never (nor with one draft); ``calibrated``:
    the threshold the translator's own record measured for drafts under this ``prompt``
    (:func:`~aya_lab.agents.faithfulness.agreement_for`; none: never)."""
    select: Literal["first", "similarity"] = "first"
    """Which draft is delivered: draft 0, or the one most like the message under the guard's encoder
    (:func:`~aya_lab.agents.consensus.consensus`)."""
    sentences: bool = False
    """Draft a message of several sentences one sentence at a time and join the drafts
    (:func:`~aya_lab.agents.user.message_sentences`); false: the message whole."""

    @field_validator("prompt")
    @classmethod
    def _known_prompt(cls, value: str) -> str:
        return _prompt_of("user_translate", value)

    @field_validator("agreement", mode="before")
    @classmethod
    def _agreement(cls, value: object) -> object:
        """A number from 0 to 1, or ``calibrated``; anything else one message naming both."""
        if value == "calibrated":
            return value
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise PydanticCustomError("agreement", "Input should be a number from 0 to 1, or 'calibrated'")
        return float(value)


class TranslatorParameters(_Parameters):
    """``aya_translator.v1``: the request to Aya in English (one call, before delivery)."""

    prompt: str = "aya_translate/baseline"
    """The ``aya_translate`` prompt variant."""

    @field_validator("prompt")
    @classmethod
    def _known_prompt(cls, value: str) -> str:
        return _prompt_of("aya_translate", value)


class SupervisorParameters(_Parameters):
    """``aya_supervisor.v1``: Aya's routing chain and tools."""

    router_prompt: str = "supervisor/baseline"
    """The ``supervisor`` prompt variant the model router reads."""
    summarizer: Literal["two_call", "one_call"] = "two_call"
    """The summarize tool: count then summary (two calls), or one structured call."""
    query_k: int = Field(3, ge=1, le=20)
    """Passages the query tool retrieves."""
    answers: Literal["quote", "glossary", "neighbours", "voted", "draft"] = "quote"
    """How the query tool answers: quote the handbook's sentences (found with the multilingual encoder), quote
    them reading the question with the glossary's English terms (``glossary``), quote them when the labelled
    questions most like it are in scope (``neighbours``), and from the section their gold sections vote for
    (``voted``), or the model's draft from the retrieved passages (:mod:`aya_lab.agents.query`)."""
    max_steps: int = Field(3, ge=1, le=10)
    """Tools one request may run before the chain finishes."""
    router: Literal["re_deciding", "loop", "single"] = "re_deciding"
    """Aya's router (:data:`~aya_lab.agents.routing.AYA_ROUTERS`): ``re_deciding`` (rules split a request
    into intents; single-intent requests make the same model calls as ``single``), ``loop`` (the model
    reads each observation and decides the next tool or to finish) or ``single`` (one tool). The old
    ``multi_intent: true`` / ``false`` is read as ``re_deciding`` / ``single``."""
    loop_prompt: str = "router_loop/baseline"
    """The ``router_loop`` prompt variant the ``loop`` router reads."""
    route_on: RoomRouteOn = "auto"
    """Which text of a non-English request is routed (:class:`~aya_lab.agents.route_input.RouteOn`)."""
    route_timeout: float | None = Field(None, gt=0)
    """Seconds a router's model call may take (none: no limit); past it the send ends with a
    ``RouterTimeoutError`` and is rolled back."""

    @model_validator(mode="before")
    @classmethod
    def _old_multi_intent(cls, data: object) -> object:
        if isinstance(data, dict) and "multi_intent" in data:
            data = dict(data)
            old = data.pop("multi_intent")
            if "router" in data:
                raise ValueError("give router (re_deciding, loop, single) or the old multi_intent, not both")
            data["router"] = "re_deciding" if old else "single"
        return data

    @field_validator("router_prompt")
    @classmethod
    def _known_prompt(cls, value: str) -> str:
        return _prompt_of("supervisor", value)

    @field_validator("loop_prompt")
    @classmethod
    def _known_loop_prompt(cls, value: str) -> str:
        return _prompt_of("router_loop", value)
