"""The ``faithfulness`` task, and writing the calibration files (:mod:`aya_lab.agents.calibration`) from what it measured.

The task (``run("faithfulness")``, ``aya-lab eval run faithfulness``) evaluates the gate
(:func:`~aya_lab.eval.faithfulness.evaluate_faithfulness`), with a translator's committed real-output floor
when ``translator`` names one. With ``write_calibration=FOLDER`` it measures instead: the thresholds on the
calibration split, and the floor on the labelled drafts of ``translator`` (default: the translator role's
model; :mod:`aya_lab.eval.calibration`), then writes both files there, each record built before
either is written. The report's views compare what was measured with what is committed.

:func:`thresholds_calibration` turns an evaluation of ``data/faithfulness`` (a ``faithfulness``
:class:`~aya_lab.eval.report.Report`: thresholds picked on the calibration split, figures on the
held-out one) into a :class:`~aya_lab.agents.calibration.ThresholdsCalibration`;
:func:`translator_calibration` turns a translator's labelled drafts and the floor placed on them into a
:class:`~aya_lab.agents.calibration.TranslatorCalibration`. Each records the date, the sha256 of every
file it read and what it measured. :func:`write_calibration` writes one as indented JSON, whole or not
at all (a temporary file beside it, renamed into place). The command measures through the folder's scores
file (:data:`~aya_lab.agents.calibration.SCORES_FILE`): scores recorded there are read back, so a record
measured again on another CPU comes out the same; the scores it adds are written with the records.

**A translator's own floor**, placed on its labelled drafts. The per-language thresholds (:mod:`aya_lab.eval.faithfulness`) come from written translations, which
are freer than a small model's literal ones and score lower. :func:`calibrate_floor` places a floor on
one translator's drafts: a quantile of the scores of its *faithful* drafts, applied to pairs whose both
languages have at least :data:`MIN_FAITHFUL_DRAFTS` faithful drafts on either side (the others have too
few to place it); and marks *unsupported* the languages with at least :data:`MIN_UNSUPPORTED_DRAFTS`
drafts and none faithful. The quantile is chosen for a target (:func:`choose_floor_quantile`): the lowest
of :data:`FLOOR_QUANTILES` at which at most ``partial_target`` (default :data:`PARTIAL_TARGET`) of the
labelled drafts are ``partial`` and would reach a reader unmarked -- passing every other check of the
guard (:func:`gate_outcomes`) and scoring at or above the floor -- in-sample; the highest when none
reaches it. A higher floor flags more faithful drafts too (delivered beside the original, still
useful); the record states both. The data are attack runs' messages (default
``data/adversarial/unseen.jsonl``) and a person's labels of the drafts the translator wrote in them
(default ``data/adversarial/unseen_labels.jsonl``, :mod:`aya_lab.eval.fabrications`), several runs
given pairwise, with the directions another model translated in them left out (``skip_directions``):
the floor binds the model that wrote those drafts only. A run used here no longer measures the gate,
so the figures :func:`floor_table` gives are in-sample.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from aya_lab.agents.calibration import (
    CALIBRATION_VERSION,
    PARTIAL_TARGET,
    SCORES_FILE,
    THRESHOLDS_FILE,
    WRITE_COMMAND,
    AgreementCalibration,
    AgreementRates,
    CalibrationError,
    DataFile,
    LabelRates,
    MeasuredRates,
    ThresholdsCalibration,
    TranslatorCalibration,
    calibration_dir,
    load_thresholds,
    translator_path,
    translator_record,
)
from aya_lab.agents.faithfulness import (
    REAL_OUTPUT_QUANTILE,
    WITHHELD_QUANTILE,
    RealOutputFloor,
    faithfulness_scores,
    threshold_for,
    translator_floor,
)
from aya_lab.datasets.project import CorpusError
from aya_lab.errors import InputError
from aya_lab.eval.configs import FaithfulnessConfig
from aya_lab.eval.fabrications import LABELS
from aya_lab.eval.faithfulness import (
    MIN_HONEST,
    FaithPair,
    default_set_path,
    evaluate_faithfulness,
    faithfulness_table,
    gate_report,
    load_faithfulness_set,
    picked_thresholds,
    scored_pairs,
)
from aya_lab.eval.labelled_drafts import (
    AgreementChoice,
    RealDraft,
    choose_agreement,
    doubted,
    gate_outcomes,
    labelled_runs,
    load_agreement_drafts,
    load_labelled_runs,
)
from aya_lab.eval.report import Report, Task
from aya_lab.models.cache import GenerationCache, staged_copy
from aya_lab.paths import project_root
from aya_lab.rag.margins import ScopeMargins, margins_path
from aya_lab.rag.sentence_encoder import ENCODER_NAME
from aya_lab.settings import DEFAULT_ROLE_SPECS
from aya_lab.whole_files import write_text

__all__ = [
    "FAITHFULNESS_TASK",
    "data_file",
    "faithfulness_views",
    "recorded_scores",
    "thresholds_calibration",
    "translator_calibration",
    "writable_folder",
    "write_calibration",
    "FLOOR_QUANTILES",
    "MIN_FAITHFUL_DRAFTS",
    "MIN_UNSUPPORTED_DRAFTS",
    "FloorChoice",
    "agreement_calibration",
    "agreement_sources",
    "calibrate_floor",
    "calibration_runs",
    "choose_floor_quantile",
    "floor_table",
]

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


def _require_whole(data: object, skipped: Mapping[str, int]) -> None:
    """Refuse thresholds measured on part of the set (its external sets ``skipped``): another calibration."""
    if skipped:
        missing = ", ".join(sorted(str(name) for name in skipped))
        raise CalibrationError(
            f"{data}: pairs of {missing} are missing here; set AYA_LAB_DATA_DIR before writing a calibration"
        )


def thresholds_calibration(result: Report, on: dt.date | None = None) -> ThresholdsCalibration:
    """The thresholds file's record of ``result`` (a ``faithfulness`` report that picked its thresholds on
    the calibration split and reports on the held-out one), dated ``on`` (default: today). An error when
    external sets were skipped: thresholds measured on part of the set are another calibration."""
    if result.task != "faithfulness":
        raise InputError(f"a thresholds calibration is made from a faithfulness report, not a {result.task} one")
    skipped = result.meta.get("skipped")
    _require_whole(result.meta["data"], skipped if isinstance(skipped, Mapping) else {})
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


def _translator_command(
    model: str,
    files: Sequence[DataFile],
    skip_directions: Sequence[str],
    choice: FloorChoice | None,
    agreement: AgreementCalibration | None,
) -> str:
    """The command that measures a translator's record again from the same files."""
    runs = [
        f" --real-messages {m.path} --real-labels {lab.path}" for m, lab in zip(files[::2], files[1::2], strict=True)
    ]
    command = f"{WRITE_COMMAND} --translator {model}" + "".join(runs)
    command += f" --skip-directions {','.join(skip_directions)}" if skip_directions else ""
    command += f" --partial-target {choice.target:g}" if choice is not None else ""
    if agreement is not None:
        command += f" --agreement-drafts {agreement.data[0].path} --agreement-labels "
        command += ",".join(f.path for f in agreement.data[1:]) + f" --agreement-prompt {agreement.prompt}"
        command += f" --agreement-target {agreement.target:g}"
    return command


