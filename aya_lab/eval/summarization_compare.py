"""One comparison from summarizer runs made on different models or settings.

:func:`evaluate_summarizers` runs its variants on one model. A fine-tuned model (``smollm2+lora:DIR``)
is another model, and it may read the request as written where the prompted variants get it
translated first, so its run is separate. :func:`combine_summarizer_runs` joins chosen variants of
several runs into one ``summaries`` :class:`~aya_lab.eval.report.Report` under new labels: the same
transcripts, one set of transcript resamples shared by every label and metric, paired tests of each
label against the first. The runs are not re-scored; their per-transcript rows are relabelled.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

import pandas as pd

from aya_lab.errors import InputError
from aya_lab.eval.report import Report
from aya_lab.eval.summarization import scored_results

__all__ = ["combine_summarizer_runs"]


def _checked(runs: Mapping[str, tuple[Report, str]]) -> list[str]:
    """The transcript ids every run scored (in order); one-line errors for runs that do not fit together."""
    if len(runs) < 2:
        raise InputError(f"combine_summarizer_runs needs at least two labelled runs, got {len(runs)}")
    ids: list[str] | None = None
    for label, (res, variant) in runs.items():
        if variant not in res.systems:
            raise InputError(f"run for {label!r} has no variant {variant!r}; it has {', '.join(res.systems)}")
        these = list(cast(list[str], res.meta.get("transcript_ids", [])))
        if ids is not None and these != ids:
            raise InputError(
                f"run for {label!r} scored other transcripts than the first run; evaluate every run on the same "
                "transcripts (same n and order)"
            )
        ids = these
    return ids or []


def combine_summarizer_runs(
    runs: Mapping[str, tuple[Report, str]], *, n_bootstrap: int = 1000, seed: int = 0
) -> Report:
    """``runs``: label -> (results, the variant of those results to take). The first label is the baseline.

    All runs must have scored the same transcripts in the same order (``meta["transcript_ids"]``). The
    result's ``meta`` keeps each label's source: model spec, variant, whether requests were translated.
    """
    ids = _checked(runs)
    labels = list(runs)
    per = []
    sigs, sources = {}, {}
    for label, (res, variant) in runs.items():
        rows = res.items[res.items["system"] == variant].copy()
        per.append(rows.assign(system=label))
        sigs[label] = cast(dict[str, dict[str, str]], res.meta.get("signatures", {})).get(
            variant, {"model_fingerprint": "?", "prompt_hash": "?"}
        )
        sources[label] = {
            "model": res.meta.get("model", "?"),
            "variant": variant,
            "translate_requests": res.meta.get("translate_requests"),
        }
    table = pd.concat(per, ignore_index=True)
    dataset_ids = {res.meta.get("dataset_id", "?") for res, _ in runs.values()}
    dataset_id = str(dataset_ids.pop()) if len(dataset_ids) == 1 else "mixed"
    return scored_results(table, labels, ids, sigs, dataset_id, n_bootstrap=n_bootstrap, seed=seed, sources=sources)
