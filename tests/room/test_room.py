"""ChatRoom with scripted fakes: run semantics, batching, persistence, failures, bad input."""

import sqlite3

import pytest
from pydantic import ValidationError

from aya_lab.agents.route_input import RouteOn
from aya_lab.messages import ChatMessage
from aya_lab.models.fake import FakeModelError
from aya_lab.rag import KnowledgeBaseError
from aya_lab.room import ChatRoom, RoomError, default_graph_path
from aya_lab.room.nodes import _routed_input
from aya_lab.room.parameters import SupervisorParameters
from tests.fakes import FakeRoomModel

SUMMARY_RULES = [("Tool:", "summarize"), ("Number:", "2"), ("Summary:", "Plans changed.\n- lena: send the report")]


def snapshot(room):
    conn = sqlite3.connect(room.path)
    counts = {
        t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
        for t in ("checkpoints", "writes", "aya_room_runs", "aya_room_users")
    }
    return counts, [repr(m) for m in room.history()], {u: [repr(d) for d in f] for u, f in room.feeds().items()}


def test_every_user_gets_the_message_once_in_their_language(make_room):
    room = make_room()
    report = room.send("amara", "Habari, mkutano umehamishwa hadi Ijumaa")
    assert report.delivered == {
        "amara": "Habari, mkutano umehamishwa hadi Ijumaa",
        "lena": "[German] Habari, mkutano umehamishwa hadi Ijumaa",
        "kofi": "[English] Habari, mkutano umehamishwa hadi Ijumaa",
    }
    assert report.aya_reply is None and report.nodes == ["ingest", "deliver"]
    for user in room.users:
        assert [d.message_id for d in room.feed(user)] == [report.message_id]
    assert room.feed("lena")[0].translated and not room.feed("amara")[0].translated


def test_fan_out_is_one_batch_per_language_not_per_user(make_room):
    model = FakeRoomModel(default="ok")
    room = make_room(model=model, users={"a": "eng", "b": "deu", "c": "deu", "d": "fra", "e": "fra", "f": "eng"})
    room.send("a", "The meeting moved to Friday.")
    assert model.batches == [2]  # German and French, once each; English readers get the original
    assert sorted(p.split("into ")[1].split(".")[0] for p in model.prompts) == ["French", "German"]


def test_aya_reply_reaches_everyone_exactly_once(make_room):
    room = make_room(model=FakeRoomModel(rules=SUMMARY_RULES))
    room.send("amara", "Habari")
    room.send("kofi", "I will book the room.")
    report = room.send("lena", "@Aya fasse die letzten 2 Nachrichten zusammen")
    assert report.aya_tool == "summarize"
    assert set(report.aya_reply) == {"amara", "lena", "kofi"}
    assert (
        report.aya_reply["kofi"].startswith("The last 2 messages") and "\nPlans changed.\n" in report.aya_reply["kofi"]
    )
    assert report.aya_reply["lena"].startswith("[German] The last 2 messages")
    aya = [m for m in room.history() if m.sender == "aya"]
    assert len(aya) == 1 and aya[0].reply_to == report.message_id
    for user in room.users:
        assert sum(d.from_aya for d in room.feed(user)) == 1
    assert report.nodes[0] == "ingest" and report.nodes[-1] == "deliver_reply"


def test_summarizer_sees_the_last_n_messages_in_english(make_room):
    model = FakeRoomModel(rules=SUMMARY_RULES)
    room = make_room(model=model)
    for i, who in enumerate(["amara", "kofi", "lena"]):
        room.send(who, f"message {i}")
    room.send("kofi", "@aya summarize the last 2 messages")
    summary_prompt = next(p for p in model.prompts if "Summary:" in p)
    transcript = summary_prompt.split("<transcript>\n", 1)[1].split("\n</transcript>")[0]
    assert transcript == "kofi: message 1\nlena: [English] message 2"


def test_query_answers_with_sources(make_room, kb_dir, tmp_path, draft_graph):
    from langchain_core.embeddings import DeterministicFakeEmbedding

    from aya_lab.rag import KnowledgeBase

    kb = KnowledgeBase.open(tmp_path / "kb.sqlite", kb_dir, DeterministicFakeEmbedding(size=32), min_score=-1.0)
    model = FakeRoomModel(rules=[("Tool:", "query"), ("Answer:", "Economy class.")])
    room = make_room(model=model, kb=kb, graph=draft_graph)
    report = room.send("kofi", "@aya which class for a 3 hour flight?")
    assert report.aya_tool == "query"
    assert report.aya_reply["kofi"].startswith("Economy class. (sources: ")
    assert "travel_policy.md" in report.aya_reply["kofi"]
    assert "[travel_policy.md] # Travel policy" in model.prompts[-2] or "[travel_policy.md]" in "".join(model.prompts)


def test_query_with_nothing_relevant_says_i_dont_know(make_room):
    model = FakeRoomModel(rules=[("Tool:", "query")], default="invented policy")
    room = make_room(model=model)
    room.kb.min_score = 1.01  # nothing can be relevant
    report = room.send("kofi", "@aya what is the policy on pets?")
    assert report.aya_reply["kofi"].startswith("I don't know")
    assert not any("Question:" in p for p in model.prompts)  # no model call to invent an answer


