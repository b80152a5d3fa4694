"""Prompt files -> templates. One folder per task under ``prompts/``, one YAML file per variant.

A prompt file is validated into :class:`PromptFile` (unknown keys rejected). Templates use Python
``{name}`` fields (write ``{{``/``}}`` for literal braces). Rendering checks the variables first: a
missing one is named (``prompt 'user_translate/baseline' needs variable 'target_language'``), an
unexpected one too. Every prompt has a content hash (of the file's canonical content) that results
carry, so a changed prompt is a different system.

Two formats. ``format: chat`` (the default) renders a system and a user message for a model's chat
template. ``format: completion`` is for **base** models (no chat template): the prompt renders to one
plain text that the model continues, usually few-shot. Its examples come from a fixed pool file,
``data/fewshot/<pool>.yaml`` (a list of records, written for the purpose; see its README), rendered
with ``examples.template`` and put where the template says ``{examples}``. ``stop`` lists the strings
at which generation stops (default: the end of the line); models stop generating there and cut the
text at it. A completion prompt renders to a single ``HumanMessage`` that carries its format and stop
strings in ``additional_kwargs`` (see :func:`completion_request`).

``untrusted: [message, ...]`` names the variables that hold untrusted text (default: none); rendering
keeps them inside the template's delimiter tags and, in completion prompts, on one line
(:mod:`aya_lab.spotlight`); so does :meth:`PromptFile.chat_template`. Models escape control tokens.
"""

from __future__ import annotations

import hashlib
import json
import string
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.prompts import ChatPromptTemplate
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from aya_lab.errors import AyaLabError
from aya_lab.paths import fewshot_pools_dir, prompts_dir
from aya_lab.settings import settings
from aya_lab.spotlight import delimiter_tags, spotlight_value

__all__ = [
    "COMPLETION_KEY",
    "ExamplesSpec",
    "PromptFile",
    "PromptError",
    "SpotlitChatTemplate",
    "completion_request",
    "cut_at_stop",
    "fewshot_dir",
    "fit_prompt",
    "load_pool",
    "load_prompt",
    "list_variants",
    "variant_names",
]

COMPLETION_KEY = "aya_lab_completion"
"""``additional_kwargs`` key of a rendered completion prompt's message: ``{"stop": [...]}``."""


class PromptError(AyaLabError, ValueError):
    """A prompt file that is missing or invalid, or a rendering with wrong variables."""


