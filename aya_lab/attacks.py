"""The ``attacks`` task (``aya-lab eval run attacks``): run the adversarial set, each attack in a fresh room, and score it.

A face (like :mod:`aya_lab.demo`), because it opens rooms, which :mod:`aya_lab.eval` never imports;
the records and the scoring rules are :mod:`aya_lab.eval.attacks`. Each attack gets its own temporary
folder: a copy of the knowledge-base folder (plus the record's ``kb_document``), and a new room with
:data:`ROOM_USERS` (kofi, English, the only user allowed to ``remember`` under the default
:data:`DEFAULT_MEMORY_POLICY`; amelie, French; lena, German; amara, Swahili) plus the attack's sender.
The attack is sent, then its ``followup``; what every user's feed shows, Aya's replies, the facts
written and the messages stored are observed, then scored. Models are loaded once and shared by all
rooms. :func:`run_attacks` returns the run's ``attacks`` :class:`~aya_lab.eval.report.Report`
(:func:`~aya_lab.eval.attacks.attacks_report`); :func:`run_task` is the ``attacks`` task's run
(``run("attacks", ...)``, ``aya-lab eval run attacks``), which the eval layer names by reference; with
``unlabelled`` it also writes the deliveries no label judges, as JSONL to label.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from aya_lab.agents.guard import MARKER, UNVERIFIED, checks_for
from aya_lab.errors import InputError
from aya_lab.eval.attacks import (
    AttackObservation,
    AttackRecord,
    Reading,
    attacks_report,
    default_attacks_path,
    load_attacks,
    score_attack,
)
from aya_lab.eval.configs import DEFAULT_MEMORY_POLICY, AttacksConfig
from aya_lab.eval.fabrications import (
    default_labels_path,
    deliveries_of,
    draft_of_withheld,
    load_labels,
    unlabelled_records,
)
from aya_lab.eval.progress import progress_bar
from aya_lab.eval.report import Report
from aya_lab.graph.cli import spec_path
from aya_lab.messages import AYA, parse_aya_request
from aya_lab.models import load_chat_model
from aya_lab.models.loader import load_role_models, parse_role_models, role_specs
from aya_lab.paths import kb_dir
from aya_lab.room import ChatRoom
from aya_lab.room.delivery import LANG_MARK
from aya_lab.room.nodes import aya_registry
from aya_lab.room.readers import checked_languages
from aya_lab.room.room_graph import load_room_graph
from aya_lab.whole_files import write_text

__all__ = [
    "ROOM_USERS",
    "DEFAULT_MEMORY_POLICY",
    "parse_readers",
    "room_users",
    "run_attack",
    "run_attacks",
    "run_task",
]

ROOM_USERS: dict[str, str] = {"kofi": "eng", "amelie": "fra", "lena": "deu", "amara": "swh"}
ENGLISH_READER = "kofi"
SEND_ERRORS: tuple[type[BaseException], ...] = (ValueError, RuntimeError, OSError)
_KB_SUFFIXES = (".md", ".txt")


def parse_readers(specs: str | Sequence[str] | None) -> dict[str, tuple[str, ...]]:
    """``USER:LANGS`` items (``amara:swh,eng``; a string: space-separated items) as ``{user: languages}``;
    ``None``: :data:`ROOM_USERS`. A malformed item or a user named twice is a one-line error naming it."""
    if specs is None:
        return {user: (lang,) for user, lang in ROOM_USERS.items()}
    readers: dict[str, tuple[str, ...]] = {}
    for spec in specs.split() if isinstance(specs, str) else specs:
        user, _, langs = spec.partition(":")
        if not user.strip() or not langs.strip():
            raise InputError(f"--readers {spec!r}: write USER:LANGS, e.g. amara:swh,eng")
        if user.strip() in readers:
            raise InputError(f"--readers names {user.strip()!r} twice; give each reader once")
        readers[user.strip()] = checked_languages(user.strip(), langs)
    return readers


def room_users(
    record: AttackRecord, readers: Mapping[str, tuple[str, ...]] | None = None
) -> dict[str, tuple[str, ...]]:
    """The readers (default :data:`ROOM_USERS`) plus the record's sender (and follow-up sender); a sender
    who is a reader must read the language they write in; a clash is a one-line error."""
    users = dict(readers) if readers is not None else parse_readers(None)
    speakers = [(record.sender, record.lang)] + (
        [(record.followup.sender, record.followup.lang)] if record.followup else []
    )
    for user, lang in speakers:
        if lang not in users.setdefault(user, (lang,)):
            raise InputError(
                f"attack {record.id}: sender {user!r} reads {','.join(users[user])} in the attack room, not "
                f"{lang}; choose another sender name"
            )
    return users


def _kb_folder(record: AttackRecord, folder: Path, kb_source: Path) -> Path:
    kb = folder / "kb"
    shutil.copytree(kb_source, kb)
    if record.kb_document is not None:
        (kb / record.kb_document.name).write_text(record.kb_document.text, encoding="utf-8")
    return kb


def _documents(kb: Path) -> dict[str, str]:
    return {
        p.name: p.read_text(encoding="utf-8")
        for p in sorted(kb.iterdir())
        if p.suffix in _KB_SUFFIXES and p.name.lower() != "readme.md"
    }


def _draft(text: str, notes: list[str], source_lang: str, reader_lang: str) -> str | None:
    """The translator's draft behind a delivered ``text``: the text itself, or the draft the guard's note
    keeps for a withheld or flagged delivery."""
    marked = text.startswith(MARKER) or text.startswith(UNVERIFIED)
    return draft_of_withheld(notes, source_lang, reader_lang) if marked else text


def _reading(d: Any, langs: tuple[str, ...], notes: list[str], source_lang: str) -> Reading:
    """One delivery as a :class:`Reading`: its text without the language mark, the draft behind it."""
    text = d.text if d.lang == langs[0] else d.text.removeprefix(LANG_MARK.format(lang=d.lang))
    return Reading(d.user, d.lang, text, d.translated, _draft(text, notes, source_lang, d.lang), langs)


def _observe(
    room: Any, record: AttackRecord, reports: list[Any], sends: list[tuple[str, str]], users: Mapping
) -> AttackObservation:
    obs = AttackObservation(record.id, record.text, record.lang)
    if reports:
        attack_id, notes = reports[0].message_id, list(getattr(reports[0], "guard_notes", []) or [])
        for user, deliveries in room.feeds().items():
            obs.readings += [
                _reading(d, users[user], notes, record.lang)
                for d in deliveries
                if user != record.sender and d.message_id == attack_id and not d.from_aya
            ]
    for i, (report, (_, text)) in enumerate(zip(reports, sends)):
        obs.tools += list(report.aya_tools or ([report.aya_tool] if report.aya_tool else []))
        obs.guard_notes += list(getattr(report, "guard_notes", []) or [])
        if report.aya_reply:
            (obs.followup_replies if i else obs.aya_replies).extend(report.aya_reply.values())
            english = report.aya_reply.get(ENGLISH_READER)
            if english is not None:
                obs.answers.append((parse_aya_request(text) or text, english))
    obs.sent = len(reports)
    obs.stored = sum(1 for m in room.history() if m.sender != AYA)
    return obs


def run_attack(
    record: AttackRecord,
    models: Mapping[str, Any],
    folder: Path,
    *,
    kb_source: Path | None = None,
    embeddings: Any = None,
    memory_policy: str = DEFAULT_MEMORY_POLICY,
    readers: Mapping[str, tuple[str, ...]] | None = None,
    graph: str | Path | None = None,
) -> AttackObservation:
    """Send ``record`` (then its follow-up) in a fresh room under ``folder`` whose colleagues are ``readers``
    (default :data:`ROOM_USERS`); what happened."""
    folder.mkdir(parents=True, exist_ok=False)
    kb = _kb_folder(record, folder, Path(kb_source) if kb_source is not None else kb_dir())
    users = room_users(record, readers)
    room = ChatRoom.open(
        folder / "room.sqlite", model=models["aya"], models=dict(models), users={u: list(langs) for u, langs in users.items()},
        kb_dir=kb, embeddings=embeddings, memory_policy=memory_policy, graph=graph,
    )  # fmt: skip
    try:
        before = len(room.kb.facts())
        sends = [(record.sender, record.text)]
        if record.followup is not None:
            sends.append((record.followup.sender, record.followup.text))
        reports, error = [], None
        for sender, text in sends:
            try:
                reports.append(room.send(sender, text))
            except SEND_ERRORS as exc:
                error = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                break
        obs = _observe(room, record, reports, sends, users)
        obs.error = error
        obs.facts_written = len(room.kb.facts()) - before
        obs.kb_documents = _documents(kb)
        return obs
    finally:
        room.close()


def run_attacks(
    records: Sequence[AttackRecord],
    models: Mapping[str, Any],
    *,
    model_label: str,
    labels: dict[tuple[str, str, str], str] | None = None,
    kb_source: Path | None = None,
    embeddings: Any = None,
    memory_policy: str = DEFAULT_MEMORY_POLICY,
    readers: Mapping[str, tuple[str, ...]] | None = None,
    graph: str | Path | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
    progress: bool | None = None,
) -> Report:
    """Run and score every record (each in its own temporary room); the ``attacks`` report of the run,
    its system ``model_label``, its translated deliveries judged by ``labels``; its ``meta["fingerprints"]``
    names each role's model exactly (what a calibration of its drafts records as ``--fingerprint``)."""
    for record in records:  # sender clashes fail before any model runs
        room_users(record, readers)
    checks = checks_for(models["translator"])
    scored = []
    with (
        tempfile.TemporaryDirectory(prefix="aya-attacks-") as tmp,
        progress_bar(len(records), "attacks", unit="attack", enabled=progress) as bar,
    ):
        for record in records:
            obs = run_attack(
                record, models, Path(tmp) / record.id, kb_source=kb_source, embeddings=embeddings,
                memory_policy=memory_policy, readers=readers, graph=graph,
            )  # fmt: skip
            scored.append((record, obs, score_attack(record, obs, checks)))
            if bar is not None:
                bar.update(1)
    readers = readers if readers is not None else parse_readers(None)
    meta = {"memory_policy": memory_policy, "kb": str(kb_source or kb_dir()), "graph": str(graph or "aya.yaml"),
            "readers": " ".join(f"{u}:{','.join(langs)}" for u, langs in readers.items()),
            "fingerprints": {role: getattr(model, "fingerprint", None) for role, model in models.items()}}  # fmt: skip
    return attacks_report(model_label, scored, labels, n_bootstrap=n_bootstrap, seed=seed, meta=meta)


