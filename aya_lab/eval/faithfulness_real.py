"""The faithfulness gate's real-output floor: placed on a translator's own labelled drafts.

The per-language thresholds (:mod:`aya_lab.eval.faithfulness`) come from written translations, which
are freer than a small model's literal ones and score lower. :func:`calibrate_floor` places a floor on
one translator's drafts: the :data:`~aya_lab.agents.faithfulness.REAL_OUTPUT_QUANTILE` quantile of the
scores of its *faithful* drafts, applied to pairs whose both languages have at least
:data:`MIN_FAITHFUL_DRAFTS` faithful drafts on either side (the others have too few to place it); and
marks *unsupported* the languages with at least :data:`MIN_UNSUPPORTED_DRAFTS` drafts and none faithful.
The data are an attack run's messages (default ``data/adversarial/unseen.jsonl``) and a person's labels
of the drafts the translator wrote in it (default ``data/adversarial/unseen_labels.jsonl``,
:mod:`aya_lab.eval.fabrications`): the floor binds the model that wrote those drafts only. A run used
here no longer measures the gate, so the figures :func:`floor_table` gives are in-sample.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from aya_lab.agents.faithfulness import REAL_OUTPUT_QUANTILE, RealOutputFloor, threshold_for
from aya_lab.errors import InputError
from aya_lab.eval.attack_data import load_attacks
from aya_lab.eval.fabrications import LABELS, default_labels_path, load_labels
from aya_lab.paths import project_root
from aya_lab.settings import DEFAULT_ROLE_SPECS

__all__ = [
    "MIN_FAITHFUL_DRAFTS",
    "MIN_UNSUPPORTED_DRAFTS",
    "RealDraft",
    "calibrate_floor",
    "default_messages_path",
    "floor_table",
    "load_real_drafts",
]

MIN_FAITHFUL_DRAFTS = 5
"""A language joins the floor only with at least this many faithful drafts to or from it."""
MIN_UNSUPPORTED_DRAFTS = 30
"""A language is unsupported when at least this many drafts go to or from it and none is faithful."""


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


def load_real_drafts(messages: str | Path | None = None, labels: str | Path | None = None) -> list[RealDraft]:
    """Every labelled draft of ``labels`` (default :func:`~aya_lab.eval.fabrications.default_labels_path`)
    with its source from ``messages`` (default :func:`default_messages_path`); a label whose message is
    not in ``messages`` is a one-line error."""
    records = {r.id: r for r in load_attacks(messages if messages is not None else default_messages_path())}
    labels_path = Path(labels) if labels is not None else default_labels_path()
    out = []
    for (msg_id, reader, draft), label in load_labels(labels_path).items():
        if msg_id not in records:
            raise InputError(f"{labels_path}: label for {msg_id!r}, which the messages file lacks; pass its --messages")
        rec = records[msg_id]
        out.append(RealDraft(msg_id, rec.text, rec.lang, reader, draft, label))
    return out


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
    faithful: dict[str, int] = {}
    total: dict[str, int] = {}
    for d in drafts:
        for lang in {d.src, d.tgt}:
            total[lang] = total.get(lang, 0) + 1
            faithful[lang] = faithful.get(lang, 0) + (d.label == "faithful")
    value = round(float(np.quantile(faithful_scores, quantile)), 3)
    return RealOutputFloor(
        value,
        frozenset(lang for lang, n in faithful.items() if n >= min_faithful),
        model,
        unsupported=frozenset(lang for lang, n in total.items() if n >= MIN_UNSUPPORTED_DRAFTS and not faithful[lang]),
    )


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
