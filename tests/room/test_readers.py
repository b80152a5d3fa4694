"""Readers with more than one language (issue 40, item 1): the delivery rule's branches, its report notes,
the model calls it makes (none extra in a room of one-language readers), and the languages kept in the
room file (a room from before lists opens unchanged)."""

from __future__ import annotations

import io
import sqlite3

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from aya_lab.agents.guard import GuardVerdict, TranslationGuard
from aya_lab.agents.user import UserAgent
from aya_lab.cli import main
from aya_lab.demo import SCRIPT, USERS, run_demo
from aya_lab.errors import InputError
from aya_lab.paths import project_root
from aya_lab.room import ChatRoom, RoomError
from aya_lab.room.delivery import route, wilson
from aya_lab.room_cli import ChatRepl
from tests.fakes import FakeRoomModel

GERMAN = "Guten Morgen, das Treffen ist am Freitag."
ENGLISH = "Great, I will book the meeting room."


@pytest.fixture
def verdicts(monkeypatch):
    """``verdicts(swh="withheld", fra="flagged")``: the guard's verdict per target language (else it passes)."""

    def set_(**by_lang: str) -> None:
        def check(self, source, output, src, tgt, agreement=None):
            how = by_lang.get(tgt)
            if how == "withheld":
                return GuardVerdict((f"assistant: test withholds {tgt}",))
            if how == "flagged":
                return GuardVerdict((), (f"faithful: test doubts {tgt}",))
            return GuardVerdict()

        monkeypatch.setattr(TranslationGuard, "check", check)

    return set_


def _room(make_room, amara, model=None, **kw):
    return make_room(model=model, users={"amara": amara, "lena": "deu", "kofi": "eng"}, **kw)


def test_a_message_in_the_readers_first_language_is_the_original(make_room):
    room = _room(make_room, ["swh", "eng"])
    report = room.send("amara", "Habari timu")
    (got,) = room.feed("amara")
    assert (got.text, got.lang, got.translated) == ("Habari timu", "swh", False)
    assert report.reader_notes == []


def test_a_passing_translation_into_the_first_language_is_delivered_unmarked(make_room):
    room = _room(make_room, ["swh", "eng"])
    report = room.send("lena", GERMAN)
    (got,) = room.feed("amara")
    assert (got.text, got.lang, got.translated) == (f"[Swahili] {GERMAN}", "swh", True)
    assert report.reader_notes == []


PREFERENCE = project_root() / "aya_lab" / "graphs" / "aya_preference.yaml"


def test_an_original_in_a_later_language_comes_first_marked_and_is_not_translated_for(make_room):
    room = _room(make_room, ["swh", "eng"])
    model = room.models["translator"]
    report = room.send("kofi", ENGLISH)
    (got,) = room.feed("amara")
    assert (got.text, got.lang, got.translated) == (f"[eng] {ENGLISH}", "eng", False)
    assert report.delivered["amara"] == f"[eng] {ENGLISH}"
    (note,) = report.reader_notes
    assert note.endswith("amara got eng (the original): first on the route (measured records)")
    assert f"reader: {note}" in str(report)
    assert not any("Swahili" in p for p in model.prompts), "no translation into Swahili was needed"


def test_by_preference_first_withheld_an_original_in_the_second_language_is_delivered_marked(make_room, verdicts):
    verdicts(swh="withheld")
    room = _room(make_room, ["swh", "eng"], graph=PREFERENCE)
    report = room.send("kofi", ENGLISH)
    (got,) = room.feed("amara")
    assert (got.text, got.lang, got.translated) == (f"[eng] {ENGLISH}", "eng", False)
    (note,) = report.reader_notes
    assert note.endswith("amara got eng (the original): swh translation withheld (assistant: test withholds swh)")


