"""Useful deliveries (issue 40): what each reader of an attack run could read, with readers of several
languages (``--readers``), judged by a person's labels; and the one-line refusals of a bad reader list."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from aya_lab.agents.guard import GuardVerdict, TranslationGuard
from aya_lab.attacks import parse_readers, room_users, run_attack
from aya_lab.errors import AyaLabError, InputError
from aya_lab.eval.attacks import AttackRecord, attacks_report, relabel, usefulness_table
from aya_lab.eval.fabrications import (
    READING_COLUMNS,
    label_agreement,
    load_labels,
    paired_usefulness,
    reading_how,
    reading_useful,
    usefulness,
)
from aya_lab.eval.report import Report
from aya_lab.paths import project_root
from tests.fakes import FakeRoomModel

MESSAGE = AttackRecord(id="m1", category="ordinary", lang="fra", sender="claire", text="La réunion est lundi.")


@pytest.fixture
def kb_source(tmp_path):
    d = tmp_path / "kb-source"
    d.mkdir()
    (d / "leave_policy.md").write_text("# Leave policy\n## Annual leave\nEmployees have 25 days of leave.\n")
    return d


@pytest.fixture
def withhold_swahili(monkeypatch):
    def check(self, source, output, src, tgt, agreement=None):
        return GuardVerdict((f"assistant: test withholds {tgt}",)) if tgt == "swh" else GuardVerdict()

    monkeypatch.setattr(TranslationGuard, "check", check)


def _observe(tmp_path, kb_source, readers):
    models = {"translator": FakeRoomModel(default="ok"), "aya": FakeRoomModel(default="ok")}
    return run_attack(
        MESSAGE, models, tmp_path / "room", kb_source=kb_source, embeddings=DeterministicFakeEmbedding(size=32),
        readers=parse_readers(readers),
    )  # fmt: skip


def test_a_reader_of_two_languages_gets_the_second_and_the_run_counts_what_each_could_read(
    tmp_path, kb_source, withhold_swahili
):
    obs = _observe(tmp_path, kb_source, ["kofi:eng", "amara:swh,eng", "lena:deu", "sami:swh"])
    got = {r.user: r for r in obs.readings}
    assert (got["amara"].lang, got["amara"].langs, got["amara"].translated) == ("eng", ("swh", "eng"), True)
    assert not got["amara"].text.startswith("[eng]"), "the reading's text is the delivery without its language mark"
    assert got["amara"].draft == got["kofi"].draft == got["kofi"].text
    assert reading_how(got["sami"].text, got["sami"].translated) == "not_translated"
    labels = {("m1", "eng", got["kofi"].draft): "faithful", ("m1", "deu", got["lena"].draft): "made_up"}
    report = attacks_report("fake", [(MESSAGE, obs, [])], labels, n_bootstrap=50)
    assert list(report.frames["readings"].columns) == list(READING_COLUMNS)
    table = usefulness_table(report).set_index("reader")
    assert table.loc["amara (swh,eng)", ["readings", "useful", "translated"]].tolist() == [1, 1, 1]
    assert table.loc["lena (deu)", "useful"] == 0, "a made-up draft is not useful"
    assert table.loc["sami (swh)", ["useful", "not_translated"]].tolist() == [0, 1], "a withheld draft is not useful"
    assert table.loc["two or more languages", "useful_share"] == 1.0
    assert table.loc["one language", ["readings", "useful"]].tolist() == [3, 1]
    df = report.df[(report.df["group"] == "reader") & (report.df["metric"] == "useful_share")]
    assert df.set_index("value").loc["all", "score"] == pytest.approx(2 / 4)


def test_usefulness_leaves_unlabelled_drafts_out_and_clusters_by_message():
    rows = [
        ("a", "amara", "swh,eng", "eng", "translated", "faithful"),
        ("a", "lena", "deu,eng", "deu", "translated", ""),
        ("b", "amara", "swh,eng", "eng", "original", ""),
        ("b", "lena", "deu,eng", "deu", "unverified", "partial"),
    ]
    frame = pd.DataFrame(
        [{"system": "s", "id": i, "category": "ordinary", "source_lang": "fra", "user": u, "langs": ls, "lang": lang,
          "how": how, "label": label, "useful": reading_useful(how, label)} for i, u, ls, lang, how, label in rows]
    )  # fmt: skip
    table = usefulness(frame, n_bootstrap=200).set_index("reader")
    assert table.loc["all", ["readings", "labelled", "useful"]].tolist() == [4, 3, 2]
    assert table.loc["all", "useful_share"] == pytest.approx(2 / 3)
    assert table.loc["all", "ci_low"] <= 2 / 3 <= table.loc["all", "ci_high"]
    assert math.isnan(reading_useful("translated", ""))
    assert reading_useful("not_translated", "faithful") == 0.0


def test_usefulness_of_the_readings_that_needed_a_translation_from_chosen_languages():
    rows = [  # id, source, reader's languages, how, label
        ("a", "fra", "fra,eng", "original", ""),
        ("a", "fra", "deu,eng", "translated", "faithful"),
        ("b", "swh", "deu,eng", "unverified", "made_up"),
        ("c", "eng", "deu,eng", "original", ""),
        ("d", "deu", "swh,eng", "not_translated", ""),
    ]
    frame = pd.DataFrame(
        [{"system": "s", "id": i, "category": "ordinary", "source_lang": src, "user": ls[:3], "langs": ls,
          "lang": "eng", "how": how, "label": label, "useful": reading_useful(how, label)}
         for i, src, ls, how, label in rows]
    )  # fmt: skip
    every = usefulness(frame, n_bootstrap=50).set_index("reader").loc["all"]
    needed = usefulness(frame, to_translate=True, n_bootstrap=50).set_index("reader").loc["all"]
    latin = usefulness(frame, to_translate=True, sources=("fra", "deu"), n_bootstrap=50).set_index("reader")
    assert every[["readings", "useful"]].tolist() == [5, 3]
    assert needed[["readings", "useful", "original"]].tolist() == [3, 1, 0], "originals a reader reads are left out"
    assert latin.loc["all", ["readings", "useful"]].tolist() == [2, 1], "the Swahili message is left out"
    assert latin.loc["all", "useful_share"] == 0.5
    spelled = usefulness(frame, to_translate=True, sources=("fr", "German"), n_bootstrap=50).set_index("reader")
    assert spelled.loc["all", ["readings", "useful"]].tolist() == [2, 1], "any spelling of a language"
    one = usefulness(frame, to_translate=True, sources="swh", n_bootstrap=50).set_index("reader")
    assert one.loc["all", "readings"] == 1, "one language given as a string is that language, not its letters"
    with pytest.raises(AyaLabError) as err:
        usefulness(frame, sources=("klingonese",), n_bootstrap=50)
    assert "klingonese" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("readers", "named"),
    [
        (["amara"], "'amara'"),
        (["amara:"], "'amara:'"),
        (["kofi:eng", "kofi:fra"], "'kofi'"),
        (["x:klingon"], "klingon"),
    ],
)
def test_a_bad_reader_list_is_one_line_naming_it(readers, named):
    with pytest.raises(AyaLabError) as err:
        parse_readers(readers)
    assert named in str(err.value) and "\n" not in str(err.value)


def test_a_sender_who_reads_other_languages_is_refused():
    with pytest.raises(InputError, match="'claire' reads deu"):
        room_users(MESSAGE, parse_readers(["claire:deu"]))
    assert room_users(MESSAGE, parse_readers(["claire:deu,fra"]))["claire"] == ("deu", "fra")


def test_the_command_takes_the_readers_as_one_string():
    assert parse_readers("kofi:eng  amara:swh,eng") == {"kofi": ("eng",), "amara": ("swh", "eng")}
    assert parse_readers(None)["amara"] == ("swh",), "the default readers are the attack room's, one language each"


def test_a_run_saved_unlabelled_is_judged_later_by_its_labels(tmp_path, kb_source, withhold_swahili):
    obs = _observe(tmp_path, kb_source, ["kofi:eng", "amara:swh,eng", "sami:swh"])
    unlabelled = attacks_report("fake", [(MESSAGE, obs, [])], {}, n_bootstrap=50)
    unlabelled.save(tmp_path / "run.csv")
    draft = next(r.draft for r in obs.readings if r.user == "kofi")
    judged = relabel(Report.load(tmp_path / "run.csv"), {("m1", "eng", draft): "faithful"})
    direct = attacks_report("fake", [(MESSAGE, obs, [])], {("m1", "eng", draft): "faithful"}, n_bootstrap=50)
    pd.testing.assert_frame_equal(usefulness_table(judged), usefulness_table(direct), check_dtype=False)
    assert usefulness_table(judged).set_index("reader").loc["all", ["labelled", "useful"]].tolist() == [3, 2]
    assert usefulness_table(unlabelled).set_index("reader").loc["all", "labelled"] == 1  # sami: withheld, known


def test_the_runner_runs_the_graph_it_is_given(tmp_path, kb_source, monkeypatch):
    monkeypatch.setattr(
        TranslationGuard, "check", lambda self, source, output, src, tgt, agreement=None: GuardVerdict()
    )
    english = AttackRecord(id="m2", category="ordinary", lang="eng", sender="jack", text="The kitchen is closed.")
    models = {"translator": FakeRoomModel(default="ok"), "aya": FakeRoomModel(default="ok")}
    got = {}
    for graph in (None, project_root() / "aya_lab" / "graphs" / "aya_preference.yaml"):
        obs = run_attack(
            english, models, tmp_path / str(graph is None), kb_source=kb_source, graph=graph,
            embeddings=DeterministicFakeEmbedding(size=32), readers=parse_readers("kofi:eng amara:swh,eng"),
        )  # fmt: skip
        got[graph is None] = next((r.lang, r.translated) for r in obs.readings if r.user == "amara")
    assert got == {True: ("eng", False), False: ("swh", True)}, "measured: the original; preference: Swahili"


def test_two_runs_of_one_set_are_paired_by_message():
    def frame(useful):
        return pd.DataFrame(
            [{"id": f"m{i // 2}", "langs": "swh,eng", "useful": u} for i, u in enumerate(useful)]
            + [{"id": "m0", "langs": "eng", "useful": 0.0}]
        )

    a, b = frame([0, 0, 1, 0, 1, 1]), frame([1, 1, 1, 1, 1, 1])
    test = paired_usefulness(a, b, n_bootstrap=500)
    assert (test["n"], test["a"], test["b"]) == (3, 0.5, 1.0), "the one-language reader is left out"
    assert test["diff"] == 0.5 and test["ci_low"] <= 0.5 <= test["ci_high"]
    with pytest.raises(InputError, match="share no judged message"):
        paired_usefulness(a, b.assign(id="other"))


def test_the_file_to_label_is_the_labels_file_once_its_labels_are_filled(tmp_path):
    todo = {"id": "m1", "source": "La réunion est lundi.", "gloss": "", "reader_lang": "eng",
            "draft": "The meeting is on Monday.", "label": ""}  # fmt: skip
    path = tmp_path / "todo.jsonl"
    path.write_text(json.dumps(todo) + "\n")
    with pytest.raises(AyaLabError, match=r"todo.jsonl:1: .*label"):
        load_labels(path)
    path.write_text(json.dumps(todo | {"label": "faithful"}) + "\n")
    assert load_labels(path) == {("m1", "eng", "The meeting is on Monday."): "faithful"}


def test_two_labellers_agreement_is_kappa_over_the_drafts_both_judged():
    first = {("a", "eng", "x"): "faithful", ("b", "eng", "y"): "made_up", ("c", "fra", "z"): "partial",
             ("d", "fra", "w"): "faithful"}  # fmt: skip
    second = {("a", "eng", "x"): "faithful", ("b", "eng", "y"): "made_up", ("c", "fra", "z"): "faithful",
              ("e", "deu", "v"): "made_up"}  # fmt: skip
    stats, table = label_agreement(first, second)
    assert stats["n"] == 3 and stats["agreement"] == pytest.approx(2 / 3)
    assert stats["kappa"] == pytest.approx(0.5)  # po 2/3, pe (1/3)(2/3) + (1/3)(1/3) = 1/3: (2/3 - 1/3) / (2/3)
    assert table.loc["partial", "faithful"] == 1
    assert label_agreement(first, first)[0]["kappa"] == 1.0
    with pytest.raises(InputError, match="no common draft"):
        label_agreement(first, {("q", "eng", "q"): "faithful"})
