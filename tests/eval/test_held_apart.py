"""Held-apart few-shot examples: drawn from a dev split or from unscored documents, never from what is scored,
and written into a prompt inline (the same number for every language)."""

from __future__ import annotations

import pytest

from aya_lab.datasets import DatasetError, load_parallel
from aya_lab.eval.translation.evaluate import as_records, held_apart_examples
from aya_lab.prompts import PromptError, load_prompt


def test_a_set_with_a_dev_split_gives_dev_examples(mini_data):
    examples = held_apart_examples("floresv1", "npi", k=2, min_words=3)
    scored = load_parallel("floresv1", "eng", "npi")
    assert {e.split for e in examples} == {"dev"} and scored.split == "devtest"
    assert not {e.eng for e in examples} & set(scored.sources)
    assert len({e.doc_id for e in examples}) == 2, "two examples from one document"


def test_a_test_only_set_gives_examples_from_documents_it_does_not_score(mini_data):
    scored = load_parallel("ntrex128", "eng", "fra", n=5, docs=1)
    examples = held_apart_examples("ntrex128", "fra", k=2, n=5, docs=1, min_words=3)
    assert {e.split for e in examples} == {"test"}
    assert not {e.doc_id for e in examples} & set(scored.doc_ids), "an example came from a scored document"
    assert len({e.doc_id for e in examples}) == 2


def test_examples_are_seeded_and_too_few_candidates_is_one_line(mini_data):
    a = held_apart_examples("ntrex128", "fra", k=2, n=5, docs=1, min_words=3, seed=1)
    assert a == held_apart_examples("ntrex128", "fra", k=2, n=5, docs=1, min_words=3, seed=1)
    with pytest.raises(DatasetError, match=r"only 2 of 3 held-apart examples for eng-fra.*lower k") as err:
        held_apart_examples("ntrex128", "fra", k=3, n=5, docs=1, min_words=3)  # two unscored documents left
    assert "\n" not in str(err.value)


def test_inline_records_make_every_language_get_k_examples_and_change_the_hash(mini_data):
    base = load_prompt("user_translate/completion")
    records = as_records(held_apart_examples("ntrex128", "fra", k=2, n=5, docs=1, min_words=3))
    held = base.with_examples(records, "held-apart", 2)
    values = {"message": "Hello.", "source_language": "English", "target_language": "French",
              "source_code": "eng", "target_code": "fra"}  # fmt: skip
    text = held.render(**values)[0].content
    assert all(r["eng"] in text and r["fra"] in text for r in records)
    assert held.name == "user_translate/completion+held-apart"
    assert held.content_hash != base.content_hash
    assert held.content_hash != base.with_examples(records[:1] * 2, "held-apart", 2).content_hash
    with pytest.raises(PromptError, match="needs 2 examples with eng, swh from pool 'held-apart'.*inline records"):
        held.render(**{**values, "target_language": "Swahili", "target_code": "swh"})


def test_the_zero_shot_prompt_renders_the_pool_prompt_without_examples():
    base = load_prompt("user_translate/completion")
    values = {"message": "Hello.", "source_language": "English", "target_language": "Hausa",
              "source_code": "eng", "target_code": "hau"}  # fmt: skip
    zero = base.with_examples([], "zero-shot", 0)
    assert zero.render(**values)[0].content == base.render(**values)[0].content == "English: Hello.\nHausa:"
    french = {**values, "target_code": "fra", "target_language": "French"}  # the pool has French examples
    assert zero.render(**french)[0].content == "English: Hello.\nFrench:" != base.render(**french)[0].content
    with pytest.raises(PromptError, match="takes no examples"):
        load_prompt("user_translate/baseline").with_examples([], "zero-shot", 0)
