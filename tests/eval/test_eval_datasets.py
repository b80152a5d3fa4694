"""Dataset registry and loader: directions, NFC, doc contexts, and one clear line per bad input."""

from __future__ import annotations

import unicodedata

import pytest
from conftest import ENG, SWA

from aya_lab.datasets.parallel import (
    DatasetError,
    DatasetNotFoundError,
    MisalignedFilesError,
    available_pairs,
    document_contexts,
    list_datasets,
    load_parallel,
    parse_pair,
)
from aya_lab.languages import LANGUAGES, UnknownLanguageError, get_language, normalize_language


def test_language_table_round_trips():
    for lang in LANGUAGES:
        spellings = {lang.code, lang.name, lang.nllb, *lang.aliases} | ({lang.iso1} if lang.iso1 else set())
        for spelling in spellings:
            assert normalize_language(spelling) == lang.code, spelling
            assert normalize_language(spelling.upper()) == lang.code
    assert normalize_language("sw") == normalize_language("swa") == normalize_language("Swahili") == "swh"
    assert normalize_language("ne") == normalize_language("nep") == "npi"


def test_ntrex_any_direction_with_nfc_and_english_side(mini_data):
    ds = load_parallel("ntrex128", "Swahili", "yo", n=4)
    assert (ds.src, ds.tgt, ds.split) == ("swh", "yor", "test")
    assert ds.sources == SWA[:4]
    assert all(unicodedata.is_normalized("NFC", r) for r in ds.references)
    assert ds.english == ENG[:4]
    assert ds.dataset_id == "ntrex128:swh-yor:test:n=4"
    assert ds.license == "CC-BY-SA-4.0"
    assert ds.ids[0] == "ntrex128:test:0" and len(ds.ids) == 4
    assert ds.doc_ids == ["doc.a"] * 4
    full = load_parallel("ntrex128", "eng", "fra")
    assert full.dataset_id == "ntrex128:eng-fra:test" and len(full) == 12


def test_document_contexts_reset_at_document_boundaries():
    texts = ["a", "b", "c", "d", "e"]
    ctx = document_contexts(texts, ["x", "x", "x", "y", "y"], window=1)
    assert ctx == [[], ["a"], ["b"], [], ["d"]]
    assert document_contexts(texts, None) == [[]] * 5
    ctx = document_contexts(texts, ["x"] * 5, window=10)
    assert ctx[4] == ["a", "b", "c", "d"]


def test_flores_and_mafand_pairs_go_both_ways(mini_data):
    assert set(available_pairs("floresv1")) == {("eng", "npi"), ("npi", "eng")}
    ds = load_parallel("floresv1", "ne", "en", split="dev")
    assert ds.references == ENG[:6] and ds.doc_ids[0] == "doc.a"
    ds = load_parallel("floresv1", "eng", "npi")
    assert ds.split == "devtest" and ds.sources == ENG[6:]
    ds = load_parallel("mafand", "swh", "eng", n=2)
    assert ds.sources == SWA[:2] and ds.english == ENG[:2] and ds.license == "CC-BY-NC-4.0"
    assert ds.doc_ids is None


def test_missing_pair_lists_available_ones(mini_data):
    with pytest.raises(DatasetError, match=r"has no pair eng-hau; available: .*eng-swh"):
        load_parallel("mafand", "eng", "hau")
    with pytest.raises(UnknownLanguageError, match="klingon"):
        load_parallel("ntrex128", "eng", "klingon")
    with pytest.raises(DatasetError, match="no split 'devtest'; available: dev, test, train"):
        load_parallel("mafand", "eng", "swh", split="devtest")
    with pytest.raises(DatasetError, match=r"mafand \(train\) has no pair eng-swh; available: \(none\)"):
        load_parallel("mafand", "eng", "swh", split="train")  # the mini set has no train files
    with pytest.raises(DatasetError, match="unknown dataset 'wmt'"):
        load_parallel("wmt", "eng", "swh")


def test_missing_set_says_where_and_how_to_fetch(tmp_path, monkeypatch):
    monkeypatch.setenv("AYA_LAB_DATA_DIR", str(tmp_path))
    with pytest.raises(DatasetNotFoundError) as err:
        load_parallel("ntrex128", "eng", "swh")
    msg = str(err.value)
    assert str(tmp_path / "ntrex128") in msg and "aya-lab data fetch ntrex128" in msg and "\n" not in msg
    monkeypatch.delenv("AYA_LAB_DATA_DIR")
    with pytest.raises(DatasetNotFoundError, match="AYA_LAB_DATA_DIR is not set"):
        load_parallel("mafand", "eng", "swh")


def test_misaligned_files_name_both_files_and_counts(mini_data):
    path = mini_data / "ntrex128" / "ntrex128.fra.txt"
    path.write_text("\n".join(["x"] * 11) + "\n", encoding="utf-8")
    with pytest.raises(MisalignedFilesError) as err:
        load_parallel("ntrex128", "eng", "fra")
    msg = str(err.value)
    assert "ntrex128.eng.txt has 12 lines" in msg and "ntrex128.fra.txt has 11" in msg


def test_verify_checks_sha256sums(mini_data):
    load_parallel("ntrex128", "eng", "swh", verify=True)
    path = mini_data / "ntrex128" / "ntrex128.swa.txt"
    path.write_text(path.read_text(encoding="utf-8").replace("Ijumaa", "Jumamosi"), encoding="utf-8")
    with pytest.raises(DatasetError, match="does not match its SHA256SUMS"):
        load_parallel("ntrex128", "eng", "swh", verify=True)


def test_files_dataset(tmp_path):
    src, ref = tmp_path / "src.txt", tmp_path / "ref.txt"
    src.write_text("\n".join(ENG[:3]) + "\n", encoding="utf-8")
    ref.write_text("\r\n".join(SWA[:3]) + "\r\n", encoding="utf-8")
    ds = load_parallel(f"files:{src},{ref}", "en", "sw")
    assert ds.references == SWA[:3] and ds.english == ENG[:3]
    assert ds.dataset_id.startswith("files:src.txt,ref.txt:eng-swh:sha=")
    ref.write_text("\n".join(SWA[:2]) + "\n", encoding="utf-8")
    with pytest.raises(MisalignedFilesError, match=r"src.txt has 3 lines but .*ref.txt has 2"):
        load_parallel(f"files:{src},{ref}", "eng", "swh")


def test_parse_pair_and_list(mini_data):
    assert parse_pair("eng-zho-CN") == ("eng", "cmn")
    assert parse_pair(("en", "Yoruba")) == ("eng", "yor")
    assert parse_pair("sw>en") == ("swh", "eng")
    infos = {i.name: i for i in list_datasets()}
    assert infos["ntrex128"].present and infos["ntrex128"].languages == ["eng", "fra", "swh", "yor"]
    assert infos["mafand"].languages == ["eng", "swh"]


def test_workplace_set_loads_when_present():
    pairs = available_pairs("workplace")
    tgt = next(t for s, t in pairs if s == "eng")
    ds = load_parallel("workplace", "eng", tgt)
    assert len(ds) > 0 and ds.english == ds.sources and ds.dataset_id.startswith("workplace:eng-")


def test_real_ntrex_yoruba_is_nfc(real_data_dir, monkeypatch):
    monkeypatch.setenv("AYA_LAB_DATA_DIR", str(real_data_dir))
    ds = load_parallel("ntrex128", "eng", "yor", n=300)
    assert all(unicodedata.is_normalized("NFC", r) for r in ds.references)
    assert get_language(ds.tgt).name == "Yoruba"
