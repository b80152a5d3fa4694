"""The ``scope`` task: the quoting scope rule's section margins measured on the development questions
(:mod:`aya_lab.rag.margins` states the rule and the record).

``run("scope")`` searches every question of :data:`~aya_lab.rag.margins.WRITTEN_SETS` and
:data:`~aya_lab.rag.margins.GLOSSED_SETS` (``data/rag``) over the handbook's sections as written, and the
glossed sets' questions also with their glossary terms, as Aya does, through the encoder's recorded vectors;
its report holds, for every candidate margin, the share of in-scope questions kept in scope (written) and of
out-of-scope ones refused (written, and glossed with the plain ones at the written margin), with the chosen
margins in ``meta``; ``items`` holds each question's margins. With ``write_calibration=FOLDER``
(``aya-lab eval run scope --write-calibration data/calibration``) it also writes the record, whole or not at all.
No model is called and no resampling is done: the shares are of a fixed development set, not estimates.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pandas as pd

from aya_lab.errors import InputError
from aya_lab.eval.calibration import data_file, writable_folder, write_calibration
from aya_lab.eval.configs import ScopeConfig
from aya_lab.eval.report import Report, Task
from aya_lab.paths import kb_dir, rag_questions_dir
from aya_lab.rag.documents import read_documents
from aya_lab.rag.glossary import default_glossary, question_language
from aya_lab.rag.margins import (
    GLOSSED_SETS,
    GRID,
    KEEP_IN_SCOPE,
    MARGINS_COMMAND,
    WRITTEN_SETS,
    QuestionMargin,
    ScopeMargins,
    derive_margins,
    kept_in_scope,
    refused_out_of_scope,
)
from aya_lab.rag.scope import labelled_records
from aya_lab.rag.sections import SectionIndex, read_sections
from aya_lab.rag.sentence_encoder import ENCODER_NAME

__all__ = ["SCOPE_TASK", "measure_margins"]

_SETS = tuple(dict.fromkeys((*WRITTEN_SETS, *GLOSSED_SETS)))  # every set a margin is chosen on, each once


def _questions(path: Path) -> list[dict[str, object]]:
    """The labelled questions of ``path`` (:func:`~aya_lab.rag.scope.labelled_records`), each with an ``id``; a
    record without one is a one-line :class:`InputError` naming the file and record."""
    records = labelled_records([path])
    missing = next((n for n, record in enumerate(records, 1) if not record.get("id")), None)
    if missing is not None:
        raise InputError(f"{path}: labelled question {missing} has no 'id'; give every question an id")
    return records


def measure_margins(docs: Path | None = None, folder: Path | None = None) -> list[QuestionMargin]:
    """Every development question's margins over the handbook ``docs`` (default ``data/kb``), read from the
    sets in ``folder`` (default ``data/rag``)."""
    index = SectionIndex.shared(read_sections(read_documents(docs or kb_dir())))
    glossary = default_glossary()
    out = []
    for name in _SETS:
        for q in _questions((folder or rag_questions_dir()) / name):
            text = str(q["question"])
            lang = question_language(text) if name in GLOSSED_SETS else None
            terms = glossary.english_terms(text, lang) if lang else None
            glossed = index.search([text, terms])[0].margin if terms else None
            margin = index.search([text])[0].margin
            out.append(QuestionMargin(set=name, id=str(q["id"]), lang=str(q.get("lang", "eng")),
                                      in_scope=bool(q["in_scope"]), margin=margin, glossed=glossed))  # fmt: skip
    return out


def _shares(questions: list[QuestionMargin], min_margin: float) -> pd.DataFrame:
    """Per candidate margin: in-scope kept (written sets) and out-of-scope refused (glossed sets), as written
    and glossed (:func:`~aya_lab.rag.margins.kept_in_scope`, :func:`~aya_lab.rag.margins.refused_out_of_scope`)."""
    rows = []
    for t in GRID:
        for system, metric, (count, of) in (
            ("written", "in_scope_kept", kept_in_scope(questions, t)),
            ("written", "out_of_scope_refused", refused_out_of_scope(questions, t)),
            ("glossed", "out_of_scope_refused", refused_out_of_scope(questions, min_margin, t)),
        ):
            rows.append({"system": system, "metric": metric, "margin": t, "score": count / of, "n": of})
    return pd.DataFrame(rows)


def _run(config: ScopeConfig) -> Report:
    folder = writable_folder(config.write_calibration) if config.write_calibration is not None else None
    docs = Path(config.docs) if config.docs else kb_dir()
    questions = measure_margins(docs)
    min_margin, glossed_margin = derive_margins(questions, KEEP_IN_SCOPE, GRID)
    read = [rag_questions_dir() / name for name in _SETS]
    read += sorted(p for p in docs.iterdir() if p.is_file())
    record = ScopeMargins(
        version=1, kind="scope-margins", command=MARGINS_COMMAND, date=dt.date.today(), encoder=ENCODER_NAME,
        data={f.path: f.sha256 for f in map(data_file, read)}, keep_in_scope=KEEP_IN_SCOPE, grid=list(GRID),
        questions=questions, min_margin=min_margin, glossed_margin=glossed_margin,
    )  # fmt: skip
    meta: dict[str, object] = {"units": ["margin"], "min_margin": min_margin, "glossed_margin": glossed_margin,
                               "keep_in_scope": KEEP_IN_SCOPE, "n_bootstrap": 0}  # fmt: skip
    if folder is not None:
        meta["written"] = str(write_calibration(record, folder))
    return Report("scope", _shares(questions, min_margin), pd.DataFrame([q.model_dump() for q in questions]), meta=meta)


def _views(report: Report) -> list[tuple[str, pd.DataFrame]]:
    """The candidates around the chosen margins, then where the record went."""
    grid = report.df.pivot_table(index="margin", columns=["system", "metric"], values="score", sort=False).round(3)
    chosen = f"min_margin {report.meta['min_margin']}, glossed_margin {report.meta['glossed_margin']}"
    written = f"; written to {report.meta['written']}" if "written" in report.meta else ""
    return [(f"== the candidate margins ({chosen}{written})", grid)]


SCOPE_TASK: Task[ScopeConfig] = Task(
    "scope", "the quoting scope rule's section margins, measured on the development questions", ScopeConfig, _run,
    views=_views,
)  # fmt: skip
