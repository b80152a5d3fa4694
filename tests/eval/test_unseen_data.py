"""The evaluators on data a user brings (issue 10): one pair per file set, honest counts and intervals,
loaders that take natural records, the same CLI options everywhere, and readable errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from sacrebleu.metrics import BLEU
from sacrebleu.significance import _bootstrap_resample

from aya_lab.cli import main
from aya_lab.datasets.parallel import DatasetError, load_parallel, plan_datasets
from aya_lab.datasets.project import (
    RECORD_SCHEMAS,
    CorpusError,
    Transcript,
    load_routing_examples,
    load_transcripts,
    normalize_owner,
    record_schema,
)
from aya_lab.eval.metrics import score_corpus
from aya_lab.eval.summarization import evaluate_summarizers, match_action_items
from aya_lab.eval.task_cli import GENERATION
from aya_lab.eval.translation.evaluate import evaluate_translation
from aya_lab.messages import parse_aya_request
from aya_lab.models.fake import FakeChatModel
from aya_lab.paths import project_root
from tests.eval.conftest import ENG, FRA, SWA
from tests.fakes import CountingSystem

# -- 1. a files: set has one language pair --------------------------------------------------------


@pytest.fixture
def file_pairs(tmp_path) -> dict[str, str]:
    for name, lines in (("en.txt", ENG), ("sw.txt", SWA), ("fr.txt", FRA)):
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {
        "sw": f"files:{tmp_path / 'en.txt'},{tmp_path / 'sw.txt'}",
        "sw_named": f"files:eng-swh:{tmp_path / 'en.txt'},{tmp_path / 'sw.txt'}",
        "fr_named": f"files:eng-fra:{tmp_path / 'en.txt'},{tmp_path / 'fr.txt'}",
    }


def test_a_files_set_refuses_a_second_pair(file_pairs):
    with pytest.raises(DatasetError, match=r"holds one language pair but --pairs gives eng-swh, eng-hau") as exc:
        plan_datasets(file_pairs["sw"], "eng-swh,eng-hau")
    assert "\n" not in str(exc.value) and "files:eng-swh:SRC,REF" in str(exc.value)
    assert plan_datasets(file_pairs["sw"], "eng-swh") == [(file_pairs["sw"], "eng", "swh")]
    with pytest.raises(DatasetError, match="holds one language pair"):
        plan_datasets(file_pairs["sw"], None)
    with pytest.raises(DatasetError, match="is eng-swh; it cannot be loaded as eng-hau"):
        load_parallel(file_pairs["sw_named"], "eng", "hau")


def test_several_file_pairs_in_one_run_are_scored_each_under_its_own_pair(file_pairs):
    res = evaluate_translation(
        ["copy"], [file_pairs["sw_named"], file_pairs["fr_named"]], n_bootstrap=20, n_ar=20, langid=False
    )
    chrf = res.df[(res.df["metric"] == "chrF")]
    assert set(chrf["pair"]) == {"eng-swh", "eng-fra", "pooled"}
    assert res.meta["pairs"] == ["eng-swh", "eng-fra"]


def test_cli_refuses_a_files_set_with_two_pairs_and_takes_repeated_datasets(file_pairs, capsys):
    argv = ["eval", "run", "translation", "--systems", "copy", "--n-bootstrap", "20", "--n-ar", "20", "--no-progress"]
    assert main([*argv, "--dataset", file_pairs["sw"], "--pairs", "eng-swh,eng-hau"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "one language pair" in err
    assert (
        main([*argv, "--no-faithfulness", "--dataset", file_pairs["sw_named"], "--dataset", file_pairs["fr_named"]])
        == 0
    )
    out = capsys.readouterr().out
    assert "eng-swh" in out and "eng-fra" in out


# -- non-UTF-8 and empty files, broken partial results ----------------------------------------------


def test_non_utf8_and_empty_files_are_one_line_errors_naming_the_file(tmp_path):
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("Réunion vendredi\n".encode("latin-1"))
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    good = tmp_path / "good.txt"
    good.write_text("Meeting on Friday\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=rf"{re.escape(str(latin))}: not UTF-8 text \(byte 0xe9"):
        load_parallel(f"files:{good},{latin}", "eng", "fra")
    with pytest.raises(DatasetError, match=rf"{re.escape(str(empty))}: the file is empty"):
        load_parallel(f"files:{empty},{good}", "eng", "fra")
    for loader in (load_transcripts, load_routing_examples):
        with pytest.raises(CorpusError, match=r"empty\.txt: <file>: the file is empty"):
            loader(empty)
        with pytest.raises(CorpusError, match=r"latin1\.txt: <file>: not UTF-8"):
            loader(latin)


def test_a_partial_file_killed_mid_write_is_repaired_and_resumed(file_pairs, tmp_path):
    ckpt = tmp_path / "run.partial.jsonl"
    first = CountingSystem()
    kwargs = {"n_bootstrap": 20, "n_ar": 10, "langid": False, "chunk_size": 4, "checkpoint": ckpt}
    evaluate_translation([first], file_pairs["sw_named"], **kwargs)
    assert first.seen == 12
    lines = ckpt.read_text(encoding="utf-8").splitlines()
    ckpt.write_text(lines[0] + "\n" + lines[1][: len(lines[1]) // 2], encoding="utf-8")  # killed mid-write
    again = CountingSystem()
    evaluate_translation([again], file_pairs["sw_named"], **kwargs)
    assert again.seen == 8  # the first chunk came from the file; the broken one ran again
    rows = [json.loads(x) for x in ckpt.read_text(encoding="utf-8").splitlines()]  # every line parses
    assert len(rows) == 3


# -- 2. summarizer counts, 3. owners, 4. natural records --------------------------------------------


def test_owners_are_normalised_and_groups_match_groups():
    assert [normalize_owner(x) for x in ('"Jonas', "jonas:", "@Amara", " Team ", "EVERYONE", "the team")] == [
        "jonas",
        "jonas",
        "amara",
        "all",
        "all",
        "all",
    ]
    assert match_action_items([('"Jonas', "send the invoice to Mei")], [("jonas", "send the invoice to Mei")])
    assert match_action_items([("everyone", "sign the attendance sheet")], [("team", "sign the attendance sheet")])
    assert not match_action_items([("jonas", "sign the attendance sheet")], [("all", "sign the attendance sheet")])


def _user_transcripts(tmp_path: Path) -> Path:
    records = [
        {
            "messages": [
                {"sender": "Jonas Weber", "lang": "deu", "text": "Ich schicke die Rechnung heute."},
                {"sender": "O'Brien", "lang": "eng", "text": "Everyone please sign the sheet."},
                {"sender": "Jonas Weber", "lang": "eng", "text": "ok"},
            ],
            "request": "@aya summarize the last 2 messages",
            "request_lang": "eng",
            "gold_count": 2,
            "gold_action_items": [{"owner": "all", "task": "sign the sheet"}],
        },
        {
            "id": "chat-b",
            "messages": [{"sender": "Amara", "lang": "eng", "text": "Morning!"}],
            "request": "@Aya, summarize everything",
            "request_lang": "eng",
            "gold_count": 0,
            "gold_action_items": [],
            "reference_summary": "Amara says good morning.",
        },
    ]
    path = tmp_path / "chats.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def test_transcripts_as_users_write_them_load_and_score(tmp_path):
    items = load_transcripts(_user_transcripts(tmp_path))
    assert [t.id for t in items] == ["chats:1", "chat-b"]
    assert items[0].request == "summarize the last 2 messages" and items[1].request == "summarize everything"
    assert items[0].reference_summary is None and items[0].messages[0].text_en is None
    model = FakeChatModel(default="2")
    res = evaluate_summarizers(["two_call"], model=model, transcripts=items, n_bootstrap=20, progress=False)
    per = res.items.set_index("transcript_id")
    assert np.isnan(per.loc["chats:1", "summary_chrF"]) and not np.isnan(per.loc["chat-b", "summary_chrF"])
    row = res.df.set_index("metric").loc["summary_chrF"]
    assert row["n"] == 1 and "1 transcripts with a reference" in row["note"]


def test_gold_owner_that_never_speaks_is_still_refused():
    with pytest.raises(ValueError, match="owner 'lena' does not speak"):
        Transcript(
            messages=[{"sender": "amara", "lang": "eng", "text": "hi"}],
            request="summarize",
            request_lang="eng",
            gold_count=0,
            gold_action_items=[{"owner": "lena", "task": "x"}],
        )


def test_routing_requests_without_id_or_gloss_and_with_the_mention(tmp_path, capsys):
    path = tmp_path / "req.jsonl"
    rows = [
        {"text": "@aya what is our travel policy?", "lang": "eng", "label": "query"},
        {"text": "@Aya: résume les 3 derniers messages", "lang": "fra", "label": "summarize"},
    ]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    items = load_routing_examples(path)
    assert [x.id for x in items] == ["req:1", "req:2"]
    assert [x.text for x in items] == [parse_aya_request(r["text"]) for r in rows]
    assert main(["eval", "run", "routing", "--model", "fake:query", "--data", str(path), "--translate", "gold"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs an English gloss (text_en)" in err and "req:2" in err


def test_schemas_under_data_are_the_loaders_and_accept_natural_records(tmp_path):
    for name in RECORD_SCHEMAS:
        committed = json.loads((project_root() / "data" / "schemas" / f"{name}.schema.json").read_text("utf-8"))
        assert committed == record_schema(name), f"regenerate data/schemas/{name}.schema.json"
    transcript = jsonschema.Draft202012Validator(record_schema("transcript"))
    for line in _user_transcripts(tmp_path).read_text("utf-8").splitlines():
        transcript.validate(json.loads(line))
    for line in (project_root() / "data" / "transcripts" / "transcripts.jsonl").read_text("utf-8").splitlines()[:5]:
        transcript.validate(json.loads(line))
    assert not transcript.is_valid({"messages": [], "request": "x", "request_lang": "eng", "gold_count": 0})
    routing = jsonschema.Draft202012Validator(record_schema("routing_request"))
    assert routing.is_valid({"text": "@aya hi", "lang": "eng", "label": "chat"})
    assert not routing.is_valid({"text": "hi", "lang": "eng", "label": "translate"})


# -- 5. percentile intervals -------------------------------------------------------------------------


def test_bleu_interval_near_zero_is_the_percentile_interval_and_never_negative():
    refs = [f"the shipment {i} left the port of Mombasa on time today" for i in range(30)]
    hyps = ["zzz qqq"] * 29 + [refs[29]]
    score = score_corpus(hyps, refs, "eng", n_bootstrap=200)["BLEU"]
    assert score.ci_low >= 0.0 and score.ci_low <= score.score <= score.ci_high <= 100
    metric = BLEU()
    stats = metric._extract_corpus_statistics(hyps, [refs])
    _, boot = _bootstrap_resample(stats, metric, 200)
    ordered = sorted(float(b.score) for b in boot)
    assert (score.ci_low, score.ci_high) == pytest.approx((ordered[200 // 40], ordered[200 - 200 // 40 - 1]))


# -- 6. the same options, the notebooks' defaults, progress on stderr --------------------------------


@pytest.mark.parametrize("task, notebook", [("translation", "03"), ("routing", "04"), ("summaries", "05")])
def test_cli_defaults_are_the_notebooks(task, notebook):
    source = next((project_root() / "notebooks").glob(f"{notebook}_*.py")).read_text(encoding="utf-8")
    m = re.search(r"load_chat_model\([^,()]+, settings=\{\"max_new_tokens\": (\d+)\}(?:, batch_size=(\d+))?\)", source)
    assert m, f"notebook {notebook} no longer loads its model as this test reads it"
    assert GENERATION[task] == (int(m.group(1)), int(m.group(2) or 8))


def test_eval_commands_share_their_options():
    from aya_lab.cli import build_parser

    parser = build_parser(load=("eval",))
    ev = parser._subparsers._group_actions[0].choices["eval"]._aya_group.choices["run"]._subparsers._group_actions[0]
    common = {"--max-new-tokens", "--batch-size", "--engine", "--n", "--out", "--n-bootstrap", "--progress"}
    for name in ("translation", "summaries", "routing", "sequences"):
        assert common <= set(ev.choices[name]._option_string_actions), name


def test_cli_translate_takes_generation_options_and_refuses_a_bad_one(mini_data, capsys):
    argv = ["eval", "run", "translation", "--systems", "fake:bonjour", "--dataset", "ntrex128", "--pairs", "eng-fra"]
    argv += ["--n", "3", "--no-faithfulness"]
    assert main([*argv, "--max-new-tokens", "8", "--n-bootstrap", "20", "--n-ar", "10", "--no-progress"]) == 0
    assert "fake:bonjour@baseline" in capsys.readouterr().out
    assert main([*argv, "--max-new-tokens", "0"]) == 2
    err = capsys.readouterr().err
    assert "--max-new-tokens must be between 1 and 32,768; got 0" in err and err.count("\n") == 1


def test_progress_bars_on_stderr_when_asked_and_never_under_tqdm_disable(capsys, monkeypatch):
    base = ["--n", "2", "--n-bootstrap", "20"]
    assert main(["eval", "run", "summaries", "--model", "fake:2", "--variants", "two_call", "--progress", *base]) == 0
    assert "summarizing" in capsys.readouterr().err
    assert main(["eval", "run", "routing", "--model", "fake:query", "--progress", *base]) == 0
    assert "routing" in capsys.readouterr().err
    assert main(["eval", "run", "routing", "--model", "fake:query", "--no-progress", *base]) == 0
    assert capsys.readouterr().err == ""
    assert main(["eval", "run", "routing", "--model", "fake:query", *base]) == 0  # default: only on a terminal
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("TQDM_DISABLE", "1")  # the tqdm_disable setting (setup_notebook turns it on)
    assert main(["eval", "run", "routing", "--model", "fake:query", "--progress", *base]) == 0
    assert "routing" not in capsys.readouterr().err
