"""The room graph's typed contract (issue 24): a spec declares the room's state as the state type does (or
is refused in one line), parameters are checked with located errors, Aya's typed result is checkpointed
with the run, a request is translated into English once, and a graph run without its context fails with
one line."""

import pytest
import yaml

from aya_lab.agents.query import QueryAnswer
from aya_lab.agents.routing_chain import RouterOutput
from aya_lab.agents.supervisor import SupervisorResult
from aya_lab.graph import SpecError, build_graph, load_spec
from aya_lab.graph.reader import BUILTIN_GRAPHS
from aya_lab.graph.registry import append_list, merge_dict
from aya_lab.messages import ChatMessage
from aya_lab.rag.sections import Quote
from aya_lab.room import ChatRoom, default_graph_path
from aya_lab.room.errors import RoomError
from aya_lab.room.nodes import aya_registry
from aya_lab.room.room_graph import ROOM_STATE, state_problems
from aya_lab.room.state import CHECKPOINTED_TYPES, step_record
from aya_lab.room.store import RoomStore
from tests.fakes import FakeRoomModel

SUMMARY_RULES = [("Tool:", "summarize"), ("Number:", "2"), ("Summary:", "Plans changed.\n- lena: send the report")]


def room_spec_with(tmp_path, index, change):
    """The room's graph as one file, its ``index``-th state field updated by ``change`` (None drops a key)."""
    spec = load_spec(default_graph_path(), registry=aya_registry()).model_dump(mode="json", exclude_none=True)
    field = spec["flow_parameter"]["state"][index]
    field.update({k: v for k, v in change.items() if v is not None})
    for key in [k for k, v in change.items() if v is None]:
        field.pop(key, None)
    path = tmp_path / "room_graph.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "index,change,message",
    [
        (0, {"type": "list"}, "state[0].type: the room's state field 'users' has type 'dict' (AyaState), not 'list'; write type: dict"),
        (7, {"type": "any"}, "state[7].type: the room's state field 'aya_result' has type 'supervisor_result' (AyaState), not 'any'; write type: supervisor_result"),
        (1, {"reducer": "operator.add"}, "state[1].reducer: the room's state field 'messages' has reducer 'append_list.v1' (AyaState), not 'operator.add'; write reducer: append_list.v1"),
        (2, {"reducer": None}, "state[2].reducer: the room's state field 'deliveries' has reducer 'append_list.v1' (AyaState), not none (the last value wins); write reducer: append_list.v1"),
        (3, {"reducer": "append_list.v1"}, "state[3].reducer: the room's state field 'incoming' keeps its last value (AyaState), not reducer 'append_list.v1'; remove its reducer"),
    ],
    ids=["type", "heavy-type", "reducer", "no-reducer", "extra-reducer"],
)  # fmt: skip
def test_a_room_state_field_declared_unlike_aya_state_is_refused_in_one_line(tmp_path, index, change, message):
    path = room_spec_with(tmp_path, index, change)
    with pytest.raises(SpecError) as caught:
        ChatRoom.open(tmp_path / "r.sqlite", model=FakeRoomModel(default="x"), graph=path)
    assert str(caught.value) == f"graph spec in {path}: flow_parameter.{message}"
    assert not (tmp_path / "r.sqlite").exists()


def test_a_misspelled_room_state_field_is_refused_in_one_line(tmp_path):
    path = room_spec_with(tmp_path, 8, {"field_name": "aya_logs"})
    with pytest.raises(RoomError) as caught:
        ChatRoom.open(tmp_path / "r.sqlite", model=FakeRoomModel(default="x"), graph=path)
    assert str(caught.value) == (
        f"graph '{path}' is not a room graph: it lacks the state field aya_log; "
        "give the room's graph (aya, aya_onecall, aya_context3) or an overlay with base: aya.yaml"
    )
    assert not (tmp_path / "r.sqlite").exists()


def test_the_room_graphs_declare_the_room_state_as_aya_state_does():
    registry = aya_registry()
    for name in ("aya", "aya_onecall", "aya_context3"):
        spec = load_spec(BUILTIN_GRAPHS / f"{name}.yaml", registry=registry)
        assert state_problems(spec, registry) == [], name


def test_the_room_state_table_is_aya_state_read():
    assert ROOM_STATE["users"] == (dict, merge_dict) and ROOM_STATE["messages"] == (list, append_list)
    assert ROOM_STATE["aya_request"] == (str, None) and ROOM_STATE["aya_result"] == (SupervisorResult, None)