def translator_calibration(
    drafts: Sequence[RealDraft],
    scores: np.ndarray,
    floor: RealOutputFloor,
    sources: Sequence[str | Path],
    fingerprint: str | None = None,
    on: dt.date | None = None,
    thresholds: dict[str, float] | None = None,
    choice: FloorChoice | None = None,
    skip_directions: Sequence[str] = (),
    agreement: AgreementCalibration | None = None,
) -> TranslatorCalibration:
    """The record of ``floor.model``: the floor placed on its labelled ``drafts`` (their ``scores``) at
    ``choice`` (its quantile, target and in-sample partial share; default the fixed
    :data:`~aya_lab.agents.faithfulness.REAL_OUTPUT_QUANTILE`, no target), the files they came from
    (``sources``: messages and labels files, pairwise; ``skip_directions`` left out of them) and, per
    label, the shares the gate withholds and flags (:func:`~aya_lab.eval.calibration.floor_table`;
    ``thresholds``: the written ones, default the committed ones), with its drafts' ``agreement`` threshold."""
    table = floor_table(drafts, scores, floor, thresholds).set_index("label")
    files = [data_file(path) for path in sources]
    return TranslatorCalibration(
        version=CALIBRATION_VERSION,
        kind="translator",
        command=_translator_command(floor.model, files, skip_directions, choice, agreement),
        date=on or dt.date.today(),
        encoder=ENCODER_NAME,
        data=files,
        model=floor.model,
        fingerprint=fingerprint,
        drafts=len(drafts),
        faithful=sum(d.label == "faithful" for d in drafts),
        quantile=REAL_OUTPUT_QUANTILE if choice is None else choice.quantile,
        skip_directions=list(skip_directions),
        partial_target=None if choice is None else choice.target,
        partial_unmarked=None if choice is None else _share(choice.partial_unmarked),
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
        faithful_by_target={
            lang: (sum(d.label == "faithful" for d in drafts if d.tgt == lang), sum(d.tgt == lang for d in drafts))
            for lang in sorted({d.tgt for d in drafts})
        },
        agreement=agreement,
    )