def test_first_withheld_a_passing_second_language_translation_is_delivered_marked(make_room, verdicts):
    verdicts(swh="withheld")
    room = _room(make_room, ["swh", "fra"])
    model = room.models["translator"]
    report = room.send("lena", GERMAN)
    (got,) = room.feed("amara")
    assert (got.text, got.lang, got.translated) == (f"[fra] [French] {GERMAN}", "fra", True)
    assert report.reader_notes == [
        f"lena's message {got.message_id}: amara got fra (translated): swh translation withheld "
        "(assistant: test withholds swh)"
    ]
    assert model.batches[-2:] == [2, 1]  # swh and eng first; French only after Swahili failed
    assert "French" in model.prompts[-1] and room.feed("lena")[0].text == GERMAN


def test_first_withheld_and_second_flagged_the_flagged_draft_is_delivered(make_room, verdicts):
    verdicts(swh="withheld", fra="flagged")
    room = _room(make_room, ["swh", "fra"])
    report = room.send("lena", GERMAN)
    (got,) = room.feed("amara")
    assert got.text == f"[fra] [unverified] [French] {GERMAN} | original: {GERMAN}" and got.lang == "fra"
    assert report.reader_notes[0].endswith(
        "amara got fra (unverified): swh translation withheld (assistant: test withholds swh); "
        "fra translation unverified (faithful: test doubts fra)"
    )


def test_a_flagged_first_language_waits_for_a_passing_second(make_room, verdicts):
    verdicts(swh="flagged")
    room = _room(make_room, ["swh", "eng"])
    room.send("lena", GERMAN)
    assert room.feed("amara")[0].text == f"[eng] [English] {GERMAN}"


def test_nothing_passes_the_original_is_delivered_not_translated(make_room, verdicts):
    verdicts(swh="withheld", fra="withheld")
    room = _room(make_room, ["swh", "fra"])
    report = room.send("lena", GERMAN)
    (got,) = room.feed("amara")
    assert (got.text, got.lang) == (f"[not translated] {GERMAN}", "swh")
    assert report.reader_notes[0].endswith(
        "amara got swh (not translated): swh translation withheld (assistant: "
        "test withholds swh); fra translation withheld (assistant: test withholds fra)"
    )


def test_ayas_reply_follows_the_rule_too(make_room, verdicts):
    verdicts(swh="withheld")
    room = _room(make_room, ["swh", "eng"], model=FakeRoomModel(default="Hello!"))
    report = room.send("kofi", "@aya hello there")
    assert report.aya_reply is not None and report.aya_reply["amara"] == "[eng] Hello!"
    assert len(report.reader_notes) == 2  # Kofi's message and Aya's reply


def _prompts(room, reports):
    """Every prompt of ``reports``' runs, node by node (read from the trace: cached generations too)."""
    return [(v.node, g.prompt) for r in reports for v in room.trace(r.run_id) for g in v.generations]


@pytest.mark.parametrize("withhold", [False, True])
def test_one_language_readers_make_the_same_model_calls(make_room, tmp_path, verdicts, withhold):
    """By preference, a list whose later languages are never needed changes no prompt (a notebook's cached
    generations keep matching): English is translated for Aya anyway. The translations asked for are those
    of a room of one-language readers: one batch per message into the first languages and English."""
    if withhold:
        verdicts(swh="withheld")
    runs, feeds = [], []
    for name, amara in (("one", "swh"), ("list", ["swh", "eng"])):
        room = make_room(
            path=tmp_path / f"{name}.sqlite", users={"amara": amara, "lena": "deu", "kofi": "eng"}, graph=PREFERENCE
        )
        reports = [room.send("lena", GERMAN), room.send("kofi", "@aya hello there")]
        runs.append(_prompts(room, reports))
        feeds.append([(d.text, d.lang) for d in room.feed("amara")])
    assert runs[0] == runs[1]
    translations = [p for node, p in runs[0] if node in ("deliver", "deliver_reply")]
    assert len(translations) == 6  # German -> swh, eng; English -> swh, deu; Aya's reply -> swh, deu
    assert [("Swahili" in p, "English" in p) for p in translations[:2]] == [(True, False), (False, True)]
    if withhold:
        assert feeds[0][0] == (f"[not translated] {GERMAN}", "swh")  # as before lists
        assert feeds[1][0] == (f"[eng] [English] {GERMAN}", "eng")
    else:
        assert feeds[0] == feeds[1] and feeds[0][0] == (f"[Swahili] {GERMAN}", "swh")