class ExamplesSpec(BaseModel):
    """Where a completion prompt's few-shot examples come from and how one is written.

    ``template`` fields are filled from the record (``keys`` maps a field to a record key, itself a
    template over the render values, e.g. ``{source: "{source_code}"}``; other fields are looked up in
    the record by their own name) or, failing that, from the render values. The first ``k`` records
    that have every needed key (non-empty) and do not repeat a render value are used, in file order;
    fewer than ``min`` is an error naming the pool and the fix.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    pool: str
    k: int = Field(3, ge=1, le=32)
    min: int | None = Field(None, ge=0)
    template: str
    keys: dict[str, str] = Field(default_factory=dict)
    separator: str = "\n"


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
        if self.examples is not None and "examples" not in _fields(self.user):
            raise ValueError("a prompt with examples must place them with {examples} in 'user'")
        if self.stop is not None and (not self.stop or not all(self.stop)):
            raise ValueError("stop must list one or more non-empty strings, e.g. ['\\n']")
        unknown = sorted(set(self.untrusted) - _fields(self.system or "") - _fields(self.user))
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
        fields = _fields(self.system or "") | _fields(self.user)
        if self.examples is not None:
            fields.discard("examples")
            from_records = set(self.examples.keys) | _pool_keys(self.examples.pool)
            fields |= {f for f in _fields(self.examples.template) if f not in from_records}
            fields |= {f for key in self.examples.keys.values() for f in _fields(key)}
        return fields

    @property
    def content_hash(self) -> str:
        data = self.model_dump(exclude={"task", "variant"})
        for name, default in (("format", "chat"), ("examples", None), ("stop", None), ("untrusted", [])):
            if data[name] == default:  # fields added later: absent while at their default, so old hashes hold
                del data[name]
        if self.examples is not None:
            data["pool_sha256"] = _pool_hash(self.examples.pool)
        payload = json.dumps(data, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def chat_template(self) -> ChatPromptTemplate:
        """A LangChain template (composes with ``| model``; defaults partially applied) that renders what
        :meth:`render` renders, untrusted values spotlit (a template made from it with ``+`` is not)."""
        if self.format == "completion":
            raise PromptError(f"prompt {self.name!r} is a completion prompt; render it with .render(...)")
        parts = ([("system", self.system)] if self.system else []) + [("human", self.user)]
        template = SpotlitChatTemplate(parts, prompt=self)  # type: ignore[call-arg]  # __init__ infers the rest
        used = {k: v for k, v in self.defaults.items() if k in self.variables}
        return template.partial(**used) if used else template

    def render(self, **values: Any) -> list[BaseMessage]:
        """The messages for ``values``; raises :class:`PromptError` naming a missing/unexpected variable.

        A completion prompt gives one ``HumanMessage`` (its text is the whole prompt) whose
        ``additional_kwargs[COMPLETION_KEY]`` holds the stop strings.
        """
        if self.examples is not None:
            load_pool(self.examples.pool)  # a missing pool is named before any variable
        merged = {**self.defaults, **values}
        missing = sorted(self.variables - set(merged))
        if missing:
            raise PromptError(f"prompt {self.name!r} needs variable {missing[0]!r}; pass {missing[0]}=...")
        unexpected = sorted(set(values) - self.variables - set(self.defaults))
        if unexpected:
            raise PromptError(
                f"prompt {self.name!r} has no variable {unexpected[0]!r}; its variables are "
                f"{', '.join(sorted(self.variables))}"
            )
        merged = self._spotlight(merged)
        if self.format == "completion":
            if self.examples is not None:
                merged["examples"] = self._examples_block(merged)
            text = self.user.format(**merged)
            return [HumanMessage(text, additional_kwargs={COMPLETION_KEY: {"stop": self.stop_strings}})]
        out: list[BaseMessage] = []
        if self.system:
            out.append(SystemMessage(self.system.format(**merged)))
        out.append(HumanMessage(self.user.format(**merged)))
        return out

    def _spotlight(self, values: dict[str, Any]) -> dict[str, Any]:
        """``values`` with each ``untrusted`` one kept inside its delimiters (:mod:`aya_lab.spotlight`)."""
        if not self.untrusted:
            return values
        tags = delimiter_tags(self.system or "", self.user)
        single = self.format == "completion"
        return {
            k: spotlight_value(v, tags, single_line=single) if k in self.untrusted else v for k, v in values.items()
        }

    def _examples_block(self, values: dict[str, Any]) -> str:
        spec = self.examples
        assert spec is not None
        pool_keys = _pool_keys(spec.pool)
        record_keys = {f: f for f in _fields(spec.template) if f in pool_keys}
        record_keys.update({f: key.format(**values) for f, key in spec.keys.items()})
        taken = {str(v).strip() for v in values.values() if str(v).strip()}
        chosen = []
        for record in load_pool(spec.pool):
            texts = {f: str(record.get(k) or "").strip() for f, k in record_keys.items()}
            if all(texts.values()) and not taken & set(texts.values()):
                chosen.append(spec.template.format(**{**values, **texts}))
            if len(chosen) == spec.k:
                break
        need = spec.k if spec.min is None else spec.min
        if len(chosen) < need:
            wanted = ", ".join(sorted(set(record_keys.values())))
            raise PromptError(
                f"prompt {self.name!r} needs {need} examples with {wanted} from pool {spec.pool!r} but found "
                f"{len(chosen)}; add records with those keys to {fewshot_dir() / (spec.pool + '.yaml')}"
            )
        return "".join(example + spec.separator for example in chosen)


class SpotlitChatTemplate(ChatPromptTemplate):
    """:meth:`PromptFile.chat_template`: ``prompt.untrusted`` values are spotlit on every (a)format/partial."""

    prompt: PromptFile

    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        return super().format_messages(**self.prompt._spotlight(self._merge_partial_and_user_variables(**kwargs)))

    async def aformat_messages(self, **kwargs: Any) -> list[BaseMessage]:
        merged = self._merge_partial_and_user_variables(**kwargs)
        return await super().aformat_messages(**self.prompt._spotlight(merged))


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def fewshot_dir() -> Path:
    """The few-shot example pools: ``data/fewshot/<pool>.yaml`` (``AYA_LAB_FEWSHOT_DIR`` overrides)."""
    return settings().fewshot_dir or fewshot_pools_dir()


def load_pool(name: str) -> list[dict[str, str]]:
    """The records of pool ``name``; a missing or malformed file is a one-line :class:`PromptError`."""
    path = fewshot_dir() / f"{name}.yaml"
    if not path.is_file():
        raise PromptError(
            f"few-shot pool {name!r} is missing ({path} does not exist); restore it from the repository "
            "(git checkout data/fewshot) or name an existing pool in the prompt's examples.pool"
        )
    return _read_pool(str(path), path.stat().st_mtime_ns)


@lru_cache(maxsize=64)
def _read_pool(path: str, mtime: int) -> list[dict[str, str]]:
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise PromptError(f"few-shot pool {path} cannot be read: {str(exc).splitlines()[0]}") from None
    records = data.get("examples") if isinstance(data, dict) else None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise PromptError(f"few-shot pool {path} must be a mapping with an 'examples' list of records")
    return [{str(k): str(v) for k, v in r.items()} for r in records]


def _pool_keys(name: str) -> set[str]:
    try:
        return {k for r in load_pool(name) for k in r}
    except PromptError:
        return set()


def _pool_hash(name: str) -> str:
    path = fewshot_dir() / f"{name}.yaml"
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.is_file() else "missing"


def completion_request(conversation: Sequence[BaseMessage]) -> tuple[str, list[str]] | None:
    """``(text, stop strings)`` when ``conversation`` is a rendered completion prompt, else ``None``."""
    if len(conversation) != 1:
        return None
    meta = conversation[0].additional_kwargs.get(COMPLETION_KEY)
    if not isinstance(meta, dict):
        return None
    content = conversation[0].content
    return (content if isinstance(content, str) else str(content)), list(meta.get("stop") or [])


def cut_at_stop(text: str, stops: Sequence[str]) -> str:
    """``text`` up to the earliest stop string (the whole text when none occurs)."""
    cut = min((i for i in (text.find(s) for s in stops if s) if i >= 0), default=len(text))
    return text[:cut]


def list_variants(task: str, root: Path | None = None, *, completion: bool = False) -> list[str]:
    """Variant names of a task (file stems), ``baseline`` first.

    Chat prompts only unless ``completion=True``: completion prompts are for base models, so listing
    them is opt-in (a loop over "every variant" of a task keeps meaning the chat variants)."""
    folder = (root or prompts_dir()) / task
    if not folder.is_dir():
        known = sorted(p.name for p in (root or prompts_dir()).iterdir() if p.is_dir())
        raise PromptError(f"no prompt task {task!r} in {folder.parent}; tasks: {', '.join(known)}")
    paths = sorted(folder.glob("*.yaml"))
    stems = [p.stem for p in paths if completion or _declared_format(p) == "chat"]
    return sorted(stems, key=lambda s: (s != "baseline", s))


def _declared_format(path: Path) -> str:
    """A prompt file's ``format`` (``chat`` when absent or when the file cannot be read)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return "chat"
    return str(data.get("format", "chat")) if isinstance(data, dict) else "chat"