def test_remember_adds_a_fact_that_persists(make_room, tmp_path):
    room = make_room(model=FakeRoomModel(rules=[("Tool:", "remember")]), memory_policy="anyone")
    report = room.send("kofi", "@aya remember that the Lagos office closes at 4pm on Fridays")
    assert report.aya_reply["kofi"] == "Noted: the Lagos office closes at 4pm on Fridays"
    assert [f.text for f in room.kb.facts()] == ["the Lagos office closes at 4pm on Fridays"]


def test_garbage_router_output_falls_back_and_is_recorded(make_room):
    room = make_room(model=FakeRoomModel(rules=[("Tool:", "🙃 ???")], default="Hello!"))
    report = room.send("kofi", "@aya thanks a lot")
    assert report.aya_tool == "chat"
    assert any("unparseable router answer" in n for n in report.notes)
    assert report.aya_fallback and report.aya_tools == ["chat"]
    visit = [v for v in room.trace(report.run_id) if v.node == "supervisor"][0]
    assert "KeywordRouter" in visit.note


def test_a_two_tool_request_gets_one_reply_using_both(make_room):
    # the model confirms the remember clause (a write needs the model's explicit choice)
    room = make_room(
        model=FakeRoomModel(rules=[("<request>remember that", "remember"), *SUMMARY_RULES]), memory_policy="anyone"
    )
    room.send("amara", "Habari")
    room.send("lena", "I'll send the report today.")
    report = room.send("kofi", "@aya summarize the last 2 messages and remember the action items")
    assert report.aya_tools == ["summarize", "remember"] and report.aya_tool == "summarize"
    window, summary = report.aya_reply["kofi"].split("\n", 1)
    assert window == "The last 2 messages (amara, lena):"
    # the action items are the rule's (what the messages state), not the model's
    assert (
        summary == "Plans changed.\nAction items:\n- lena: send the report today\n\nNoted: lena: send the report today"
    )
    assert [f.text for f in room.kb.facts()] == ["lena: send the report today"]
    assert [s["tool"] for s in report.aya_steps] == ["summarize", "remember", "Final Answer"]
    assert not report.aya_fallback and "tools summarize -> remember" in str(report)
    visit = [v for v in room.trace(report.run_id) if v.node == "supervisor"][0]
    assert "intent 1/2" in visit.note and "intent 2/2" in visit.note
    assert len(room.runs()) == 3 and room.runs()[-1].aya_tools == ["summarize", "remember"]


@pytest.mark.parametrize(
    "route_on,english,routed",
    [
        ("english", "[English] x", "[English] x"),
        ("original", "what is the travel policy?", "Wie lautet unsere Reiserichtlinie?"),
        ("auto", "[English] Wie lautet unsere Reiserichtlinie, bitte?", "Wie lautet unsere Reiserichtlinie?"),
        ("auto", "What is our travel policy for flights?", "What is our travel policy for flights?"),
    ],
)
def test_route_on_chooses_the_path_by_the_output_language_check(route_on, english, routed):
    state = {
        "incoming": ChatMessage(sender="lena", content="@aya Wie lautet unsere Reiserichtlinie?", lang="deu"),
        "aya_request": "Wie lautet unsere Reiserichtlinie?",
        "aya_request_en": english,
    }
    decided = _routed_input(state, RouteOn(SupervisorParameters(route_on=route_on).route_on))
    assert decided.text == routed and (decided.note is None) == (routed == english)


def test_route_on_refuses_an_unknown_path():
    with pytest.raises(ValidationError, match="route_on\n  Input should be 'auto', 'english' or 'original'"):
        SupervisorParameters(route_on="gold")


def test_room_survives_reopen(make_room, tmp_path):
    room = make_room(model=FakeRoomModel(rules=SUMMARY_RULES))
    room.send("amara", "Habari")
    r2 = room.send("lena", "@aya fasse die letzten 2 Nachrichten zusammen")
    before = snapshot(room)
    room.close()
    reopened = make_room(model=FakeRoomModel(rules=SUMMARY_RULES), users={})
    assert reopened.users == {"amara": "swh", "lena": "deu", "kofi": "eng"}
    assert snapshot(reopened) == before
    assert reopened.trace(r2.run_id)[0].node == "ingest"
    reopened.send("kofi", "still here")
    assert len(reopened.feed("amara")) == 4


def test_failed_run_leaves_the_room_exactly_as_it_was(make_room):
    model = FakeRoomModel(default="ok", fail_on="into German")
    room = make_room(model=model)
    room.send("lena", "Guten Morgen")  # German sender: no German translation needed
    before = snapshot(room)
    with pytest.raises(FakeModelError):
        room.send("amara", "Habari")
    assert snapshot(room) == before
    model.fail_on = None
    room.send("amara", "Habari")  # the room still works after the failure
    assert len(room.feed("lena")) == 2