def agreement_calibration(
    choice: AgreementChoice, drafts: int, prompt: str, sources: Sequence[str | Path]
) -> AgreementCalibration:
    """The record of an agreement threshold chosen on ``drafts`` first drafts written under ``prompt``
    (``sources``: the drafts file, then the labels files)."""
    rates = [AgreementRates(threshold=t, partial_unmarked=_share(p) or 0.0, faithful_flagged=_share(f) or 0.0)
             for t, (p, f) in choice.shares.items()]  # fmt: skip
    return AgreementCalibration(prompt=prompt, drafts=drafts, target=choice.target, threshold=choice.threshold,
                                rates=rates, data=[data_file(path) for path in sources])  # fmt: skip


def agreement_sources(config: FaithfulnessConfig, model: str) -> tuple[Path, list[Path], str] | None:
    """The drafts file, labels files and prompt to choose ``model``'s agreement threshold on: the options given,
    else those its committed record names, else none (no threshold is measured)."""
    if config.agreement_drafts is not None:
        if not config.agreement_labels:
            raise InputError("--agreement-drafts needs --agreement-labels: the labels of its first drafts")
        return Path(config.agreement_drafts), [Path(p) for p in config.agreement_labels], config.agreement_prompt
    record = translator_record(model)
    if record is None or record.agreement is None:
        return None
    paths = [project_root() / f.path for f in record.agreement.data]
    return paths[0], paths[1:], record.agreement.prompt


def write_calibration(record: ThresholdsCalibration | TranslatorCalibration | ScopeMargins, directory: Path) -> Path:
    """Write ``record`` into ``directory`` (its file name from its kind) whole or not at all; the path."""
    if isinstance(record, ThresholdsCalibration):
        path = directory / THRESHOLDS_FILE
    elif isinstance(record, ScopeMargins):
        path = margins_path(directory)
    else:
        path = translator_path(record.model, directory)
    text = json.dumps(record.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
    try:
        write_text(path, text)
    except OSError as exc:
        raise CalibrationError(f"{path}: cannot be written ({exc.strerror or exc}); pass a writable folder") from None
    return path


# -- the task -----------------------------------------------------------------------------------------


def writable_folder(value: str) -> Path:
    """``value`` as the folder to write into; refused, before any work, when it is a file or cannot be written."""
    path = Path(value)
    if path.exists() and not path.is_dir():
        raise InputError(f"--write-calibration {value!r} is a file; pass a folder, e.g. data/calibration")
    existing = next((p for p in (path, *path.parents) if p.exists()), Path("."))
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"--write-calibration {value!r}: {existing} cannot be written; pass a folder you can write")
    return path


def _committed_floor(translator: str) -> RealOutputFloor:
    floor = translator_floor(translator)
    if floor is None:
        raise InputError(
            f"no committed calibration record for translator {translator!r}; name one of "
            "data/calibration/translator-*.json, or leave --translator out"
        )
    return floor


