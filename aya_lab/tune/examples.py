"""Training examples for each task: the exact prompt the room sends for it, and the answer it should get.

- ``translate``: a parallel set (``files:SRC.txt,REF.txt`` with ``--pair``, or a registered set's
  ``train`` split, e.g. ``mafand``); the prompt is the user agents' translation prompt
  (:meth:`~aya_lab.agents.user.UserAgent.conversation`: the chat baseline, or on a base model such as
  Gemma its few-shot completion variant), the answer the reference. Test and dev splits are never
  trained on: a registered set is read from its ``train`` split only.
- ``summarize-onecall``: chat transcripts in the evaluators' JSONL format (``data/transcripts``; ``aya-lab
  data synth summarize`` writes them); the prompt is the one-call summarizer's, on the transcript's last
  40 messages (:data:`~aya_lab.agents.summarizer.MAX_HISTORY`), the answer the format that prompt asks
  for, built from the gold: ``COUNT: N`` (``ALL`` for 0), ``SUMMARY:`` the reference summary,
  ``ACTIONS:`` one ``- owner: task`` line per gold action item (``- none`` when there is none). The
  request is trained as written (the evaluator translates a non-English request first; the adapter
  sees both kinds).
- ``route``: routing requests (``data/routing`` format); the prompt is the supervisor's router prompt
  (its completion variant on a base model) on the English gloss when the record has one (the room
  routes the English), the answer the label.

A file whose records are another task's format is refused with one line naming the file, what it
holds and the task that takes it.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.messages import BaseMessage

from aya_lab.agents.summarizer import MAX_HISTORY, render_transcript
from aya_lab.agents.user import UserAgent
from aya_lab.datasets.parallel import DatasetError, MisalignedFilesError, load_parallel, parse_pair
from aya_lab.datasets.project import Transcript, load_routing_examples, load_transcripts
from aya_lab.messages import ChatMessage
from aya_lab.paths import project_root
from aya_lab.prompts import PromptFile, fit_prompt, load_prompt
from aya_lab.tune.config import TASKS
from aya_lab.tune.errors import TrainingDataError, TuneError

if TYPE_CHECKING:
    from aya_lab.agents.protocols import TextModel

__all__ = ["TASKS", "Example", "TaskData", "files_sha256", "load_task_data", "onecall_target"]

_FORMATS = {
    "summarize-onecall": "summarize transcripts (messages, request, gold_count)",
    "route": "routing requests (text, lang, label)",
}


@dataclass(frozen=True)
class Example:
    """One training example: the prompt messages (as the room renders them) and the answer. ``source`` is the
    messages or a function that renders them (rendered only for the examples a run draws: a registered set's
    train split has tens of thousands)."""

    source: list[BaseMessage] | Callable[[], list[BaseMessage]]
    target: str
    id: str

    @property
    def prompt(self) -> list[BaseMessage]:
        return self.source() if callable(self.source) else self.source


@dataclass(frozen=True)
class TaskData:
    """A task's examples and where they came from (for the run card)."""

    task: str
    examples: list[Example]
    source: str
    files: list[str]
    sha256: str
    license: str
    prompt: PromptFile


def files_sha256(paths: list[str]) -> str:
    """The SHA-256 of the files' bytes, in order (what a run card records as its data's hash)."""
    h = hashlib.sha256()
    for p in paths:
        h.update(Path(p).read_bytes())
    return h.hexdigest()


def _project_license(path: Path) -> str:
    try:
        path.resolve().relative_to(project_root() / "data")
    except ValueError:
        return "user-supplied file (its own terms)"
    return "CC-BY-4.0 (written by the aya_lab project, data/README.md)"


def _sniff(path: Path) -> str | None:
    """The task whose JSONL format ``path``'s first record has (``None``: unknown or unreadable)."""
    try:
        with path.open(encoding="utf-8-sig") as f:
            first = next((line for line in f if line.strip()), "")
        keys = set(json.loads(first)) if first.strip().startswith("{") else set()
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if {"messages", "request"} <= keys:
        return "summarize-onecall"
    if {"text", "label"} <= keys:
        return "route"
    return None


