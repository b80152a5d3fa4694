"""Writing the calibration files (:mod:`aya_lab.agents.calibration`) from what ``aya-lab eval faithfulness`` measured.

:func:`thresholds_calibration` turns an evaluation of ``data/faithfulness`` (a ``faithfulness``
:class:`~aya_lab.eval.report.Report`: thresholds picked on the calibration split, figures on the
held-out one) into a :class:`~aya_lab.agents.calibration.ThresholdsCalibration`;
:func:`translator_calibration` turns a translator's labelled drafts and the floor placed on them into a
:class:`~aya_lab.agents.calibration.TranslatorCalibration`. Each records the date, the sha256 of every
file it read and what it measured. :func:`write_calibration` writes one as indented JSON, whole or not
at all (a temporary file beside it, renamed into place).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from aya_lab.agents.calibration import (
    CALIBRATION_VERSION,
    THRESHOLDS_FILE,
    WRITE_COMMAND,
    CalibrationError,
    DataFile,
    LabelRates,
    MeasuredRates,
    ThresholdsCalibration,
    TranslatorCalibration,
    translator_path,
)
from aya_lab.agents.faithfulness import REAL_OUTPUT_QUANTILE, WITHHELD_QUANTILE, RealOutputFloor
from aya_lab.errors import InputError
from aya_lab.eval.faithfulness import MIN_HONEST, gate_report, picked_thresholds, scored_pairs
from aya_lab.eval.faithfulness_data import FaithPair
from aya_lab.eval.faithfulness_real import (
    MIN_FAITHFUL_DRAFTS,
    MIN_UNSUPPORTED_DRAFTS,
    RealDraft,
    floor_table,
)
from aya_lab.eval.report import Report
from aya_lab.paths import project_root
from aya_lab.rag.sentence_encoder import ENCODER_NAME

__all__ = ["data_file", "thresholds_calibration", "translator_calibration", "write_calibration"]

_DIGITS = 4
"""Measured shares are stored rounded to this many decimals (counts' ratios; the rounding hides no decision)."""


def data_file(path: str | Path) -> DataFile:
    """``path`` (relative to the project root when inside it, POSIX separators) with its sha256."""
    resolved = Path(path).resolve()
    try:
        shown = resolved.relative_to(project_root().resolve()).as_posix()
    except ValueError:
        shown = resolved.as_posix()
    return DataFile(path=shown, sha256=hashlib.sha256(resolved.read_bytes()).hexdigest())


def _share(value: float) -> float | None:
    return None if np.isnan(value) else round(float(value), _DIGITS)


def _resolved_hash(pairs: Sequence[FaithPair]) -> str:
    """sha256 of the pairs as scored: every field, external references resolved, in file order."""
    h = hashlib.sha256()
    for p in pairs:
        h.update(
            json.dumps([p.id, p.split, p.kind, p.label, p.src, p.tgt, p.source, p.output], ensure_ascii=False).encode()
        )
        h.update(b"\n")
    return h.hexdigest()


def thresholds_calibration(result: Report, on: dt.date | None = None) -> ThresholdsCalibration:
    """The thresholds file's record of ``result`` (a ``faithfulness`` report that picked its thresholds on
    the calibration split and reports on the held-out one), dated ``on`` (default: today). An error when
    external sets were skipped: thresholds measured on part of the set are another calibration."""
    if result.task != "faithfulness":
        raise InputError(f"a thresholds calibration is made from a faithfulness report, not a {result.task} one")
    skipped = result.meta.get("skipped")
    if isinstance(skipped, Mapping) and skipped:
        missing = ", ".join(sorted(str(name) for name in skipped))
        raise CalibrationError(
            f"{result.meta['data']}: pairs of {missing} are missing here; set AYA_LAB_DATA_DIR before writing a calibration"
        )
    pairs, scores = scored_pairs(result)
    thresholds = picked_thresholds(result)
    held = [i for i, p in enumerate(pairs) if p.split == "holdout"]
    row = gate_report([pairs[i] for i in held], scores[held], thresholds, n_bootstrap=0).iloc[0]
    honest = sum(1 for p in pairs if p.split == "calibration" and not p.unfaithful)
    return ThresholdsCalibration(
        version=CALIBRATION_VERSION,
        kind="faithfulness-thresholds",
        command=f"{WRITE_COMMAND} (thresholds: calibration split; figures: holdout split)",
        date=on or dt.date.today(),
        encoder=ENCODER_NAME,
        data=[data_file(str(result.meta["data"]))],
        quantile=WITHHELD_QUANTILE,
        min_honest=MIN_HONEST,
        honest_pairs=honest,
        resolved_sha256=_resolved_hash(pairs),
        thresholds=dict(sorted(thresholds.items())),
        holdout=MeasuredRates(
            pairs=len(held),
            precision=_share(row["precision"]),
            recall=_share(row["recall"]),
            withheld=_share(row["withheld"]),
        ),
    )


def translator_calibration(
    drafts: Sequence[RealDraft],
    scores: np.ndarray,
    floor: RealOutputFloor,
    sources: Sequence[str | Path],
    fingerprint: str | None = None,
    on: dt.date | None = None,
    thresholds: dict[str, float] | None = None,
) -> TranslatorCalibration:
    """The record of ``floor.model``: the floor placed on its labelled ``drafts`` (their ``scores``), the
    files they came from (``sources``: the messages and labels files) and, per label, the shares the
    gate withholds and flags (:func:`~aya_lab.eval.faithfulness_real.floor_table`; ``thresholds``: the
    written ones, default the committed ones)."""
    table = floor_table(drafts, scores, floor, thresholds).set_index("label")
    return TranslatorCalibration(
        version=CALIBRATION_VERSION,
        kind="translator",
        command=f"{WRITE_COMMAND} --translator {floor.model}",
        date=on or dt.date.today(),
        encoder=ENCODER_NAME,
        data=[data_file(path) for path in sources],
        model=floor.model,
        fingerprint=fingerprint,
        drafts=len(drafts),
        faithful=sum(d.label == "faithful" for d in drafts),
        quantile=REAL_OUTPUT_QUANTILE,
        min_faithful=MIN_FAITHFUL_DRAFTS,
        min_unsupported=MIN_UNSUPPORTED_DRAFTS,
        floor=floor.value,
        floor_languages=sorted(floor.languages),
        unsupported=sorted(floor.unsupported),
        measured={
            str(label): LabelRates(
                drafts=int(r["drafts"]), withheld=_share(r["withheld"]), flagged=_share(r["flagged"])
            )
            for label, r in table.iterrows()
        },
    )


def write_calibration(record: ThresholdsCalibration | TranslatorCalibration, directory: Path) -> Path:
    """Write ``record`` into ``directory`` (its file name from its kind) whole or not at all; the path."""
    if isinstance(record, ThresholdsCalibration):
        path = directory / THRESHOLDS_FILE
    else:
        path = translator_path(record.model, directory)
    directory.mkdir(parents=True, exist_ok=True)
    text = json.dumps(record.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise CalibrationError(f"{path}: cannot be written ({exc.strerror or exc}); pass a writable folder") from None
    return path