# -- the task and the command ----------------------------------------------------------------------


def _records(data: str | None, categories: Sequence[str] | None, n: int | None) -> list[AttackRecord]:
    records = load_attacks(data, categories)
    records = records[:n] if n is not None else records
    if not records:
        raise InputError("no attacks to run: check --data, --categories and --n")
    return records


def _labels(path: str | None) -> dict[tuple[str, str, str], str]:
    """The labels of ``path``, else the committed ones when they are there, else none."""
    return load_labels(path) if path or default_labels_path().is_file() else {}


def _models(config: AttacksConfig) -> tuple[dict[str, Any], str]:
    """Every role's model as the config's ``model`` names it, with its ``translator:SRC-TGT`` directions (each
    loaded with its ``max_new_tokens`` and ``batch_size``; a spec named for several roles is one object), and the
    run's label, which names every direction's model too."""
    specs = role_specs(models=parse_role_models(list(config.model) or None))
    options: dict[str, Any] = {"settings": {"max_new_tokens": config.max_new_tokens}, "batch_size": config.batch_size}
    models = load_role_models(models=specs, loader=load_chat_model, **options)
    return models, ",".join(f"{role}={spec}" for role, spec in specs.items())


def run_task(config: AttacksConfig) -> Report:
    """The ``attacks`` task: run ``config``'s attacks (each in a fresh room) and score them; with
    ``config.unlabelled``, write the deliveries no label judges there."""
    readers = parse_readers(config.readers)
    records = _records(config.data, config.categories, config.n)
    labels = _labels(config.labels)
    if config.unlabelled:  # refused before any model loads, not after the run
        _check_unlabelled(Path(config.unlabelled), config)
    graph = spec_path(config.graph) if config.graph else None
    if graph:  # a missing or broken spec is refused before any model loads
        load_room_graph(graph, aya_registry())
    models, label = _models(config)
    label += f",graph={Path(graph).stem}" if graph else ""
    result = run_attacks(
        records, models, model_label=label, labels=labels, kb_source=Path(config.kb) if config.kb else None,
        memory_policy=config.memory_policy, readers=readers, graph=graph, n_bootstrap=config.n_bootstrap,
        seed=config.seed,
        progress=config.progress,
    )  # fmt: skip
    if config.unlabelled:
        _write_unlabelled(Path(config.unlabelled), result, records, labels)
    return result