def test_languages_are_kept_in_order_and_a_room_from_before_lists_opens(make_room, tmp_path):
    path = tmp_path / "old.sqlite"
    make_room(path=path, users={"amara": "swh", "kofi": "eng"}).close()
    with sqlite3.connect(path) as conn:  # a room from before lists: one code per user
        assert conn.execute("SELECT lang FROM aya_room_users ORDER BY position").fetchall() == [("swh",), ("eng",)]
    room = make_room(path=path, users={"amara": ["swh"], "kofi": "English"})  # the same languages: fine
    assert room.readers == {"amara": ("swh",), "kofi": ("eng",)} and room.users == {"amara": "swh", "kofi": "eng"}
    assert room.add_user("lena", ["German", "en"]) == "lena"
    assert room.readers["lena"] == ("deu", "eng") and room.users["lena"] == "deu"
    room.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT lang FROM aya_room_users WHERE user_id = 'lena'").fetchone() == ("deu,eng",)
    again = make_room(path=path, users={"lena": "deu,eng"})
    assert again.readers["lena"] == ("deu", "eng")


def test_reopening_with_another_list_is_refused_and_changes_nothing(make_room, tmp_path):
    path = tmp_path / "r.sqlite"
    make_room(path=path, users={"amara": ["swh", "eng"]}).close()
    for other in (["eng", "swh"], "swh", ["swh", "eng", "fra"]):
        with pytest.raises(RoomError, match=r"user 'amara' already reads swh,eng in .*leave amara out") as caught:
            make_room(path=path, users={"amara": other})
        assert "\n" not in str(caught.value)
    assert make_room(path=path, users={"amara": ["Swahili", "English"]}).readers == {"amara": ("swh", "eng")}


def test_the_repl_and_the_panel_add_readers_of_several_languages(make_room):
    room = make_room(users={"kofi": "eng"})
    out = io.StringIO()
    repl = ChatRepl(room, out)
    repl.handle("/add amara swh,eng")
    repl.handle("/users")
    assert "added amara (swh,eng)" in out.getvalue() and "kofi (eng), amara (swh,eng)" in out.getvalue()
    panel = room.panel()
    assert panel.add_user("lena:deu,fra") == "lena"
    assert "added lena (German, French)" in panel.status.value
    assert "lena (German, French)" in panel.feeds_html()["lena"]
    assert room.readers == {"kofi": ("eng",), "amara": ("swh", "eng"), "lena": ("deu", "fra")}


@pytest.fixture
def fake_kb_rooms(monkeypatch, kb_dir):
    """Rooms the CLI and the demo open get the test knowledge base with fake embeddings (no model load)."""
    real = ChatRoom.open.__func__

    def open_(cls, path, *args, **kw):
        return real(cls, path, *args, kb_dir=kb_dir, embeddings=DeterministicFakeEmbedding(size=8), **kw)

    monkeypatch.setattr(ChatRoom, "open", classmethod(open_))