def _jsonl_path(task: str, data: str) -> Path:
    path = Path(data).expanduser()
    if data.startswith("files:") or (not path.exists() and "/" not in data and "." not in data):
        raise TrainingDataError(
            f"task {task} takes a JSONL file of {_FORMATS[task]}, not {data!r}; pass e.g. --data FILE.jsonl "
            "(parallel sets are for --task translate)"
        )
    found = _sniff(path) if path.is_file() else None
    if found is not None and found != task:
        raise TrainingDataError(
            f"{path} holds {_FORMATS[found]}, not {_FORMATS[task]}; train it with --task {found}, or pass a file "
            f"of {_FORMATS[task]}"
        )
    return path


def onecall_target(t: Transcript) -> str:
    """The one-call summarizer's answer for transcript ``t``, built from its gold (module docstring)."""
    if t.reference_summary is None:
        raise TrainingDataError(
            f"transcript {t.id} has no reference_summary; the summarize-onecall target needs one (aya-lab data "
            "synth summarize writes them)"
        )
    items = [f"- {a.owner}: {a.task}" for a in t.gold_action_items] or ["- none"]
    count = str(t.gold_count) if t.gold_count else "ALL"
    return "\n".join([f"COUNT: {count}", f"SUMMARY: {t.reference_summary}", "ACTIONS:", *items])


def _summarize(data: str, model: Any, pair: str | None) -> TaskData:
    path = _jsonl_path("summarize-onecall", data)
    if not getattr(model, "has_chat_template", True):
        raise TuneError(
            f"task summarize-onecall uses the chat prompt summarizer_onecall/baseline and model {model.spec!r} "
            "has no chat template; train it on a chat model such as smollm2"
        )
    prompt = load_prompt("summarizer_onecall/baseline")
    examples = []
    for t in load_transcripts(path):
        history = [
            ChatMessage(
                sender=m.sender, content=m.text, lang=m.lang, translations={"eng": m.text_en} if m.text_en else {}
            )
            for m in t.messages[-MAX_HISTORY:]
        ]
        messages = prompt.render(transcript=render_transcript(history), request=t.request)
        examples.append(Example(messages, onecall_target(t), str(t.id)))
    return TaskData("summarize-onecall", examples, str(path), [str(path)], files_sha256([str(path)]),
                    _project_license(path), prompt)  # fmt: skip


def _route(data: str, model: Any, pair: str | None) -> TaskData:
    path = _jsonl_path("route", data)
    prompt = fit_prompt("supervisor/baseline", model)
    examples = [
        Example(prompt.render(request=r.text_en or r.text), r.label, str(r.id)) for r in load_routing_examples(path)
    ]
    return TaskData(
        "route", examples, str(path), [str(path)], files_sha256([str(path)]), _project_license(path), prompt
    )


def _translate(data: str, model: Any, pair: str | None) -> TaskData:
    if data.endswith((".jsonl", ".json")):
        raise TrainingDataError(
            f"task translate takes a parallel set (files:SRC.txt,REF.txt or a registered set such as mafand), not the "
            f"JSONL file {data}; JSONL transcripts train --task summarize-onecall, routing requests --task route"
        )
    if not pair:
        raise TrainingDataError(
            f"task translate needs the direction of {data}: pass --pair SRC-TGT, e.g. --pair eng-swh"
        )
    src, tgt = parse_pair(pair)
    try:
        parallel = load_parallel(data, src, tgt, split=None if data.startswith("files:") else "train")
    except MisalignedFilesError as exc:
        raise TrainingDataError(
            f"{exc}; line i of one file must translate line i of the other: fix or regenerate them"
        ) from None
    except DatasetError as exc:
        raise TrainingDataError(f"{exc} (translation adapters train on a train split or on files:SRC,REF)") from None
    agent = UserAgent(model)
    examples = [
        Example(functools.partial(agent.conversation, s, src, tgt), r, i)
        for s, r, i in zip(parallel.sources, parallel.references, parallel.ids, strict=True)
    ]
    source = f"{parallel.dataset_id} ({src}->{tgt})"
    return TaskData("translate", examples, source, parallel.files, files_sha256(parallel.files), parallel.license,
                    agent.prompt)  # fmt: skip


_LOADERS: dict[str, Callable[[str, Any, str | None], TaskData]] = {
    "translate": _translate,
    "summarize-onecall": _summarize,
    "route": _route,
}


def load_task_data(task: str, data: str, model: TextModel, *, pair: str | None = None) -> TaskData:
    """The examples of ``task`` from ``data`` (see the module docstring), prompted as ``model`` is prompted."""
    if task not in _LOADERS:
        raise TrainingDataError(f"unknown task {task!r}; use one of {', '.join(TASKS)}")
    return _LOADERS[task](str(data).strip(), model, pair)
