"""Prompt files -> templates. One folder per task under ``prompts/``, one YAML file per variant.

A prompt file is validated into :class:`PromptFile` (unknown keys rejected). Templates use Python
``{name}`` fields (write ``{{``/``}}`` for literal braces). Rendering checks the variables first: a
missing one is named (``prompt 'user_translate/baseline' needs variable 'target_language'``), an
unexpected one too. Every prompt has a content hash (of the file's canonical content) that results
carry, so a changed prompt is a different system.
"""

from __future__ import annotations

import hashlib
import json
import string
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.prompts import ChatPromptTemplate
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from aya_lab.paths import prompts_dir

__all__ = ["PromptFile", "PromptError", "load_prompt", "list_variants", "variant_names"]


class PromptError(ValueError):
    """A prompt file that is missing or invalid, or a rendering with wrong variables."""


class PromptFile(BaseModel):
    """One prompt variant: optional system text, a user template, declared variables and defaults."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str
    system: str | None = None
    user: str
    defaults: dict[str, str] = Field(default_factory=dict)
    task: str = ""
    variant: str = ""

    @property
    def name(self) -> str:
        return f"{self.task}/{self.variant}"

    @property
    def variables(self) -> set[str]:
        fields = set()
        for text in (self.system or "", self.user):
            fields |= {f for _, f, _, _ in string.Formatter().parse(text) if f}
        return fields

    @property
    def content_hash(self) -> str:
        payload = json.dumps(self.model_dump(exclude={"task", "variant"}), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def chat_template(self) -> ChatPromptTemplate:
        """A LangChain template (composes with ``| model``); defaults are partially applied."""
        parts = ([("system", self.system)] if self.system else []) + [("human", self.user)]
        template = ChatPromptTemplate.from_messages(parts)
        used = {k: v for k, v in self.defaults.items() if k in self.variables}
        return template.partial(**used) if used else template

    def render(self, **values: Any) -> list[BaseMessage]:
        """The messages for ``values``; raises :class:`PromptError` naming a missing/unexpected variable."""
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
        out: list[BaseMessage] = []
        if self.system:
            out.append(SystemMessage(self.system.format(**merged)))
        out.append(HumanMessage(self.user.format(**merged)))
        return out


def list_variants(task: str, root: Path | None = None) -> list[str]:
    """Variant names of a task (file stems), ``baseline`` first."""
    folder = (root or prompts_dir()) / task
    if not folder.is_dir():
        known = sorted(p.name for p in (root or prompts_dir()).iterdir() if p.is_dir())
        raise PromptError(f"no prompt task {task!r} in {folder.parent}; tasks: {', '.join(known)}")
    stems = sorted(p.stem for p in folder.glob("*.yaml"))
    return sorted(stems, key=lambda s: (s != "baseline", s))


def variant_names(task: str, variants: Sequence[str] | str, root: Path | None = None) -> list[str]:
    """Variant stems from ``"a,b"`` or a list, each written ``stem`` or ``task/stem``; checked to be
    unique and to exist (a one-line :class:`PromptError` otherwise)."""
    if isinstance(variants, str):
        variants = variants.split(",")
    names = [v.strip().removeprefix(f"{task}/") for v in variants if v and v.strip()]
    known = list_variants(task, root)
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
            variants = ", ".join(list_variants(task_name, path.parent.parent))
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
        return PromptFile(**data, task=p.parent.name, variant=p.stem)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        raise PromptError(f"prompt file {p}: {where}: {err['msg']}") from None
