"""Eval and data files a user brings (issue 11): an empty file and a non-UTF-8 file each give one line
naming the file and the fix, for every loader an evaluation reads a user's file with."""

from __future__ import annotations

import json
import re

import pytest

from aya_lab.datasets.parallel import DatasetError, load_parallel
from aya_lab.datasets.project import (
    CorpusError,
    load_rag_questions,
    load_routing_examples,
    load_transcripts,
    load_workplace,
)
from aya_lab.eval.routing_sequences import load_multi_intent

JSONL_LOADERS = [load_transcripts, load_routing_examples, load_rag_questions, load_multi_intent]


@pytest.fixture
def files(tmp_path):
    latin = tmp_path / "latin1.jsonl"
    latin.write_bytes('{"text": "Réunion vendredi"}\n'.encode("latin-1"))
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    bom_only = tmp_path / "bom.jsonl"
    bom_only.write_text("\ufeff\n  \n", encoding="utf-8")
    return latin, empty, bom_only


def one_line(exc: pytest.ExceptionInfo) -> str:
    assert "\n" not in str(exc.value)
    return str(exc.value)


@pytest.mark.parametrize("loader", JSONL_LOADERS, ids=lambda f: f.__name__)
def test_jsonl_loaders_name_the_file_and_the_fix(files, loader):
    latin, empty, bom_only = files
    for path in (empty, bom_only):
        with pytest.raises(CorpusError) as exc:
            loader(path)
        assert one_line(exc).endswith(f"{path.name}: <file>: the file is empty; it needs one JSON record per line")
    with pytest.raises(CorpusError) as exc:
        loader(latin)
    assert one_line(exc).endswith("latin1.jsonl: <file>: not UTF-8 (byte 0xe9 at offset 11); re-save it as UTF-8")


def test_a_multi_intent_line_that_is_not_json_is_located(tmp_path):
    path = tmp_path / "multi.jsonl"
    path.write_text(json.dumps({"text": "hi", "lang": "eng", "tools": ["chat"]}) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(ValueError) as exc:
        load_multi_intent(path)
    assert (
        one_line(exc)
        == f"{path}:2: not JSON (Expecting property name enclosed in double quotes, column 2); write one JSON object per line"
    )


def test_text_loaders_say_a_segment_per_line(tmp_path):
    (tmp_path / "workplace.eng.txt").write_text("", encoding="utf-8")
    with pytest.raises(CorpusError) as exc:
        load_workplace("eng", tmp_path)
    assert one_line(exc).endswith("workplace.eng.txt: <file>: the file is empty; it needs one segment per line")
    good, latin, empty = tmp_path / "good.txt", tmp_path / "latin.txt", tmp_path / "empty.txt"
    good.write_text("Meeting on Friday\n", encoding="utf-8")
    latin.write_bytes("Réunion vendredi\n".encode("latin-1"))
    empty.write_bytes(b"\xef\xbb\xbf")  # a byte-order mark and nothing else
    with pytest.raises(
        DatasetError, match=rf"^{re.escape(str(latin))}: not UTF-8 text \(byte 0xe9 at offset 1\); re-save"
    ):
        load_parallel(f"files:{good},{latin}", "eng", "fra")
    with pytest.raises(DatasetError) as exc:
        load_parallel(f"files:{empty},{good}", "eng", "fra")
    assert one_line(exc) == f"{empty}: the file is empty; it needs one segment per line"
