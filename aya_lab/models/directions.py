"""Per-direction translators: a room's translator may use another model for one direction.

A model key ``translator:SRC-TGT`` (ISO 639-3 codes, e.g. ``translator:swh-eng``) names the model that
translates messages written in ``SRC`` for readers of ``TGT``; every other direction uses the
``translator`` role's model. Defaults come from :data:`~aya_lab.settings.DEFAULT_DIRECTION_ADAPTERS`
(the adapters notebook 08 measured above both floors): one applies when the translator role's spec is
the adapter's base, as written (``gemma3-270m``), so a user who names another translator never gets an
adapter trained for a different model. Naming the key yourself overrides the default; naming it with
the translator's own spec turns the adapter off for that direction.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from aya_lab.models.errors import ModelSpecError
from aya_lab.models.registry import LORA_MARK
from aya_lab.paths import adapters_dir, project_root
from aya_lab.settings import DEFAULT_DIRECTION_ADAPTERS

__all__ = ["DIRECTION_KEY", "direction_defaults", "direction_of", "is_direction_key"]

_log = logging.getLogger(__name__)

DIRECTION_KEY = re.compile(r"translator:([a-z]{3})-([a-z]{3})")


def is_direction_key(key: str) -> bool:
    """``True`` for ``translator:SRC-TGT`` with two different three-letter codes."""
    match = DIRECTION_KEY.fullmatch(key)
    return match is not None and match.group(1) != match.group(2)


def direction_of(key: str, written: str) -> str:
    """``SRC-TGT`` of a direction key, or a one-line error naming ``written`` and the form to use."""
    if not is_direction_key(key):
        raise ModelSpecError(
            f"unknown model key {key!r} in {written!r}; a direction is written translator:SRC-TGT with two "
            "different ISO 639-3 codes, e.g. translator:swh-eng"
        )
    return key.split(":", 1)[1]


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when both lie in the checkout (so the specs a notebook
    or the CLI prints are the same on every clone), else absolute."""
    root = project_root()
    try:
        path.resolve().relative_to(root)
        Path.cwd().resolve().relative_to(root)
    except ValueError:
        return str(path)
    return os.path.relpath(path)


def direction_defaults(translator_spec: object) -> dict[str, str]:
    """``{"translator:SRC-TGT": "BASE+lora:DIR"}`` for each default direction adapter whose base is
    ``translator_spec`` (a spec string; a model object gets none). An adapter folder that is missing (an
    install without ``data/adapters``) is skipped with a warning: that direction keeps the translator."""
    if not isinstance(translator_spec, str):
        return {}
    out = {}
    for pair, (base, folder) in DEFAULT_DIRECTION_ADAPTERS.items():
        if translator_spec.strip() != base:
            continue
        path = adapters_dir() / folder
        if not path.is_dir():
            _log.warning("the %s adapter %s is missing; %s uses the translator %s", pair, path, pair, base)
            continue
        out[f"translator:{pair}"] = f"{base}{LORA_MARK}{_shown(path)}"
    return out
