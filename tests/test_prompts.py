"""Prompt files: loading, variables, hashes, variants, errors."""

import pytest

from aya_lab.paths import prompts_dir
from aya_lab.prompts import (
    PromptError,
    completion_request,
    cut_at_stop,
    fit_prompt,
    list_variants,
    load_pool,
    load_prompt,
    variant_names,
)
from aya_lab.prompts.render import nearest_records

TASKS = [
    "user_translate",
    "aya_translate",
    "supervisor",
    "query",
    "summarizer_count",
    "summarizer_summary",
    "summarizer_onecall",
    "chat",
]


@pytest.mark.parametrize("task", TASKS)
def test_every_task_has_a_loadable_baseline(task):
    p = load_prompt(f"{task}/baseline")
    assert p.name == f"{task}/baseline" and p.description and p.variables
    assert len(p.content_hash) == 16


def test_render_fills_variables_and_defaults():
    p = load_prompt("user_translate/baseline")
    msgs = p.render(target_language="German", message="The meeting moved to Friday.")
    assert msgs[0].type == "system" and "into German" in msgs[0].content
    assert msgs[-1].content == "<message>The meeting moved to Friday.</message>"
    with_ctx = p.render(target_language="German", message="ok", context="Context:\nlena | hi\n")
    assert with_ctx[-1].content == "Context:\nlena | hi\n<message>ok</message>"


def test_missing_variable_names_itself():
    with pytest.raises(PromptError, match=r"prompt 'user_translate/baseline' needs variable 'target_language'"):
        load_prompt("user_translate/baseline").render(message="x")


def test_unexpected_variable_is_refused():
    with pytest.raises(PromptError, match=r"has no variable 'colour'"):
        load_prompt("chat/baseline").render(request="hi", colour="red")


def test_variants_listed_baseline_first():
    assert list_variants("user_translate")[0] == "baseline"
    assert "strict" in list_variants("user_translate")


def test_unknown_variant_lists_the_known_ones():
    with pytest.raises(
        PromptError,
        match=r"no prompt variant 'strikt' for task 'user_translate'; variants: baseline, completion, nearest, strict",
    ):
        load_prompt("user_translate/strikt")


def test_unknown_key_in_file_is_located(tmp_path):
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "v.yaml").write_text("description: d\nuser: '{x}'\nsytem: oops\n")
    with pytest.raises(PromptError, match=r"v.yaml: sytem: Extra inputs are not permitted"):
        load_prompt("t/v", root=tmp_path)


def test_hash_changes_with_content(tmp_path):
    (tmp_path / "t").mkdir()
    f = tmp_path / "t" / "v.yaml"
    f.write_text("description: d\nuser: 'Say {x}'\n")
    h1 = load_prompt("t/v", root=tmp_path).content_hash
    f.write_text("description: d\nuser: 'Say {x}!'\n")
    import os

    os.utime(f, ns=(1, 2))
    assert load_prompt("t/v", root=tmp_path).content_hash != h1


def test_chat_template_composes():
    from aya_lab.models.fake import FakeChatModel

    chain = load_prompt("chat/baseline").chat_template() | FakeChatModel(responses=["Hello!"])
    assert chain.invoke({"request": "hi"}).content == "Hello!"


def test_prompts_dir_exists():
    assert (prompts_dir() / "user_translate" / "baseline.yaml").exists()


# -- formats: chat (unchanged) and completion (few-shot, for base models) ------------------------------
# The hashes of the chat prompts as they were before the `format` field existed: adding completion
# prompts must not change any chat prompt's hash (results carry it) or its rendering (the generation
# cache keys on the rendered text). Re-pinned once since, when spotlighting put user text between tags.
CHAT_HASHES = {
    "aya_translate/baseline": "02040062cb9cf212",
    "chat/baseline": "8afdb388e70cc63c",
    "query/baseline": "cd389d0bfdc313f0",
    "summarizer_count/baseline": "529f977d8712bb08",
    "summarizer_onecall/baseline": "40de93872e14eaf5",
    "summarizer_summary/baseline": "29db39ccc12838f2",
    "supervisor/baseline": "809c1b9d3151599d",
    "supervisor/fewshot": "086758f7402105a2",
    "user_translate/baseline": "24735df3602193dd",
    "user_translate/strict": "6d144d5ca1abe59f",
}
COMPLETION_TASKS = ["user_translate", "aya_translate", "supervisor", "summarizer_count", "summarizer_summary"]


@pytest.mark.parametrize("name,expected", sorted(CHAT_HASHES.items()))
def test_chat_prompt_hashes_did_not_move(name, expected):
    p = load_prompt(name)
    assert p.format == "chat" and p.stop_strings == [] and p.content_hash == expected


