"""The scripted demo: four colleagues in four languages (one low-resource), three of whom read English
too, and two requests to Aya, the first of which needs two tools (a summary, then a policy question) and
gets one reply.

Runs on each role's embedded default model unless told otherwise; prints every run report and each user's
feed. The room's memory policy is ``listed:amara`` (its creator, the first user:
:func:`~aya_lab.agents.memory.creator_policy`). Generations go through the generation cache, so a second run replays instantly.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TextIO, cast

from aya_lab.agents.memory import creator_policy
from aya_lab.errors import InputError
from aya_lab.models.base import LocalChatModel
from aya_lab.models.loader import ROLES, default_role_models, load_role_models, parse_role_models, parse_spec
from aya_lab.room import ChatRoom
from aya_lab.room.integrity import room_file_problem
from aya_lab.room.store import room_origin
from aya_lab.text_safety import for_terminal

USERS: dict[str, list[str]] = {
    "amara": ["swh", "eng"],
    "lena": ["deu", "eng"],
    "kofi": ["eng"],
    "sophie": ["fra", "eng"],
}
"""Each colleague's languages, in order of preference: a message the guard withholds in someone's first
language reaches them in English (:mod:`aya_lab.room.delivery`)."""
DEMO = "demo"
"""What a room the demo creates records as its creator; only such a room is replaced by the next demo."""

SCRIPT: list[tuple[str, str]] = [
    ("amara", "Habari timu, mkutano wa bajeti umehamishwa hadi Ijumaa."),
    ("lena", "Danke, Amara. Ich schicke den überarbeiteten Bericht bis Donnerstag."),
    ("kofi", "Great, I will book the meeting room and invite finance."),
    ("sophie", "Parfait. Je prépare les chiffres du trimestre pour vendredi."),
    ("kofi", "@aya summarize the last 4 messages, then tell me what our travel policy says about flights"),
    ("lena", "@aya Wie lautet unsere Reiserichtlinie für Flüge?"),
]


STILL_FAILS = (
    "The default translator (Gemma 3 270M) beats both floors (copying the source, an unrelated sentence) into "
    "English from French and German; out of English, French and German beat only the unrelated-sentence "
    "floor (French beats copying the source by its own interval, not over the notebook's family of tests), and "
    "for Swahili, Somali, Hausa and Yoruba it beats no floor out of English; Nepali and Sinhala have too few "
    "documents to test (notebooks/03, 300 segments per pair, recorded 2026-12-01, tests re-read 2026-12-05). "
    "A LoRA adapter trained on MAFAND-MT news lifts "
    "Swahili into English above both floors on NTREX-128 and MAFAND test (notebooks/08), but it wrote no faithful "
    "draft of 40 Swahili chat messages, so the room does not use it (docs/MODELS.md). The base model's drafts into or out of Swahili and Yoruba were never faithful in labelled runs, so the "
    "guard withholds them: Amara reads English too and gets those messages in English, marked [eng]; a reader of "
    "Swahili alone gets the original marked [not translated]. Drafts the guard doubts arrive [unverified] beside "
    "the original (docs/SECURITY.md). Swap in a larger "
    "model with --model translator=hf:<instruct model> or translator=seq2seq:<NLLB or Marian checkpoint>."
)
"""The demo's last line: which languages the default translator still fails (notebook 03's measurement)."""


def _remove_room(room_path: Path) -> None:
    """Delete the demo room at ``room_path`` (the file, its knowledge base, their WAL files) so that the demo
    starts afresh, but only a room ``aya-lab demo`` created (its ``created_by`` row:
    :func:`~aya_lab.room.store.room_origin`). Anything else there (another room, another application's
    database, a device) is refused with :class:`InputError` and nothing is deleted, so that a mistyped
    ``--room`` never deletes someone's data. With no room file there, nothing is deleted."""
    kb = room_path.with_suffix(".kb.sqlite")
    for p in (room_path, kb):
        for q in (p, Path(f"{p}-wal"), Path(f"{p}-shm")):
            if q.exists() and not q.is_file():
                raise InputError(
                    f"{q} exists and is no regular file (a device, folder or pipe); pass another --room path"
                )
    if not room_path.is_file() or not room_path.stat().st_size:
        return
    problem = room_file_problem(room_path)  # no room (or its knowledge base is none): refused as it is
    if problem:
        raise InputError(problem)
    if room_origin(room_path) != DEMO:
        raise InputError(
            f"{room_path} is a room that aya-lab demo did not create (its users, messages and notes would be "
            "lost); it was not modified: pick a new --room path, or delete it yourself"
        )
    for p in (room_path, kb):
        for suffix in ("", "-wal", "-shm"):
            Path(str(p) + suffix).unlink(missing_ok=True)


