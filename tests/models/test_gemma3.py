"""Base models (a tiny random Gemma 3 built on the fly): completion prompts, stop strings, batching.

The real Gemma 3 270M (``gemma3-270m``) is exercised in ``test_embedded.py`` (slow tests)."""

import pytest
from langchain_core.messages import HumanMessage

from aya_lab.models import NoChatTemplateError, record_generations
from aya_lab.models.hf_causal import HFChatModel
from aya_lab.models.settings import GenerationSettings
from aya_lab.prompts import PromptFile, load_prompt
from tests.fakes import tiny_gemma3

NEVER = "\x00never"


@pytest.fixture(scope="module")
def gemma_dir(tmp_path_factory):
    return tiny_gemma3(tmp_path_factory.mktemp("tiny-gemma3"))


def _model(path, **settings):
    settings = {"max_new_tokens": 12, "repetition_penalty": 1.5, **settings}
    return HFChatModel.load("hf:tiny-gemma3", str(path), "tiny", settings=settings, require_chat_template=False)


def _completion(user="{text}", stop=None):
    return PromptFile(description="t", format="completion", user=user, stop=stop, task="t", variant="v")


def _translations():
    prompt = load_prompt("user_translate/completion")
    cases = [
        ("German", "deu", "French", "fra", "Hallo"),
        ("German", "deu", "English", "eng", "Ich schicke den überarbeiteten Bericht bis Donnerstag, danke."),
        ("Swahili", "swh", "Spanish", "spa", "Habari"),
        ("Hausa", "hau", "French", "fra", "Sannu da zuwa, mun gode sosai da taimakon ku a yau."),
    ]
    return [
        prompt.render(source_language=s, source_code=sc, target_language=t, target_code=tc, message=m)
        for s, sc, t, tc, m in cases
    ]


def test_is_a_base_model_with_sliding_window_layers(gemma_dir):
    model = _model(gemma_dir)
    assert model.has_chat_template is False
    assert model.hf_model.config.model_type == "gemma3_text"
    assert "sliding_attention" in model.hf_model.config.layer_types


def test_batched_equals_one_by_one_with_left_padding(gemma_dir):
    convs = _translations()
    batched = _model(gemma_dir).generate_texts(convs)
    single = [_model(gemma_dir).generate_texts([c])[0] for c in convs]
    assert len({len(_model(gemma_dir).render(c)) for c in convs}) == len(convs)  # really different lengths
    assert [r.text for r in batched] == [r.text for r in single]
    assert [r.completion_tokens for r in batched] == [r.completion_tokens for r in single]


def test_completion_prompt_is_sent_as_plain_text(gemma_dir):
    model = _model(gemma_dir)
    conv = _translations()[0]
    assert model.render(conv) == conv[0].content
    assert conv[0].content.endswith("German: Hallo\nFrench:")


def test_chat_prompt_on_a_base_model_names_the_model_and_the_fix(gemma_dir):
    model = _model(gemma_dir)
    with pytest.raises(NoChatTemplateError) as err:
        model.generate_texts([[HumanMessage("hi")]])
    msg = str(err.value)
    assert "'hf:tiny-gemma3'" in msg and "completion" in msg and "\n" not in msg


def test_stop_string_ends_generation_and_cuts_the_text(gemma_dir):
    free = _model(gemma_dir, max_new_tokens=16).generate_texts([_completion(stop=[NEVER]).render(text="Report:")])[0]
    words = free.text.split()
    assert free.completion_tokens == 16 and len(set(words)) >= 2, free.text
    stop = next(w for w in words if w != words[0])  # a word that first appears after the start
    with record_generations() as records:
        (cut,) = _model(gemma_dir, max_new_tokens=16).generate_texts([_completion(stop=[stop]).render(text="Report:")])
    assert cut.text == free.text[: free.text.index(stop)].strip()
    assert stop not in cut.text
    assert cut.completion_tokens < 16  # generation stopped there: no compute spent past the stop
    assert records[0].result.completion_tokens == cut.completion_tokens


def test_each_row_stops_at_its_own_strings(gemma_dir):
    free = _model(gemma_dir, max_new_tokens=16).generate_texts([_completion(stop=[NEVER]).render(text="Report:")])[0]
    stop = next(w for w in free.text.split() if w != free.text.split()[0])
    batch = [
        _completion(stop=[stop]).render(text="Report:"),
        _completion(user="Note: {text}", stop=[NEVER]).render(text="Report:"),
    ]
    first, second = _model(gemma_dir, max_new_tokens=16).generate_texts(batch)
    assert first.completion_tokens < 16 and second.completion_tokens == 16


def test_min_new_tokens_fixes_the_output_length(gemma_dir):
    free = _model(gemma_dir, max_new_tokens=16).generate_texts([_completion(stop=[NEVER]).render(text="Report:")])[0]
    stop = next(w for w in free.text.split() if w != free.text.split()[0])
    conv = _completion(stop=[stop]).render(text="Report:")
    fixed = _model(gemma_dir, max_new_tokens=16, min_new_tokens=16).generate_texts([conv])[0]
    assert fixed.completion_tokens == 16


def test_min_new_tokens_stays_out_of_old_cache_keys():
    assert "min_new_tokens" not in GenerationSettings().cache_key()
    assert (
        GenerationSettings(max_new_tokens=8, min_new_tokens=8).cache_key()
        != GenerationSettings(max_new_tokens=8).cache_key()
    )
    with pytest.raises(ValueError, match="min_new_tokens=9 exceeds max_new_tokens=8"):
        GenerationSettings(max_new_tokens=8, min_new_tokens=9)