def test_chat_rendering_is_byte_identical():
    msgs = load_prompt("user_translate/strict").render(
        source_language="German", target_language="French", message="Hallo"
    )
    assert [m.type for m in msgs] == ["system", "human"]
    assert msgs[1].content == "<message>Hallo</message>" and msgs[1].additional_kwargs == {}


def test_listing_is_chat_only_unless_asked():
    assert list_variants("user_translate") == ["baseline", "strict"]
    assert list_variants("user_translate", completion=True) == ["baseline", "completion", "nearest", "strict"]
    assert variant_names("user_translate", "completion") == ["completion"]


@pytest.mark.parametrize("task", COMPLETION_TASKS)
def test_every_base_model_task_has_a_completion_variant(task):
    p = load_prompt(f"{task}/completion")
    assert p.format == "completion" and p.system is None and p.stop_strings
    assert p.examples is not None and len(load_pool(p.examples.pool)) >= p.examples.k


def _translate(prompt="user_translate/completion", **kw):
    values = dict(source_language="German", source_code="deu", target_language="French", target_code="fra")
    return load_prompt(prompt).render(**{**values, **kw})


def test_completion_renders_one_message_with_examples_and_stop():
    (msg,) = _translate(message="Wo ist der Bericht?")
    assert completion_request([msg]) == (msg.content, ["\n"])
    assert msg.content.startswith("German: Der Drucker im zweiten Stock")
    assert msg.content.count("\nFrench: ") == 3 and msg.content.endswith("German: Wo ist der Bericht?\nFrench:")


def test_an_example_equal_to_the_input_is_skipped():
    (msg,) = _translate(message="Könnten Sie mir die Rechnung bis Mittwoch schicken?")
    assert msg.content.count("Rechnung bis Mittwoch") == 1  # only as the input, never as an example
    assert msg.content.count("\nFrench: ") == 3


def test_languages_outside_the_pool_get_a_zero_shot_prompt():
    (msg,) = _translate(source_language="Hausa", source_code="hau", message="Sannu")
    assert msg.content == "Hausa: Sannu\nFrench:"


def test_routing_completion_ends_at_the_label():
    (msg,) = load_prompt("supervisor/completion").render(request="what is the per diem in Lagos?")
    assert msg.content.endswith("Request: what is the per diem in Lagos?\nTool:")
    assert "Tool: remember\n" in msg.content and "Tool: chat\n" in msg.content


def test_summary_completion_stops_at_the_blank_line():
    p = load_prompt("summarizer_summary/completion")
    (msg,) = p.render(transcript="kofi: I will book the room.")
    assert p.stop_strings == ["\n\n"] and msg.content.endswith("Messages:\nkofi: I will book the room.\nSummary:")
    assert "\n- mei: put a sign" in msg.content


def test_cut_at_stop_takes_the_earliest():
    assert cut_at_stop("Bonjour\nGerman: x", ["\n"]) == "Bonjour"
    assert cut_at_stop("a b ## c \n d", ["\n", "##"]) == "a b "
    assert cut_at_stop("no stop here", ["\n"]) == "no stop here"


def _write(root, name, text):
    (root / "t").mkdir(exist_ok=True)
    (root / "t" / f"{name}.yaml").write_text(text)


def test_missing_pool_is_one_line_naming_it(tmp_path, monkeypatch):
    monkeypatch.setenv("AYA_LAB_FEWSHOT_DIR", str(tmp_path / "pools"))
    _write(
        tmp_path,
        "v",
        "description: d\nformat: completion\nexamples: {pool: gone, template: 'Q: {q}'}\nuser: '{examples}{x}'\n",
    )
    with pytest.raises(PromptError) as err:
        load_prompt("t/v", root=tmp_path)
    msg = str(err.value)
    assert "few-shot pool 'gone' is missing" in msg and "gone.yaml" in msg and "\n" not in msg


def test_too_few_examples_names_the_pool_and_the_keys(tmp_path, monkeypatch):
    pools = tmp_path / "pools"
    pools.mkdir()
    (pools / "p.yaml").write_text("examples:\n  - {eng: one, fra: un}\n")
    monkeypatch.setenv("AYA_LAB_FEWSHOT_DIR", str(pools))
    _write(
        tmp_path,
        "v",
        "description: d\nformat: completion\nexamples: {pool: p, k: 2, template: '{s} = {t}', keys: {s: '{a}', t: '{b}'}}\n"
        "user: '{examples}{m}'\n",
    )
    p = load_prompt("t/v", root=tmp_path)
    assert p.variables == {"a", "b", "m"}
    with pytest.raises(PromptError, match=r"needs 2 examples with deu, eng from pool 'p' but found 0; add records"):
        p.render(a="deu", b="eng", m="x")
    with pytest.raises(PromptError, match=r"found 1"):
        p.render(a="eng", b="fra", m="x")