def calibration_runs(config: FaithfulnessConfig, model: str) -> tuple[list[tuple[Path, Path]], list[str]]:
    """The labelled runs and skipped directions to measure ``model`` on: the options given, else the runs its
    committed record names (so the command alone measures that record again), else the first unseen run."""
    record = translator_record(model) if config.real_messages is None and config.real_labels is None else None
    if record is None or len(record.data) % 2:
        return labelled_runs(config.real_messages, config.real_labels), list(config.skip_directions)
    paths = [project_root() / f.path for f in record.data]
    return list(zip(paths[::2], paths[1::2], strict=True)), list(config.skip_directions or record.skip_directions)


def recorded_scores(directory: Path | None = None) -> GenerationCache | None:
    """The scores file in ``directory`` (default ``data/calibration``) opened read-only (replay mode: a score it
    lacks is computed and not written), or ``None`` where there is none."""
    path = (directory or calibration_dir()) / SCORES_FILE
    return GenerationCache(path, mode="replay") if path.is_file() else None


@dataclass(frozen=True)
class _AgreementData:
    """The loaded input of an agreement threshold: the drafts file's labelled first drafts and their agreements."""

    drafts: list[RealDraft]
    agreements: list[float | None]
    prompt: str
    sources: list[Path]


def _agreement_data(config: FaithfulnessConfig, model: str) -> _AgreementData | None:
    """``model``'s drafts file and labels (:func:`agreement_sources`) loaded, or ``None``: read before any score,
    so that a bad file is its one-line error at once."""
    found = agreement_sources(config, model)
    if found is None:
        return None
    path, labels, prompt = found
    drafts, agreements = load_agreement_drafts(path, labels)
    return _AgreementData(drafts, agreements, prompt, [path, *labels])


def _measure_agreement(
    data: _AgreementData, floor: RealOutputFloor, thresholds: dict[str, float], target: float, cache: GenerationCache
) -> AgreementCalibration:
    """The agreement threshold chosen on ``data`` under ``floor`` and ``thresholds``, scored through ``cache``."""
    scores = faithfulness_scores([d.source for d in data.drafts], [d.draft for d in data.drafts], cache)
    choice = choose_agreement(data.drafts, data.agreements, scores, floor, thresholds, target)
    return agreement_calibration(choice, len(data.drafts), data.prompt, data.sources)


def _measure_and_write(config: FaithfulnessConfig, folder: Path) -> Report:
    """The report without a floor, and both calibration files written into ``folder`` with the scores they
    were measured on (the drafts' floor table and the files written are kept in the report:
    ``frames["real_drafts"]``, ``meta["calibration"]``)."""
    data = load_faithfulness_set(config.data)
    _require_whole(data.path, data.skipped)  # before any draft is scored
    model = config.translator or DEFAULT_ROLE_SPECS["translator"]
    sources, skip = calibration_runs(config, model)
    drafts = load_labelled_runs(sources, skip)
    agreement_data = _agreement_data(config, model)
    with staged_copy(folder / SCORES_FILE) as cache:
        scores = faithfulness_scores([d.source for d in drafts], [d.draft for d in drafts], cache)
        report = evaluate_faithfulness(config.data, config.split, n_bootstrap=config.n_bootstrap, seed=config.seed,
                                       scores_cache=cache)  # fmt: skip
        thresholds = picked_thresholds(report)
        choice = choose_floor_quantile(drafts, scores, thresholds, config.partial_target)
        floor = calibrate_floor(drafts, scores, choice.quantile, model=model)
        agreement = (
            _measure_agreement(agreement_data, floor, thresholds, config.agreement_target, cache)
            if agreement_data is not None
            else None
        )
        paths = [path for run in sources for path in run]
        records: list[ThresholdsCalibration | TranslatorCalibration] = [
            thresholds_calibration(report),
            translator_calibration(
                drafts,
                scores,
                floor,
                paths,
                config.fingerprint,
                thresholds=thresholds,
                choice=choice,
                skip_directions=skip,
                agreement=agreement,
            ),  # fmt: skip
        ]
    written = [str(write_calibration(record, folder)) for record in records]
    report.frames["real_drafts"] = floor_table(drafts, scores, floor, thresholds)
    report.meta["calibration"] = {"written": written, "model": model, "drafts": len(drafts), "floor": floor.value,
                                  "quantile": choice.quantile, "partial_unmarked": choice.partial_unmarked,
                                  "floor_languages": sorted(floor.languages), "unsupported": sorted(floor.unsupported)}  # fmt: skip
    return report