def _print_room(room: ChatRoom, room_path: Path, out: TextIO) -> None:
    """The room's line: its users with their languages (in order of preference), graph and memory policy."""
    readers = ", ".join(f"{u} ({','.join(langs)})" for u, langs in room.readers.items())
    print(
        f"room {room_path}: users {readers}; "
        f"graph {room.spec.flow_parameter.name} {room.spec_hash}; memory policy {room.memory.policy.describe()}\n",
        file=out,
    )


def _print_feeds(room: ChatRoom, out: TextIO) -> None:
    """Every user's feed under ``--- feed of USER (LANGUAGES) ---``."""
    for user, langs in room.readers.items():
        print(f"--- feed of {user} ({','.join(langs)}) ---", file=out)
        for d in room.feed(user):
            print(f"  {for_terminal(repr(d), '    ')}", file=out)
        print(file=out)


def run_demo(
    room_path: str | Path = "runs/demo.sqlite",
    model: str | None = None,
    out: TextIO | None = None,
    fresh: bool = True,
    max_new_tokens: int = 64,
    models: dict[str, str] | None = None,
) -> ChatRoom:
    """Play :data:`SCRIPT` in a room at ``room_path`` (a demo room there is recreated when ``fresh``); print it.

    Bad input (an unknown model spec, ``max_new_tokens`` below 1, a ``room_path`` that exists and is not
    a room the demo created) raises an :class:`~aya_lab.errors.AyaLabError` (:class:`~aya_lab.errors.InputError`,
    ``ModelSpecError``) before any file is touched. ``models`` names a model per role (``{"translator": "gemma3-270m", "aya": "smollm2"}``);
    a role it leaves out gets ``model``, or its measured default when ``model`` is ``None``
    (:func:`~aya_lab.models.loader.default_model_spec`)."""
    if max_new_tokens < 1:
        raise InputError(f"max_new_tokens must be at least 1; got {max_new_tokens}")
    base = default_role_models() if model is None else dict.fromkeys(ROLES, model)
    specs = {**base, **parse_role_models([f"{r}={s}" for r, s in (models or {}).items()])}
    for spec in set(specs.values()):
        parse_spec(spec)
    out = out or sys.stdout
    room_path = Path(room_path)
    if fresh:
        _remove_room(room_path)
    problem = room_file_problem(room_path)  # before minutes of model loading
    if problem:
        raise InputError(problem)
    t0 = time.perf_counter()
    roles = cast(dict[str, LocalChatModel], load_role_models(model, specs, settings={"max_new_tokens": max_new_tokens}))
    for role, chat_model in roles.items():
        if role != "aya" and chat_model is roles["aya"]:
            continue  # one model for every role: one line, as before roles existed
        print(
            f"{'' if chat_model is roles.get('translator') is roles['aya'] else role + ': '}"
            f"model {chat_model.spec} on {chat_model.engine_label} ({chat_model.fingerprint}), "
            f"loaded in {time.perf_counter() - t0:.1f} s",
            file=out,
        )
    room = ChatRoom.open(
        room_path,
        model=roles["aya"],
        models=roles,
        users=USERS,
        memory_policy=creator_policy(list(USERS)),
        created_by=DEMO,
    )
    _print_room(room, room_path, out)
    total = time.perf_counter()
    for sender, text in SCRIPT:
        print(f">>> {sender}: {for_terminal(text, '    ')}", file=out)
        report = room.send(sender, text)
        print(for_terminal(str(report)), "\n", file=out)
    print(f"{len(SCRIPT)} messages in {time.perf_counter() - total:.1f} s\n", file=out)
    _print_feeds(room, out)
    print(STILL_FAILS, file=out)
    return room