def variant_names(task: str, variants: Sequence[str] | str, root: Path | None = None) -> list[str]:
    """Variant stems from ``"a,b"`` or a list, each written ``stem`` or ``task/stem``; checked to be
    unique and to exist (a one-line :class:`PromptError` otherwise)."""
    if isinstance(variants, str):
        variants = variants.split(",")
    names = [v.strip().removeprefix(f"{task}/") for v in variants if v and v.strip()]
    known = list_variants(task, root, completion=True)
    if not names:
        raise PromptError(f"no variants given for {task}; e.g. {','.join(known[:2])}")
    dupes = sorted({v for v in names if names.count(v) > 1})
    if dupes:
        raise PromptError(f"variants must be unique; repeated: {', '.join(dupes)}")
    unknown = [v for v in names if v not in known]
    if unknown:
        raise PromptError(f"unknown {task} variant {unknown[0]!r}; variants: {', '.join(known)}")
    return names


def load_prompt(ref: str, root: Path | None = None, *, task: str | None = None) -> PromptFile:
    """Load a prompt variant: ``"task/variant"``, ``"variant"`` with ``task=``, or a path to a YAML file.

    Names are confined to the prompts folder: a name that resolves outside it is refused. Files are
    cached per path and modification time.
    """
    path = Path(ref)
    if path.suffix not in {".yaml", ".yml"}:
        base = (root or prompts_dir()).resolve()
        if task is not None and "/" not in ref:
            ref = f"{task}/{ref}"
        task_name, _, variant = ref.partition("/")
        path = (base / task_name / f"{variant or 'baseline'}.yaml").resolve()
        if not path.is_relative_to(base) or ".." in Path(ref).parts:
            raise PromptError(
                f"prompt name {ref!r} leaves the prompts folder; write TASK/VARIANT, e.g. user_translate/strict"
            )
    if not path.exists():
        task_name = path.parent.name
        try:
            variants = ", ".join(list_variants(task_name, path.parent.parent, completion=True))
        except PromptError as exc:
            raise PromptError(str(exc)) from None
        raise PromptError(f"no prompt variant {path.stem!r} for task {task_name!r}; variants: {variants}")
    return _load(str(path.resolve()), path.stat().st_mtime_ns)