def _run(config: FaithfulnessConfig) -> Report:
    path = Path(config.data) if config.data else default_set_path()
    if not path.is_file():
        raise CorpusError(
            f"{path}: file not found; pass --data a JSONL file of labelled pairs (default {default_set_path()})"
        )
    if config.write_calibration is not None:
        return _measure_and_write(config, writable_folder(config.write_calibration))
    floor = _committed_floor(config.translator) if config.translator is not None else None
    return evaluate_faithfulness(
        config.data, config.split, n_bootstrap=config.n_bootstrap, seed=config.seed, floor=floor
    )


def _thresholds_view(report: Report) -> pd.DataFrame:
    try:
        committed: dict[str, float] = load_thresholds().thresholds
    except CalibrationError:
        committed = {}
    picked = picked_thresholds(report)
    rows = [{"lang": lang, "picked": value, "committed": committed.get(lang)} for lang, value in sorted(picked.items())]
    return pd.DataFrame(rows, columns=["lang", "picked", "committed"])


def faithfulness_views(report: Report) -> list[tuple[str, pd.DataFrame]]:
    """What ``aya-lab eval run faithfulness`` prints: the gate's table on the reported split, the thresholds
    picked beside the committed ones and, when the run wrote a calibration, the floor it placed, what it
    wrote and the gate on those drafts (in-sample)."""
    skipped = report.meta.get("skipped")
    note = ""
    if isinstance(skipped, Mapping) and skipped:
        missing = ", ".join(f"{name} ({n} pairs)" for name, n in skipped.items())
        note = f" (skipped pairs of external sets that are not here: {missing}; set AYA_LAB_DATA_DIR)"
    table = faithfulness_table(report)
    views = [(f"{report.meta.get('split')} split: precision/recall of 'unfaithful' (withheld), 95% CIs{note}:", table)]
    views.append((f"thresholds picked on the calibration split (committed: {calibration_dir()}):", _thresholds_view(report)))  # fmt: skip
    cal = report.meta.get("calibration")
    if isinstance(cal, Mapping) and "real_drafts" in report.frames:
        try:
            old = translator_record(str(cal["model"]))
        except CalibrationError:
            old = None
        committed = "no committed record" if old is None else f"committed {old.floor:.3f}"
        title = (
            f"real-output floor of {cal['model']} on {cal['drafts']} labelled drafts: {float(cal['floor']):.3f} "
            f"({committed}; the {float(cal['quantile']):.2f} quantile of the faithful drafts' scores, partial drafts "
            f"unmarked in-sample {float(cal['partial_unmarked']):.1%}) for pairs within {', '.join(cal['floor_languages'])}; unsupported: "
            f"{', '.join(cal['unsupported']) or 'none'}; wrote {', '.join(cal['written'])}. The gate alone on those "
            "drafts, in-sample; flagged: between threshold and floor:"
        )
        views.append((title, report.frames["real_drafts"]))
    return views


MIN_FAITHFUL_DRAFTS = 5
"""A language joins the floor only with at least this many faithful drafts to or from it."""
MIN_UNSUPPORTED_DRAFTS = 30
"""A language is unsupported when at least this many drafts go to or from it and none is faithful."""
FLOOR_QUANTILES = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
"""The quantiles of the faithful drafts' scores :func:`choose_floor_quantile` tries, lowest first: the
floor never flags more than about half of the translator's faithful drafts."""


def _languages(drafts: Sequence[RealDraft], min_faithful: int) -> tuple[frozenset[str], frozenset[str]]:
    """The languages the floor binds (``min_faithful`` faithful drafts or more on either side) and the
    unsupported ones (:data:`MIN_UNSUPPORTED_DRAFTS` drafts or more, none faithful)."""
    faithful: dict[str, int] = {}
    total: dict[str, int] = {}
    for d in drafts:
        for lang in {d.src, d.tgt}:
            total[lang] = total.get(lang, 0) + 1
            faithful[lang] = faithful.get(lang, 0) + (d.label == "faithful")
    bound = frozenset(lang for lang, n in faithful.items() if n >= min_faithful)
    return bound, frozenset(lang for lang, n in total.items() if n >= MIN_UNSUPPORTED_DRAFTS and not faithful[lang])


