"""Where aya_lab keeps files it makes itself (converted models, caches) and where it reads data."""

from __future__ import annotations

import stat
from functools import cache
from pathlib import Path

from aya_lab.errors import InputError
from aya_lab.settings import settings

__all__ = [
    "SYSTEM_FOLDERS",
    "adapters_dir",
    "cache_dir",
    "data_dir",
    "file_kind",
    "fewshot_pools_dir",
    "kb_dir",
    "project_root",
    "prompts_dir",
    "rag_questions_dir",
    "system_folder",
]

SYSTEM_FOLDERS = (Path("/dev"), Path("/proc"), Path("/sys"))
"""The operating system's folders: no room, result or other file the project writes ever belongs there."""


_FILE_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def file_kind(mode: int) -> str:
    """What a ``st_mode`` that is no regular file is, in words (``"a folder"``, ``"a named pipe (FIFO)"``,
    ...), for the one-line refusals of paths that must name a regular file."""
    return next((kind for test, kind in _FILE_KINDS if test(mode)), "a special file")


def system_folder(path: Path) -> Path | None:
    """The system folder (:data:`SYSTEM_FOLDERS`) that ``path``, links resolved, lies in, or ``None``."""
    resolved = path.resolve()
    return next((f for f in SYSTEM_FOLDERS if resolved.is_relative_to(f)), None)


def cache_dir() -> Path:
    """``AYA_LAB_CACHE_DIR`` or ``~/.cache/aya_lab`` (created on first use)."""
    path = settings().cache_dir or Path.home() / ".cache" / "aya_lab"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a setting that names no usable folder is refused input, in one line
        named = "AYA_LAB_CACHE_DIR" if settings().cache_dir else "the cache folder"
        raise InputError(
            f"{named} {str(path)!r} cannot be created ({exc.strerror or exc}); "
            "set AYA_LAB_CACHE_DIR to a folder you can write, or unset it for ~/.cache/aya_lab"
        ) from None
    return path


def data_dir() -> Path | None:
    """The external data directory named by ``AYA_LAB_DATA_DIR`` (``None`` when unset)."""
    return settings().data_dir


@cache
def project_root() -> Path:
    """The repository root (the folder above the ``aya_lab`` package); resolved once per process (a prompt
    render asks for it several times)."""
    return Path(__file__).resolve().parent.parent


def _resource(name: str) -> Path:
    """A folder shipped with aya_lab: the checkout's own (``prompts/``, ``data/kb``) when running from a
    source tree, else the copy that the wheel carries under ``aya_lab/resources/``."""
    checkout = project_root() / name
    if checkout.is_dir():
        return checkout
    return project_root() / "aya_lab" / "resources" / Path(name).name


def prompts_dir() -> Path:
    """The prompt variants: ``prompts/<task>/<variant>.yaml``."""
    return _resource("prompts")


def kb_dir() -> Path:
    """The company knowledge base Aya answers from (``data/kb``)."""
    return _resource("data/kb")


def fewshot_pools_dir() -> Path:
    """The few-shot example pools of completion prompts (``data/fewshot``)."""
    return _resource("data/fewshot")


def glossary_dir() -> Path:
    """The term glossary that reads policy questions in English (``data/glossary``)."""
    return _resource("data/glossary")


def rag_questions_dir() -> Path:
    """The labelled policy questions (``data/rag``): what the scope pool reads (:mod:`aya_lab.rag.scope`)."""
    return _resource("data/rag")


def calibration_dir() -> Path:
    """The committed calibrations (``data/calibration``): the guard's thresholds and each translator's record
    (:mod:`aya_lab.agents.calibration`), the quoting scope's margins (:mod:`aya_lab.rag.margins`)."""
    return _resource("data/calibration")


def adapters_dir() -> Path:
    """The LoRA adapters the project trained and measured (``data/adapters``)."""
    return _resource("data/adapters")
