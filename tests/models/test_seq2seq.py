"""seq2seq NMT models on a tiny random Marian, and per-family language-code mapping."""

import pytest

from aya_lab.languages import UnknownLanguageError
from aya_lab.models import ModelInputError, load_model
from aya_lab.models.seq2seq import Seq2SeqTranslator

pytestmark = pytest.mark.integration


def _model(path):
    return load_model(f"seq2seq:{path}", settings={"max_new_tokens": 6}, reuse=False)


def test_translate_batched_equals_single(tiny_marian_dir):
    model = _model(tiny_marian_dir)
    texts = ["the meeting is on friday", "send the report please", "thanks team"]
    model.cache = None
    batched = [r.text for r in model.translate(texts, "eng", "fra")]
    model.batch_size = 1
    single = [r.text for r in _model(tiny_marian_dir).translate(texts, "English", "fr")]
    assert batched == single and len(batched) == 3
    assert model.family == "marian"


def test_runnable_interface_and_cache(tiny_marian_dir):
    model = _model(tiny_marian_dir)
    out = model.batch(
        [{"text": "the team", "src": "en", "tgt": "fra"}, {"text": "the budget", "src": "en", "tgt": "deu"}]
    )
    assert out == [
        model.invoke({"text": "the team", "src": "en", "tgt": "fra"}),
        model.invoke({"text": "the budget", "src": "en", "tgt": "deu"}),
    ]
    assert model.translate(["the team"], "eng", "fra")[0].cached


def test_target_token_is_prefixed_and_checked(tiny_marian_dir):
    model = _model(tiny_marian_dir)
    assert model.lang_code("French") == "fra"
    with pytest.raises(ModelInputError) as err:
        model.translate(["the team"], "eng", "swh")
    assert "'swh'" in str(err.value) and "deu, fra" in str(err.value)
    with pytest.raises(UnknownLanguageError, match="did you mean 'Swahili'"):
        model.translate(["the team"], "eng", "swahilli")


def test_empty_texts(tiny_marian_dir):
    with pytest.raises(ModelInputError, match="empty list"):
        _model(tiny_marian_dir).translate([], "eng", "fra")


@pytest.mark.parametrize(
    "family,lang,code",
    [("nllb", "Swahili", "swh_Latn"), ("nllb", "ne", "npi_Deva"), ("m2m100", "swh", "sw"), ("m2m100", "Yoruba", "yo")],
)
def test_code_mapping_per_family(family, lang, code):
    model = Seq2SeqTranslator.__new__(Seq2SeqTranslator)
    model.family, model.spec = family, "seq2seq:x"
    assert model.lang_code(lang) == code


def test_m2m_uncovered_language():
    model = Seq2SeqTranslator.__new__(Seq2SeqTranslator)
    model.family, model.spec = "m2m100", "seq2seq:x"
    with pytest.raises(ModelInputError, match="does not cover Shona"):
        model.lang_code("sna")
