"""Labelled drafts, and what the translation guard does to them: the data a translator's calibration is
measured on (:mod:`aya_lab.eval.calibration`).

* :func:`load_real_drafts` / :func:`load_labelled_runs`: the drafts a translator wrote in attack runs
  (:mod:`aya_lab.eval.attacks`) with a person's labels of them (:mod:`aya_lab.eval.fabrications`), as
  :class:`RealDraft` s; :func:`labelled_runs` pairs the files a command was given.
* :func:`gate_outcomes`: what the guard's checks do to each draft before the translator's floor decides.
* :func:`load_agreement_drafts`: a drafts file (one JSON object per message: ``id``, ``src``, ``text`` and the
  translator's ``drafts`` of it into English, draft 0 first, all under one prompt;
  ``benchmarks/drafts_agreement.py --write`` writes one) with labels of draft 0, each draft 0 with its
  agreement against the others (:func:`~aya_lab.agents.consensus.consensus`). :func:`choose_agreement` picks
  the lowest of :data:`AGREEMENT_THRESHOLDS` at which at most ``target`` of those drafts are partial and arrive
  unmarked, through the guard's other checks and the floor, in-sample (the highest when none is), and gives
  every candidate's shares.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from aya_lab.agents.calibration import AGREEMENT_TARGET
from aya_lab.agents.consensus import consensus
from aya_lab.agents.faithfulness import RealOutputFloor, threshold_for
from aya_lab.agents.guard import ALL_CHECKS, TranslationGuard
from aya_lab.errors import InputError
from aya_lab.eval.attacks import load_attacks
from aya_lab.eval.fabrications import default_labels_path, load_labels
from aya_lab.paths import project_root

__all__ = [
    "AGREEMENT_THRESHOLDS",
    "AgreementChoice",
    "RealDraft",
    "choose_agreement",
    "default_messages_path",
    "doubted",
    "gate_outcomes",
    "labelled_runs",
    "load_agreement_drafts",
    "load_labelled_runs",
    "load_real_drafts",
]

AGREEMENT_THRESHOLDS = (0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)
"""The agreement thresholds :func:`choose_agreement` tries, lowest first."""


@dataclass(frozen=True)
class RealDraft:
    """One labelled draft: the message ``source`` (in ``src``), the translator's ``draft`` into ``tgt``
    and a person's ``label`` (one of :data:`~aya_lab.eval.fabrications.LABELS`)."""

    id: str
    source: str
    src: str
    tgt: str
    draft: str
    label: str


def default_messages_path() -> Path:
    """``data/adversarial/unseen.jsonl``: the messages of the run whose drafts calibrate the floor."""
    return project_root() / "data" / "adversarial" / "unseen.jsonl"


def load_real_drafts(
    messages: str | Path | None = None, labels: str | Path | None = None, skip_directions: Sequence[str] = ()
) -> list[RealDraft]:
    """Every labelled draft of ``labels`` (default :func:`~aya_lab.eval.fabrications.default_labels_path`)
    with its source from ``messages`` (default :func:`default_messages_path`), but those of the
    ``skip_directions`` (``SRC-TGT``); a label whose message is not in ``messages`` is a one-line error."""
    records = {r.id: r for r in load_attacks(messages if messages is not None else default_messages_path())}
    labels_path = Path(labels) if labels is not None else default_labels_path()
    out = []
    for (msg_id, reader, draft), label in load_labels(labels_path).items():
        if msg_id not in records:
            raise InputError(f"{labels_path}: label for {msg_id!r}, which the messages file lacks; pass its --messages")
        rec = records[msg_id]
        if f"{rec.lang}-{reader}" not in skip_directions:
            out.append(RealDraft(msg_id, rec.text, rec.lang, reader, draft, label))
    return out


def labelled_runs(messages: str | Sequence[str] | None, labels: str | Sequence[str] | None) -> list[tuple[Path, Path]]:
    """The ``(messages, labels)`` files of each labelled run, pairwise (default: the first unseen run's); a
    different number of each is a one-line error."""
    if messages is None and labels is None:
        return [(default_messages_path(), default_labels_path())]
    ms = [messages] if isinstance(messages, str) else [*(messages or [str(default_messages_path())])]
    ls = [labels] if isinstance(labels, str) else [*(labels or [str(default_labels_path())])]
    if len(ms) != len(ls):
        raise InputError(
            f"{len(ms)} --real-messages and {len(ls)} --real-labels; pass one labels file per messages file, in order"
        )
    return [(Path(m), Path(lab)) for m, lab in zip(ms, ls, strict=True)]


def load_labelled_runs(runs: Sequence[tuple[Path, Path]], skip_directions: Sequence[str] = ()) -> list[RealDraft]:
    """The labelled drafts of every run (:func:`load_real_drafts`), in order; a message id in two runs is
    a one-line error (the drafts of one message would be judged twice)."""
    drafts: list[RealDraft] = []
    seen: dict[str, Path] = {}
    for messages, labels in runs:
        part = load_real_drafts(messages, labels, skip_directions)
        clash = next((d.id for d in part if d.id in seen), None)
        if clash is not None:
            raise InputError(f"{labels}: message {clash!r} is labelled in {seen[clash]} too; pass each run once")
        seen.update((d.id, labels) for d in part)
        drafts += part
    return drafts


