"""Finding and loading prompt variants: one folder per task under ``prompts/``, one YAML file per variant.

``"task/variant"`` names ``prompts/<task>/<variant>.yaml``; names are confined to the prompts folder.
Files are read once per path and modification time. :func:`list_variants` lists a task's chat
variants (completion variants on request), :func:`variant_names` checks a user's list of them, and
:func:`choose_prompt` swaps a chat baseline for the task's completion variant on a base model and says so:
the :class:`PromptChoice` it returns names the prompt asked for, the prompt used, and a one-line ``note``
when they differ, which callers print and record (:func:`fit_prompt` returns only the prompt used).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import yaml
from pydantic import ValidationError

from aya_lab.paths import prompts_dir
from aya_lab.prompts.errors import PromptError
from aya_lab.prompts.fewshot import spec_records
from aya_lab.prompts.file import PromptFile

__all__ = ["PromptChoice", "choose_prompt", "fit_prompt", "list_variants", "load_prompt", "variant_names"]


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
        spec_records(prompt.examples)  # fail at load, naming the pool, not at the first render
    return prompt


class PromptChoice(NamedTuple):
    """The prompt asked for, the prompt used on a model, and the model's spec (see :func:`choose_prompt`)."""

    requested: PromptFile
    used: PromptFile
    model: str

    @property
    def swapped(self) -> bool:
        return self.used.name != self.requested.name

    @property
    def note(self) -> str | None:
        """One line saying which prompt replaced which and why (``None`` when nothing was swapped)."""
        if not self.swapped:
            return None
        return (
            f"prompt: {self.model} has no chat template (a base model), so {self.used.name} is used "
            f"instead of the chat prompt {self.requested.name}"
        )

    def as_meta(self) -> dict[str, str]:
        """``{"prompt": used}``, plus ``prompt_requested`` and ``prompt_note`` when the prompt was swapped."""
        out = {"prompt": self.used.name}
        if self.swapped:
            out.update(prompt_requested=self.requested.name, prompt_note=self.note or "")
        return out


def choose_prompt(prompt: str | PromptFile, model: Any) -> PromptChoice:
    """The prompt to use on ``model``: ``prompt`` itself, except that a task's chat **baseline** becomes
    the task's ``completion`` variant on a model without a chat template (``model.has_chat_template``
    false: a base model); the choice records both and a ``note``. Any other chat prompt on such a model is a
    one-line :class:`PromptError` naming the model and the completion variant to use."""
    p = load_prompt(prompt) if isinstance(prompt, str) else prompt
    spec = str(getattr(model, "spec", type(model).__name__))
    if p.format != "chat" or getattr(model, "has_chat_template", True):
        return PromptChoice(p, p, spec)
    if p.variant == "baseline" and p.task and "completion" in list_variants(p.task, completion=True):
        return PromptChoice(p, load_prompt(f"{p.task}/completion"), spec)
    raise PromptError(
        f"prompt {p.name!r} is a chat prompt and model {spec!r} has no chat template (a base model); "
        f"use a completion variant such as {p.task or 'TASK'}/completion (format: completion)"
    )


def fit_prompt(prompt: str | PromptFile, model: Any) -> PromptFile:
    """The prompt :func:`choose_prompt` uses on ``model`` (callers that report the swap use that instead)."""
    return choose_prompt(prompt, model).used
