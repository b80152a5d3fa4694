"""The term glossary: a question in French, German, Spanish or Swahili gets the English handbook terms its words
name; an English question gets none; a malformed glossary file is a one-line error naming the line."""

from __future__ import annotations

import pytest

from aya_lab.errors import InputError
from aya_lab.rag.glossary import GLOSSARY_LANGS, Glossary, default_glossary, load_glossary, question_language

SMALL = "eng\tfra\tdeu\tspa\tswh\nper-diem\tindemnité journalière\ttagegeld\tdietas\tposho ya kila siku|posho\n"
SMALL += "approve\tapprouver\tgenehmigen\taprobar\tidhinish\n"


def small(tmp_path) -> Glossary:
    path = tmp_path / "g.tsv"
    path.write_text(SMALL, encoding="utf-8")
    return load_glossary(path)


def test_words_phrases_and_stems_inside_words_name_their_english_terms(tmp_path):
    glossary = small(tmp_path)
    assert glossary.english_terms("Je, posho ya kila siku ni kiasi gani?", "swh") == "per-diem"
    assert glossary.english_terms("Nani anaidhinisha safari yangu?", "swh") == "approve"  # a stem inside a verb
    assert glossary.english_terms("Wer muss das Tagegeld genehmigen?", "deu") == "per-diem approve"
    assert glossary.english_terms("Quelle est l'indemnité journalière ?", "fra") == "per-diem"
    assert glossary.english_terms("¿Hay comedor?", "spa") is None  # no term
    assert glossary.english_terms("What is the per diem?", "eng") is None  # English is searched as written


def test_a_short_variant_matches_whole_words_only(tmp_path):
    path = tmp_path / "g.tsv"
    path.write_text("eng\tfra\tdeu\tspa\tswh\nflight\tvol\tflug\tvuelo\tndege\n", encoding="utf-8")
    glossary = load_glossary(path)
    assert glossary.english_terms("Quel vol puis-je prendre ?", "fra") == "flight"
    assert glossary.english_terms("Le volume de données", "fra") is None  # "vol" inside "volume" is not a match


def test_the_shipped_glossary_reads_the_issue_questions():
    glossary = default_glossary()
    assert len(glossary.entries) > 200 and all(set(v) == set(GLOSSARY_LANGS) for _, v in glossary.entries)
    terms = glossary.english_terms("Wie lautet unsere Reiserichtlinie für Flüge?", "deu")
    assert terms is not None and "flight" in terms.split()
    assert question_language("Je, posho ya kila siku ni kiasi gani kwa safari ya kikazi?") == "swh"
    assert question_language("What is the per diem?") == "eng"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("eng\tfra\n", "the header must be"),
        ("eng\tfra\tdeu\tspa\tswh\nleave\tcongé\tUrlaub\tpermiso\n", "g.tsv:2: write 5 non-empty tab-separated fields"),
        ("eng\tfra\tdeu\tspa\tswh\nleave\tcongé\t\tpermiso\tlikizo\n", "g.tsv:2: write 5 non-empty"),
    ],
)
def test_a_malformed_glossary_is_one_line_naming_the_line(tmp_path, text, message):
    path = tmp_path / "g.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        load_glossary(path)


def test_a_glossary_that_is_not_utf8_is_refused(tmp_path):
    path = tmp_path / "g.tsv"
    path.write_bytes(b"eng\tfra\xff\n")
    with pytest.raises(InputError, match="cannot read the glossary"):
        load_glossary(path)