def gate_outcomes(
    drafts: Sequence[RealDraft], scores: np.ndarray, floor: RealOutputFloor, thresholds: dict[str, float] | None = None
) -> list[str]:
    """What the guard does to each draft before its floor decides: ``withheld`` (a language of ``floor``'s
    unsupported, a score under the written threshold, or another check failed), ``flagged`` (another
    check's doubt: a number or weekday left out) or ``scored`` (delivered unmarked when its score reaches
    the floor, where the floor binds the pair)."""
    guard = TranslationGuard(checks=[c for c in ALL_CHECKS if c != "faithful"])
    out = []
    for d, score in zip(drafts, scores, strict=True):
        if floor.unsupported_in(d.src, d.tgt) is not None or score < threshold_for(d.src, d.tgt, thresholds):
            out.append("withheld")
            continue
        verdict = guard.check(d.source, d.draft, d.src, d.tgt)
        out.append("withheld" if not verdict.ok else "flagged" if verdict.doubts else "scored")
    return out


def doubted(
    outcome: str,
    draft: RealDraft,
    score: float,
    floor: RealOutputFloor,
    agreement: float | None = None,
    limit: float = 0.0,
) -> bool:
    """Whether a draft the guard delivers (its :func:`gate_outcomes` ``outcome`` not ``withheld``) arrives
    flagged: another check's doubt, a ``score`` under ``floor`` where it binds, or an ``agreement`` under ``limit``."""
    below = floor.applies(draft.src, draft.tgt) and score < floor.value
    return outcome == "flagged" or below or (agreement is not None and agreement < limit)


@dataclass(frozen=True)
class AgreementChoice:
    """The threshold :func:`choose_agreement` chose for ``target`` and, per candidate threshold, the shares of
    the labelled drafts ``(partial and unmarked, faithful and flagged)``."""

    threshold: float
    target: float
    shares: dict[float, tuple[float, float]]


def load_agreement_drafts(path: Path, labels: Sequence[Path]) -> tuple[list[RealDraft], list[float | None]]:
    """Draft 0 of each message of the drafts file ``path`` that one of ``labels`` labels (as read into English),
    and its agreement with the message's other drafts; a bad line, or no labelled first draft, is a one-line
    error."""
    known = {(i, d): lab for file in labels for (i, reader, d), lab in load_labels(file).items() if reader == "eng"}
    if not path.is_file():
        raise InputError(f"{path}: no such drafts file; pass --agreement-drafts a JSONL file (id, src, text, drafts)")
    drafts: list[RealDraft] = []
    agreements: list[float | None] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            msg_id, src, text, written = (
                str(rec["id"]),
                str(rec["src"]),
                str(rec["text"]),
                [str(d) for d in rec["drafts"]],
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(
                f"{path}:{number}: not a drafts record ({exc!r}); write id, src, text and drafts"
            ) from None
        if not written:
            raise InputError(f"{path}:{number}: {msg_id!r} has no drafts; give each message at least one")
        if (msg_id, written[0]) in known:
            drafts.append(RealDraft(msg_id, text, src, "eng", written[0], known[(msg_id, written[0])]))
            agreements.append(consensus(written, text).agreement)
    if not drafts:
        shown = ", ".join(str(file) for file in labels)
        raise InputError(f"{path}: no first draft has a label in {shown}; label them (reader_lang eng) first")
    return drafts, agreements


def choose_agreement(
    drafts: Sequence[RealDraft],
    agreements: Sequence[float | None],
    scores: np.ndarray,
    floor: RealOutputFloor,
    thresholds: dict[str, float] | None = None,
    target: float = AGREEMENT_TARGET,
) -> AgreementChoice:
    """The lowest of :data:`AGREEMENT_THRESHOLDS` at which at most ``target`` of ``drafts`` are partial and
    delivered unmarked -- not withheld (:func:`gate_outcomes`), no other check's doubt, at or above ``floor``
    where it binds, and agreeing at least the threshold -- or the highest when none is; ``thresholds``: the
    written ones (default the committed ones)."""
    if not drafts:
        raise InputError("no labelled first draft to choose an agreement threshold on; check the drafts and labels")
    outcomes = gate_outcomes(drafts, scores, floor, thresholds)
    shares: dict[float, tuple[float, float]] = {}
    for limit in AGREEMENT_THRESHOLDS:
        partial = faithful = 0
        for d, score, agreement, outcome in zip(drafts, scores, agreements, outcomes, strict=True):
            if outcome == "withheld":
                continue
            doubt = doubted(outcome, d, float(score), floor, agreement, limit)
            partial += d.label == "partial" and not doubt
            faithful += d.label == "faithful" and doubt
        shares[limit] = (partial / len(drafts), faithful / len(drafts))
    chosen = next((t for t in AGREEMENT_THRESHOLDS if shares[t][0] <= target), AGREEMENT_THRESHOLDS[-1])
    return AgreementChoice(chosen, target, shares)
