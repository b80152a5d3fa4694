"""Calibrations are data: the faithfulness gate's measured numbers, one JSON file each under ``data/calibration/``.

Two kinds of file, each a versioned pydantic model (``extra="forbid"``):

- ``faithfulness-thresholds.json`` (:class:`ThresholdsCalibration`): the model-independent per-language
  thresholds of the faithfulness gate, measured on written translations.
- ``translator-<key>.json`` (:class:`TranslatorCalibration`): what one translator model's own labelled
  drafts say of it: its real-output floor, the languages the floor binds, and the languages it produced
  no faithful draft in. ``<key>`` is :func:`model_key` of the model's spec, and the file's ``model`` must
  equal that spec exactly: an adapter (``gemma3-270m+lora:PATH``) is another model than its base.

Each file names the command that wrote it, the date, the data it read (each file's path and sha256) and
what it measured there. ``aya-lab eval run faithfulness --write-calibration data/calibration`` writes them; nobody types them.
Beside them, ``scores.sqlite`` (:data:`SCORES_FILE`, :func:`aya_lab.eval.calibration.recorded_scores`) keeps the encoder's score of
every pair and draft they were measured on, keyed by a hash of the encoder and both texts (no text): the
encoder rounds differently on different CPUs, and a record re-derived through these scores is exact on any.

A model without a translator file has **no record**, and the guard judges its drafts by the
model-independent gate only: the written thresholds, no floor (none of its drafts is flagged
``[unverified]``) and no unsupported-language rule (none is withheld for its languages alone).

:func:`load_thresholds` and :func:`translator_record` validate what they read; a missing thresholds file,
an unreadable file or a bad field is a one-line :class:`CalibrationError` naming the file, the field and
the fix. Files are read once per change (cached on their modification time).
"""

from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from aya_lab.errors import AyaLabError
from aya_lab.json_record import read_record
from aya_lab.paths import calibration_dir

__all__ = [
    "AGREEMENT_TARGET",
    "CALIBRATION_VERSION",
    "PARTIAL_TARGET",
    "SCORES_FILE",
    "THRESHOLDS_FILE",
    "WRITE_COMMAND",
    "AgreementCalibration",
    "AgreementRates",
    "CalibrationError",
    "DataFile",
    "LabelRates",
    "MeasuredRates",
    "ThresholdsCalibration",
    "TranslatorCalibration",
    "calibration_dir",
    "load_thresholds",
    "model_key",
    "translator_path",
    "translator_record",
]

CALIBRATION_VERSION = 1
THRESHOLDS_FILE = "faithfulness-thresholds.json"
SCORES_FILE = "scores.sqlite"
"""The scores the records were measured on: a generation cache file with only its similarities table."""
WRITE_COMMAND = "aya-lab eval run faithfulness --write-calibration data/calibration"
"""The command that measures and writes the calibration files (the fix a bad file's error names)."""
PARTIAL_TARGET = 0.10
"""What a translator's floor aims at: at most this share of its labelled drafts partial and delivered
unmarked (issue 40's target for the room; a policy, not a measurement)."""
AGREEMENT_TARGET = 0.08
"""What a translator's agreement threshold aims at: at most this share of its labelled first drafts partial
and unmarked, in-sample; 2 points under :data:`PARTIAL_TARGET` because the floor chosen for 10% in-sample left
16.2% on its test set (a policy; docs/ROOM.md, "Three drafts")."""


class CalibrationError(AyaLabError, ValueError):
    """A calibration file that is missing, unreadable or malformed (one line: the file, the field, the fix)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DataFile(_Strict):
    """A file a calibration read: its ``path`` (relative to the project root where it lies inside it) and sha256."""

    path: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class MeasuredRates(_Strict):
    """The gate's point figures on ``pairs`` held-out pairs: precision and recall of "unfaithful"
    (withheld) and the share of honest pairs withheld (``None`` where undefined)."""

    pairs: int = Field(ge=0)
    precision: float | None = Field(ge=0, le=1)
    recall: float | None = Field(ge=0, le=1)
    withheld: float | None = Field(ge=0, le=1)


class LabelRates(_Strict):
    """Of one label's ``drafts``: the share the written thresholds withhold and the share the floor flags."""

    drafts: int = Field(ge=0)
    withheld: float | None = Field(ge=0, le=1)
    flagged: float | None = Field(ge=0, le=1)


class _Calibration(_Strict):
    version: Literal[1]
    command: str = Field(min_length=1)
    date: dt.date
    encoder: str = Field(min_length=1)
    data: list[DataFile] = Field(min_length=1)


class ThresholdsCalibration(_Calibration):
    """The model-independent thresholds: per language, the ``quantile`` of the scores of honest
    calibration-split pairs with it on either side (languages with ``min_honest`` such pairs or more);
    ``resolved_sha256`` hashes the pairs as scored (external references resolved); ``holdout`` is what
    the thresholds do on the held-out split."""

    kind: Literal["faithfulness-thresholds"]
    quantile: float = Field(gt=0, lt=1)
    min_honest: int = Field(ge=1)
    honest_pairs: int = Field(ge=1)
    resolved_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    thresholds: dict[str, float] = Field(min_length=1)
    holdout: MeasuredRates

    @model_validator(mode="after")
    def _scores(self) -> ThresholdsCalibration:
        bad = next((lang for lang, v in self.thresholds.items() if not -1.0 <= v <= 1.0), None)
        if bad is not None:
            raise ValueError(
                f"thresholds: {bad}'s {self.thresholds[bad]} is no similarity; a threshold lies in [-1, 1]"
            )
        return self


