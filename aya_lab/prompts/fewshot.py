"""Few-shot pools: the example records a completion prompt draws from, and how a prompt names them.

A pool is a YAML file ``data/fewshot/<pool>.yaml`` (a mapping with an ``examples`` list of records,
written for the purpose; see its README). A prompt names its pool and how to write one example in an
:class:`ExamplesSpec`; which records are chosen and how they are written into the prompt is rendering
(:func:`aya_lab.prompts.render.examples_block`). Pools are read once per path and modification time.
A pool's file hash is part of the content hash of every prompt that uses it.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

from aya_lab.paths import fewshot_pools_dir
from aya_lab.prompts.errors import PromptError
from aya_lab.settings import settings

__all__ = [
    "ExamplesSpec",
    "NearestSpec",
    "fewshot_dir",
    "load_pool",
    "pool_hash",
    "pool_keys",
    "spec_keys",
    "spec_records",
]


class NearestSpec(BaseModel):
    """Examples chosen per input: records ranked by how alike their ``field`` text (a template field, read
    from the record as :class:`ExamplesSpec` reads it) is to the render value ``value``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str
    value: str


class ExamplesSpec(BaseModel):
    """Where a completion prompt's few-shot examples come from and how one is written.

    ``template`` fields are filled from the record (``keys`` maps a field to a record key, itself a
    template over the render values, e.g. ``{source: "{source_code}"}``; other fields are looked up in
    the record by their own name) or, failing that, from the render values. The first ``k`` records
    that have every needed key (non-empty) and do not repeat a render value are used, in file order;
    fewer than ``min`` is an error naming the pool and the fix. ``records`` given inline (built at run
    time, e.g. from a test set's dev split, which must not be copied into the repository) replace the
    pool file; ``pool`` then only labels them, and the records are part of the prompt's content hash.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    pool: str
    k: int = Field(3, ge=1, le=32)
    min: int | None = Field(None, ge=0)
    template: str
    keys: dict[str, str] = Field(default_factory=dict)
    separator: str = "\n"
    records: tuple[dict[str, str], ...] | None = None
    nearest: NearestSpec | None = None
    skip: int = Field(0, ge=0, le=32)


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


def pool_keys(name: str) -> set[str]:
    """Every key used by a record of pool ``name`` (empty when the pool is missing or malformed)."""
    try:
        return {k for r in load_pool(name) for k in r}
    except PromptError:
        return set()


def pool_hash(name: str) -> str:
    """A short hash of pool ``name``'s file bytes (``"missing"`` when there is no such file)."""
    path = fewshot_dir() / f"{name}.yaml"
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.is_file() else "missing"


def spec_records(spec: ExamplesSpec) -> list[dict[str, str]]:
    """The records ``spec`` draws from: its inline ``records``, else its pool file's."""
    if spec.records is not None:
        return [dict(r) for r in spec.records]
    return load_pool(spec.pool)


def spec_keys(spec: ExamplesSpec) -> set[str]:
    """Every key used by a record ``spec`` draws from (empty when its pool is missing or malformed)."""
    if spec.records is not None:
        return {k for r in spec.records for k in r}
    return pool_keys(spec.pool)