def _check_unlabelled(path: Path, config: AttacksConfig) -> None:
    """``--unlabelled`` may not name the labels or the attack set, nor a file holding a person's labels (a
    to-label file being filled in): the run would overwrite them."""
    inputs = [
        Path(config.labels) if config.labels else default_labels_path(),
        Path(config.data) if config.data else default_attacks_path(),
    ]
    if any(path.resolve() == other.resolve() for other in inputs):
        raise InputError(f"--unlabelled {path} names an input of the run; pass a new file for the drafts to label")
    if path.is_file():
        try:
            rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        except (OSError, ValueError):
            rows = [{"label": "?"}]  # not a to-label file this command wrote: not ours to overwrite either
        done = sum(1 for row in rows if not isinstance(row, dict) or row.get("label"))
        if done:
            raise InputError(f"--unlabelled {path} holds {done} labels or other data already; move them into a labels "
                             "file (--labels) or pass another path")  # fmt: skip


def _write_unlabelled(path: Path, result: Report, records: Sequence[AttackRecord], labels: dict) -> None:
    """The deliveries no label judges, as JSONL to label (``label`` left empty; the guard's decision not shown)."""
    glosses = {r.id: (r.note or "").removeprefix("gloss: ") for r in records}
    todo = unlabelled_records(deliveries_of(result.frames["deliveries"]), labels, glosses)
    write_text(path, "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in todo))
    print(f"wrote {path} ({len(todo)} deliveries to label)")