@lru_cache(maxsize=256)
def _load(path: str, mtime: int) -> PromptFile:
    p = Path(path)
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise PromptError(f"prompt file {p} cannot be read: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise PromptError(f"prompt file {p} must be a mapping with 'description' and 'user' keys")
    try:
        prompt = PromptFile(**data, task=p.parent.name, variant=p.stem)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        raise PromptError(f"prompt file {p}: {where or 'format'}: {err['msg']}") from None
    if prompt.examples is not None:
        load_pool(prompt.examples.pool)  # fail at load, naming the pool, not at the first render
    return prompt


def fit_prompt(prompt: str | PromptFile, model: Any) -> PromptFile:
    """The prompt to use on ``model``: ``prompt`` itself, except that a task's chat **baseline** becomes
    the task's ``completion`` variant on a model without a chat template (``model.has_chat_template``
    false: a base model). Any other chat prompt on such a model is a one-line :class:`PromptError`
    naming the model and the completion variant to use."""
    p = load_prompt(prompt) if isinstance(prompt, str) else prompt
    if p.format != "chat" or getattr(model, "has_chat_template", True):
        return p
    spec = getattr(model, "spec", type(model).__name__)
    if p.variant == "baseline" and p.task and "completion" in list_variants(p.task, completion=True):
        return load_prompt(f"{p.task}/completion")
    raise PromptError(
        f"prompt {p.name!r} is a chat prompt and model {spec!r} has no chat template (a base model); "
        f"use a completion variant such as {p.task or 'TASK'}/completion (format: completion)"
    )