class AgreementRates(_Strict):
    """At one agreement ``threshold``: the shares of the labelled first drafts partial and unmarked, and
    faithful and flagged (in-sample)."""

    threshold: float = Field(ge=0, le=1)
    partial_unmarked: float = Field(ge=0, le=1)
    faithful_flagged: float = Field(ge=0, le=1)


class AgreementCalibration(_Strict):
    """The translator's agreement threshold for drafts written under ``prompt`` (:mod:`aya_lab.agents.consensus`:
    a draft that agrees less with the model's other drafts arrives flagged): of the candidates in ``rates``, the
    lowest at which at most ``target`` of the ``drafts`` labelled first drafts are partial and unmarked, with
    the floor and the guard's other checks, in-sample (the highest when none is); ``data``: the drafts file,
    then the labels files."""

    prompt: str = Field(min_length=1)
    drafts: int = Field(ge=1)
    target: float = Field(gt=0, le=1)
    threshold: float = Field(ge=0, le=1)
    rates: list[AgreementRates] = Field(min_length=1)
    data: list[DataFile] = Field(min_length=2)


class TranslatorCalibration(_Calibration):
    """One translator's record: ``model`` (its spec; the key), its ``fingerprint`` where the labelled run
    recorded one, the labelled ``drafts`` (``faithful`` of them), the ``floor`` (the ``quantile`` of the
    faithful drafts' scores) binding pairs within ``floor_languages`` (``min_faithful`` faithful drafts or
    more), the ``unsupported`` languages (``min_unsupported`` drafts or more, none faithful), per label what
    the gate did to those drafts (in-sample: the floor was placed on them) and, per target language, how
    many of its drafts were faithful. Where the ``quantile`` was chosen for ``partial_target`` (the lowest
    quantile at which at most that share of the labelled drafts are partial and delivered unmarked),
    ``partial_unmarked`` is that share at the chosen floor, in-sample; older records have neither.
    ``skip_directions``: the ``SRC-TGT`` directions left out of the labelled runs (another model wrote them).
    ``agreement``: its drafts' agreement threshold, where it was measured (:class:`AgreementCalibration`)."""

    kind: Literal["translator"]
    model: str = Field(min_length=1)
    fingerprint: str | None = None
    drafts: int = Field(ge=1)
    faithful: int = Field(ge=1)
    quantile: float = Field(gt=0, lt=1)
    min_faithful: int = Field(ge=1)
    min_unsupported: int = Field(ge=1)
    floor: float = Field(ge=-1, le=1)
    floor_languages: list[str]
    unsupported: list[str]
    measured: dict[str, LabelRates]
    skip_directions: list[str] = Field(default_factory=list)
    partial_target: float | None = Field(default=None, gt=0, le=1)
    partial_unmarked: float | None = Field(default=None, ge=0, le=1)
    faithful_by_target: dict[str, tuple[int, int]] = Field(default_factory=dict)
    """Per target language, ``(faithful, labelled)`` drafts: how often the model's translations into it were
    faithful (the readers' routes, :func:`~aya_lab.room.delivery.route`, read it); empty in older records."""
    agreement: AgreementCalibration | None = None


def model_key(spec: str) -> str:
    """The file-name key of a model spec: every character outside ``[A-Za-z0-9._-]`` becomes ``-``."""
    return re.sub(r"[^A-Za-z0-9._-]", "-", spec.strip())


def translator_path(spec: str, directory: Path | None = None) -> Path:
    """``translator-<model_key(spec)>.json`` in ``directory`` (default :func:`calibration_dir`)."""
    return (directory or calibration_dir()) / f"translator-{model_key(spec)}.json"


@lru_cache(maxsize=64)
def _read(path: Path, mtime_ns: int, kind: str) -> ThresholdsCalibration | TranslatorCalibration:
    """The validated file at ``path`` (``mtime_ns`` keys the cache: a rewritten file is read again)."""
    if kind == "thresholds":
        return read_record(path, ThresholdsCalibration, WRITE_COMMAND, CalibrationError)
    return read_record(path, TranslatorCalibration, WRITE_COMMAND, CalibrationError)


def load_thresholds(directory: Path | None = None) -> ThresholdsCalibration:
    """The model-independent thresholds file of ``directory`` (default :func:`calibration_dir`); an error
    when it is missing (the gate has no thresholds without it)."""
    path = (directory or calibration_dir()) / THRESHOLDS_FILE
    if not path.is_file():
        raise CalibrationError(f"{path}: file not found; restore it from git or run `{WRITE_COMMAND}`")
    record = _read(path, path.stat().st_mtime_ns, "thresholds")
    assert isinstance(record, ThresholdsCalibration)
    return record


def translator_record(spec: str, directory: Path | None = None) -> TranslatorCalibration | None:
    """The calibration of the translator ``spec`` (:func:`translator_path`), or ``None``: no record. A
    file whose ``model`` is not ``spec`` exactly is an error (two specs with one key)."""
    path = translator_path(spec, directory)
    if not path.is_file():
        return None
    record = _read(path, path.stat().st_mtime_ns, "translator")
    assert isinstance(record, TranslatorCalibration)
    if record.model != spec.strip():
        raise CalibrationError(
            f"{path}: model: {record.model!r} is not {spec.strip()!r}, the model this file's name is for; "
            f"rerun `{WRITE_COMMAND} --translator {spec.strip()}`"
        )
    return record