def test_failure_inside_aya_rolls_back_the_delivered_original_too(make_room):
    model = FakeRoomModel(rules=[("Tool:", "chat")], default="hi", fail_on="You are Aya")
    room = make_room(model=model)
    before = snapshot(room)
    with pytest.raises(FakeModelError):
        room.send("kofi", "@aya how are you?")
    assert snapshot(room) == before


@pytest.mark.parametrize(
    "user,text,match",
    [
        ("mara", "hi", r"unknown user 'mara' \(did you mean 'amara'\?\); users: amara, lena, kofi"),
        ("kofi", "   ", r"empty message from 'kofi'; write some text"),
        ("kofi", "", r"empty message"),
        ("kofi", "@aya", r"'@aya' needs a request after it"),
        ("kofi", "@AYA  !! ", r"'@aya' needs a request after it"),
        ("kofi", "word " * 1200, r"has 1200 tokens, over the room's limit of 1000; split it"),
    ],
)
def test_bad_input_is_one_line_and_changes_nothing(make_room, user, text, match):
    room = make_room()
    room.send("kofi", "first")
    before = snapshot(room)
    with pytest.raises(RoomError, match=match) as err:
        room.send(user, text)
    assert "\n" not in str(err.value)
    assert snapshot(room) == before


def test_add_user_errors(make_room):
    room = make_room()
    with pytest.raises(RoomError, match=r"user id 'lena' is the existing user 'lena' \(reads deu\); pick another id"):
        room.add_user("lena", "fr")
    with pytest.raises(RoomError, match=r"unsupported language 'Swahilli' \(did you mean 'Swahili'\?\)"):
        room.add_user("juma", "Swahilli")
    with pytest.raises(RoomError, match=r"invalid user id 'aya'"):
        room.add_user("aya", "en")
    assert "juma" not in room.users


def test_unreadable_kb_file_is_one_line(tmp_path, kb_dir):
    (kb_dir / "broken.md").write_bytes(b"\xff\xfe\x00 not utf-8 \xc3")
    with pytest.raises(KnowledgeBaseError) as err:
        ChatRoom.open(tmp_path / "r.sqlite", model=FakeRoomModel(default="x"), users={"a": "en"}, kb_dir=kb_dir)
    assert "broken.md" in str(err.value) and "\n" not in str(err.value)


def test_trace_lists_prompts_outputs_and_timings(make_room):
    room = make_room(model=FakeRoomModel(rules=SUMMARY_RULES))
    report = room.send("lena", "@aya fasse die letzten 2 Nachrichten zusammen")
    trace = room.trace(report.run_id)
    assert [v.node for v in trace] == report.nodes
    gens = [g for v in trace for g in v.generations]
    assert len(gens) == report.model_calls and all(g.prompt and g.output == g["output"] for g in gens)
    assert sum(g["prompt_tokens"] for g in gens) == report.prompt_tokens
    assert all(v.seconds >= 0 for v in trace)
    with pytest.raises(RoomError, match=r"no run 'nope' in this room; runs: "):
        room.trace("nope")


def test_one_call_variant_and_context_window(make_room, tmp_path):
    model = FakeRoomModel(rules=[("Tool:", "summarize"), ("COUNT:", "COUNT: 1\nSUMMARY: ok.\nACTIONS:\n- kofi: call")])
    room = make_room(model=model, graph=default_graph_path("aya_onecall"))
    room.send("amara", "Habari")
    report = room.send("kofi", "@aya summarize the last message")
    assert report.aya_reply["kofi"].split("\n", 1)[1] == "ok.\nAction items:\n- no action items"
    assert sum("COUNT:" in p for p in model.prompts) == 1 and not any("Number:" in p for p in model.prompts)
    ctx_model = FakeRoomModel(default="ok")
    ctx_room = make_room(model=ctx_model, graph=default_graph_path("aya_context3"), path=tmp_path / "ctx.sqlite")
    ctx_room.send("amara", "first")
    ctx_room.send("kofi", "second")
    assert any(
        p.endswith("Context (recent messages, do not translate):\namara: [German] first\n<message>second</message>")
        for p in ctx_model.prompts
    )
    assert not any("Context" in p for p in model.prompts)  # the base graph has no context window


def test_graph_draws(make_room):
    room = make_room()
    mermaid = room.graph.draw_mermaid()
    for node in ("ingest", "deliver", "aya_translate", "supervisor", "deliver_reply"):
        assert node in mermaid
    assert "supervisor" in room.draw("ascii")
    assert len(room.spec_hash) == 16


def test_trace_order_is_the_spec_order(tmp_path):
    """The request is translated before delivery (its English is delivered and routed); the trace lists
    the visits in the spec's order every time."""
    from tests.fakes import FakeRoomModel

    for attempt in range(3):
        room = ChatRoom.open(
            tmp_path / f"order{attempt}.sqlite",
            model=FakeRoomModel(default="chat"),
            users={"amara": "swh", "kofi": "eng"},
        )
        report = room.send("kofi", "@aya hello there")
        nodes = [v.node for v in room.trace(report.run_id)]
        assert nodes == ["ingest", "aya_translate", "deliver", "supervisor", "deliver_reply"], nodes
        room.close()