def calibrate_floor(
    drafts: Sequence[RealDraft],
    scores: np.ndarray,
    quantile: float = REAL_OUTPUT_QUANTILE,
    min_faithful: int = MIN_FAITHFUL_DRAFTS,
    model: str = DEFAULT_ROLE_SPECS["translator"],
) -> RealOutputFloor:
    """``model``'s floor: the ``quantile`` of the faithful drafts' scores (rounded to three decimals), for
    the languages with at least ``min_faithful`` faithful drafts on either side; and its unsupported
    languages, with at least :data:`MIN_UNSUPPORTED_DRAFTS` drafts on either side and none faithful. An
    error when no draft is faithful."""
    faithful_scores = [float(s) for d, s in zip(drafts, scores) if d.label == "faithful"]
    if not faithful_scores:
        raise InputError("no draft is labelled faithful: the floor needs the translator's faithful outputs")
    bound, unsupported = _languages(drafts, min_faithful)
    value = round(float(np.quantile(faithful_scores, quantile)), 3)
    return RealOutputFloor(value, bound, model, unsupported=unsupported)


@dataclass(frozen=True)
class FloorChoice:
    """The quantile :func:`choose_floor_quantile` chose for ``target``, and the share of the labelled drafts
    that are partial and unmarked at the floor it places (in-sample)."""

    quantile: float
    target: float
    partial_unmarked: float


def choose_floor_quantile(
    drafts: Sequence[RealDraft],
    scores: np.ndarray,
    thresholds: dict[str, float] | None = None,
    target: float = PARTIAL_TARGET,
    min_faithful: int = MIN_FAITHFUL_DRAFTS,
) -> FloorChoice:
    """The lowest of :data:`FLOOR_QUANTILES` whose floor leaves at most ``target`` of ``drafts`` partial and
    unmarked (:func:`gate_outcomes` ``scored``, at or above the floor where it binds), or the highest
    when none does; ``thresholds``: the written ones (default the committed ones)."""
    outcomes = gate_outcomes(drafts, scores, calibrate_floor(drafts, scores, min_faithful=min_faithful), thresholds)
    share = float("nan")
    for quantile in FLOOR_QUANTILES:
        floor = calibrate_floor(drafts, scores, quantile, min_faithful)
        unmarked = [
            outcome != "withheld" and d.label == "partial" and not doubted(outcome, d, float(s), floor)
            for d, s, outcome in zip(drafts, scores, outcomes, strict=True)
        ]
        share = sum(unmarked) / len(drafts)
        if share <= target:
            return FloorChoice(quantile, target, share)
    return FloorChoice(FLOOR_QUANTILES[-1], target, share)


def floor_table(
    drafts: Sequence[RealDraft],
    scores: np.ndarray,
    floor: RealOutputFloor,
    thresholds: dict[str, float] | None = None,
) -> pd.DataFrame:
    """Per label: drafts, the share the gate alone withholds (under the written threshold; ``thresholds``
    per language, default the committed ones) and the share it flags (between that threshold and
    ``floor``); in-sample when ``floor`` was placed on these drafts."""
    rows = []
    for label in LABELS:
        sel = [(d, float(s)) for d, s in zip(drafts, scores) if d.label == label]
        limits = [
            (threshold_for(d.src, d.tgt, thresholds), threshold_for(d.src, d.tgt, thresholds, floor)) for d, _ in sel
        ]
        withheld = [s < base for (_, s), (base, _) in zip(sel, limits)]
        flagged = [base <= s < top for (_, s), (base, top) in zip(sel, limits)]
        rows.append(
            {
                "label": label,
                "drafts": len(sel),
                "withheld": float(np.mean(withheld)) if sel else float("nan"),
                "flagged": float(np.mean(flagged)) if sel else float("nan"),
            }
        )
    return pd.DataFrame(rows)


FAITHFULNESS_TASK = Task(
    "faithfulness",
    "the faithfulness gate: thresholds picked on the calibration split, precision/recall on another",
    FaithfulnessConfig,
    _run,
    faithfulness_table,
    views=faithfulness_views,
)