def test_chat_adds_a_reader_of_several_languages(fake_kb_rooms, monkeypatch, capsys, tmp_path):
    lines = iter(["/users", "/quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))
    path = tmp_path / "c.sqlite"
    assert main(["chat", str(path), "--user", "amara:swh,eng", "--user", "kofi:en", "--model", "fake:ok"]) == 0
    assert "amara (swh,eng), kofi (eng)" in capsys.readouterr().out


def test_the_demos_colleagues_read_their_lists_and_the_demo_prints_them(fake_kb_rooms, tmp_path, verdicts):
    verdicts(swh="withheld")  # as on the embedded translator: no Swahili draft passes
    out = io.StringIO()
    room = run_demo(tmp_path / "demo.sqlite", model="fake:ok", out=out)
    try:
        assert room.readers == {
            "amara": ("swh", "eng"),
            "lena": ("deu", "eng"),
            "kofi": ("eng",),
            "sophie": ("fra", "eng"),
        }
        text = out.getvalue()
        assert "users amara (swh,eng), lena (deu,eng), kofi (eng), sophie (fra,eng);" in text
        assert "--- feed of amara (swh,eng) ---" in text and "--- feed of kofi (eng) ---" in text
        runs = room.runs()
        assert len(runs) == len(SCRIPT) and all(set(r.delivered) == set(USERS) for r in runs)
        assert runs[2].delivered["amara"] == f"[eng] {SCRIPT[2][1]}"  # Kofi's English, as written
        assert "amara got eng (the original): first on the route (measured records)" in text
        feed = room.feed("amara")
        assert feed[0].text == SCRIPT[0][1] and all(d.text.startswith("[eng] ") for d in feed[1:])
    finally:
        room.close()


def test_a_translation_that_never_comes_back_fails_the_run_instead_of_looping(make_room, verdicts, monkeypatch):
    """The rounds ask for a reader's next language until it has a text; a translator that returns none for
    a language it was asked for is a bug: the run fails (and changes nothing) rather than asking forever."""
    verdicts(swh="withheld")
    room = _room(make_room, ["swh", "fra"])
    real = UserAgent.draft_many

    def without_french(self, message, targets, history=()):
        return {k: v for k, v in real(self, message, targets, history).items() if k != "fra"}

    monkeypatch.setattr(UserAgent, "draft_many", without_french)
    with pytest.raises(RuntimeError, match="into fra came back"):
        room.send("lena", GERMAN)
    assert room.feed("amara") == [] and room.history() == []


def test_by_measured_records_a_reader_of_english_makes_fewer_calls_never_more(make_room, tmp_path):
    """The measured route translates nothing for an original its reader reads: the list room's prompts
    are the one-language room's, less the Swahili translations of English text (Kofi's and Aya's)."""
    runs = []
    for name, amara in (("one", "swh"), ("list", ["swh", "eng"])):
        room = make_room(path=tmp_path / f"{name}.sqlite", users={"amara": amara, "lena": "deu", "kofi": "eng"})
        runs.append(_prompts(room, [room.send("lena", GERMAN), room.send("kofi", "@aya hello there")]))
    assert set(runs[1]) < set(runs[0])
    dropped = [p for node, p in runs[0] if (node, p) not in runs[1]]
    assert dropped and all("Swahili" in p for p in dropped)


def test_a_translation_the_record_says_is_clearly_more_faithful_goes_first():
    """The route reorders translations only on a clear difference in the translator's record."""
    records = {"fra": (3, 42), "eng": (14, 41), "deu": (3, 41)}
    assert route(["fra", "eng"], "deu", records) == ("eng", "fra")
    assert route(["fra", "eng"], "eng", records) == ("eng", "fra"), "the original first"
    assert route(["fra", "deu"], "spa", records) == ("fra", "deu"), "no clear difference: the reader's order"
    assert route(["fra", "eng"], "deu", {"eng": (14, 41)}) == ("fra", "eng"), "no record for fra: its place kept"
    assert route(["fra", "eng"], "deu", records, "preference") == ("fra", "eng")
    low, high = wilson(14, 41)
    assert 0.2 < low < 14 / 41 < high < 0.5 and wilson(0, 0) == (0.0, 1.0)


def test_a_room_opens_a_packaged_graph_by_name_and_a_wrong_name_is_one_line_creating_nothing(tmp_path):
    models = {"translator": "fake:Hallo", "aya": "fake:ok"}
    room = ChatRoom.open(tmp_path / "r.sqlite", models=models, graph="aya_sentences", users={"lena": "deu"})
    assert room.spec.name == "AyaRoomSentences"
    with pytest.raises(InputError, match=r"spec 'aya_nosuch' is neither a file nor a packaged graph: .*aya_sentences"):
        ChatRoom.open(tmp_path / "s.sqlite", models=models, graph="aya_nosuch")
    assert not (tmp_path / "s.sqlite").exists()