@pytest.mark.parametrize(
    "body,problem",
    [
        ("format: chat\nstop: ['\\n']\nuser: '{x}'\n", "belong to completion prompts"),
        ("format: completion\nsystem: s\nuser: '{x}'\n", "has no system message"),
        ("format: completion\nstop: []\nuser: '{x}'\n", "stop must list"),
        ("format: poem\nuser: '{x}'\n", "format"),
        (
            "format: completion\nexamples: {pool: p, template: '{s}', nearest: {field: t, value: x}}\n"
            "user: '{examples}{x}'\n",
            "examples.nearest.field 't' is not a field of examples.template",
        ),
        (
            "format: completion\nexamples: {pool: p, template: '{s}', nearest: {field: s, value: m}}\n"
            "user: '{examples}{x}'\n",
            "examples.nearest.value 'm' is not a variable of 'user'",
        ),
    ],
)
def test_bad_format_declarations_are_located(tmp_path, body, problem):
    _write(tmp_path, "v", "description: d\n" + body)
    with pytest.raises(PromptError, match=problem) as err:
        load_prompt("t/v", root=tmp_path)
    assert "v.yaml" in str(err.value)


def test_completion_prompt_is_not_a_chat_template():
    with pytest.raises(PromptError, match="is a completion prompt"):
        load_prompt("user_translate/completion").chat_template()


class _Base:
    spec = "gemma3-270m"
    has_chat_template = False


def test_fit_prompt_gives_a_base_model_the_completion_variant():
    assert fit_prompt("user_translate/baseline", _Base()).name == "user_translate/completion"
    assert fit_prompt("user_translate/baseline", object()).name == "user_translate/baseline"
    assert fit_prompt("user_translate/completion", object()).name == "user_translate/completion"
    with pytest.raises(PromptError) as err:
        fit_prompt("user_translate/strict", _Base())
    msg = str(err.value)
    assert "'user_translate/strict'" in msg and "'gemma3-270m'" in msg and "user_translate/completion" in msg


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def test_pool_texts_are_not_taken_from_the_project_evaluation_sets():
    import json

    from aya_lab.paths import project_root

    evaluated = set()
    for sub in ("workplace", "routing", "transcripts", "rag"):
        for path in (project_root() / "data" / sub).iterdir():
            lines = path.read_text(encoding="utf-8").splitlines() if path.suffix in {".txt", ".jsonl"} else []
            for line in lines:
                texts = _strings(json.loads(line)) if path.suffix == ".jsonl" else [line]
                evaluated |= {t.strip().lower() for t in texts}
    assert len(evaluated) > 500
    for pool in ("translations", "routing", "summarizer_count", "summaries"):
        for record in load_pool(pool):
            for text in record.values():
                for line in text.splitlines():
                    sentence = line.split(": ", 1)[-1].strip().lower()  # a transcript line without its sender
                    assert len(sentence) < 20 or sentence not in evaluated, (pool, line)  # labels may repeat


def test_nearest_examples_are_the_most_alike_written_least_alike_first():
    records = [{"source": s} for s in ("The truck is late.", "Lunch at noon?", "The red truck is late today.", "Hi!")]
    got = nearest_records(records, "source", "The truck is late today.", k=2)
    assert [r["source"] for r in got] == ["The truck is late.", "The red truck is late today."]
    assert [r["source"] for r in nearest_records(records, "source", "The truck is late today.", k=2, skip=2)] == [
        "Hi!",
        "Lunch at noon?",
    ]


def test_the_nearest_prompt_shows_the_pool_records_most_like_the_message():
    message = "Der Lkw aus Mombasa kommt erst am Freitag an."
    (msg,) = _translate("user_translate/nearest", message=message)
    pool = [r for r in load_pool("chat_translations") if r.get("deu") and r.get("fra")]
    shown = [line.removeprefix("German: ") for line in msg.content.splitlines()[:-2] if line.startswith("German: ")]
    assert len(shown) == 5 and msg.content.endswith(f"German: {message}\nFrench:")
    from sacrebleu.metrics import CHRF

    best = sorted(pool, key=lambda r: -CHRF().sentence_score(r["deu"], [message]).score)[:5]
    assert shown == [r["deu"] for r in reversed(best)]  # the most alike stands next to the input
    (other,) = _translate("user_translate/nearest", message="Danke, bis morgen!")
    assert other.content.splitlines()[:10] != msg.content.splitlines()[:10]  # chosen per message


def test_the_chat_pool_repeats_no_message_of_the_project_sets():
    import json

    from aya_lab.paths import project_root

    messages = set()
    for sub in ("adversarial", "workplace", "rag"):
        for path in (project_root() / "data" / sub).glob("*.jsonl"):
            for line in path.read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                messages |= {str(record[k]).strip().lower() for k in ("text", "question") if k in record}
    assert len(messages) > 1500
    for record in load_pool("chat_translations"):
        assert not {t.strip().lower() for t in record.values()} & messages, record["eng"]