@pytest.mark.parametrize(
    "change,where,message",
    [
        ({"summarizer": "three_call"}, "summarizer", "Input should be 'two_call' or 'one_call' (got 'three_call')"),
        ({"query_k": 0}, "query_k", "greater than or equal to 1"),
        ({"max_stpes": 4}, "max_stpes", "unknown key 'max_stpes' (did you mean 'max_steps'?)"),
        ({"router_prompt": "supervisor/nope"}, "router_prompt", "no supervisor prompt variant 'nope'; variants: "),
        ({"router_prompt": "summarizer_count/baseline"}, "router_prompt", "is a 'summarizer_count' prompt"),
    ],
)
def test_a_bad_supervisor_parameter_is_located(tmp_path, change, where, message):
    spec = load_spec(default_graph_path(), registry=aya_registry()).model_dump(mode="json", exclude_none=True)
    index = next(i for i, f in enumerate(spec["flows"]) if f.get("flow_parameter", {}).get("name") == "supervisor")
    spec["flows"][index]["factory_parameter"].update(change)
    with pytest.raises(SpecError) as caught:
        load_spec(spec, registry=aya_registry())
    text = str(caught.value)
    assert f"flows[{index}].factory_parameter.{where}" in text and message in text, text


def test_a_request_is_translated_into_english_once(make_room):
    model = FakeRoomModel(rules=[("Tool:", "chat"), ("Reply:", "Hello!")], default="Hello!")
    room = make_room(model=model)
    report = room.send("lena", "@aya Wie lautet unsere Reiserichtlinie?")
    english_requests = [g for v in room.trace(report.run_id) for g in v.generations if "English" in g.output]
    assert [g.output for g in english_requests] == ["[English] Wie lautet unsere Reiserichtlinie?"]
    assert report.delivered["kofi"] == "@aya [English] Wie lautet unsere Reiserichtlinie?"
    assert report.delivered["amara"] == "[Swahili] @aya Wie lautet unsere Reiserichtlinie?"
    assert not any(
        "[English]" in g.prompt for v in room.trace(report.run_id) if v.node == "deliver" for g in v.generations
    )


def test_an_english_request_is_not_translated(make_room):
    room = make_room(model=FakeRoomModel(rules=[("Tool:", "chat")], default="Hi."))
    report = room.send("kofi", "@aya hello there")
    nodes = {v.node: v for v in room.trace(report.run_id)}
    assert nodes["aya_translate"].generations == [] and report.delivered["kofi"] == "@aya hello there"


def test_aya_result_is_checkpointed_typed_with_the_run(make_room):
    room = make_room(model=FakeRoomModel(rules=SUMMARY_RULES))
    room.send("amara", "Habari")
    room.send("kofi", "I'll send the report today.")
    report = room.send("kofi", "@aya summarize the last 2 messages")
    result = room._values()["aya_result"]
    assert isinstance(result, SupervisorResult) and result.tools == ["summarize"]
    assert report.aya_steps == [step_record(s) for s in result.steps]
    assert result.summaries[0].action_items == [("kofi", "send the report today")]  # tuples again, after the read
    assert isinstance(result.steps[0].output, RouterOutput)
    room.send("kofi", "just chatting")
    assert room._values()["aya_result"] is None  # ingest clears it on every run


def test_a_router_decision_keeps_its_flags_through_a_checkpoint(tmp_path):
    store = RoomStore(tmp_path / "r.sqlite")
    serde = store.checkpointer.serde
    out = RouterOutput("chat", "x", "why", fallback=True, explicit=True)
    back = serde.loads_typed(serde.dumps_typed({"o": out}))["o"]
    assert back == out and back.fallback and back.explicit
    assert ("aya_lab.agents.routing_chain", "RouterOutput") in CHECKPOINTED_TYPES
    store.close()


def test_the_graph_without_its_run_context_fails_with_one_line(tmp_path):
    app = build_graph(default_graph_path(), aya_registry()).compile()
    with pytest.raises(RuntimeError, match=r"needs its run context: graph.invoke\(\.\.\., context=AyaRuntime"):
        app.invoke({"incoming": ChatMessage(sender="kofi", content="hi", lang="eng"), "users": {"kofi": "eng"}})


def test_a_quoted_answer_keeps_where_it_was_ranked_through_a_checkpoint(tmp_path, caplog):
    store = RoomStore(tmp_path / "r.sqlite")
    serde = store.checkpointer.serde
    quote = Quote("travel_policy.md", "Flights", ("Economy class for flights under 6 hours.",))
    answer = QueryAnswer(quote.text, quote.sentences[0], ["travel_policy.md"], quote=quote,
                         ranked_first=("travel_policy.md", "Flights"), margin=0.071)  # fmt: skip
    back = serde.loads_typed(serde.dumps_typed({"a": answer}))["a"]
    # plain values only: a section object in the answer would be refused by the allow-list (and logged)
    assert back.quote.text == quote.text and back.margin == 0.071
    assert tuple(back.ranked_first) == ("travel_policy.md", "Flights")
    assert "Blocked deserialization" not in caplog.text
    store.close()
