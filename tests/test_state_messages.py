"""Reducers as plain functions (the graph registry's, strict); ChatMessage behaviour."""

from typing import Annotated

import pytest
from langgraph.graph import END, START, StateGraph
from pydantic import ValidationError
from typing_extensions import TypedDict

from aya_lab.graph.registry import ReducerError, append_list, merge_dict
from aya_lab.messages import ChatMessage, Delivery


def test_list_update_is_appended():
    assert append_list([1, 2], [3]) == [1, 2, 3]
    assert append_list(None, [1]) == [1]
    assert append_list([1], (2,)) == [1, 2]


def test_string_update_passes_through_on_purpose():
    assert append_list([1], "") == [1]
    assert append_list([1], "any text") == [1]


@pytest.mark.parametrize("update", [None, {"a": 1}, 3, ChatMessage(sender="a", content="x", lang="eng")])
def test_any_other_update_type_raises_naming_the_type(update):
    with pytest.raises(ReducerError, match=type(update).__name__):
        append_list([1], update)


def test_append_does_not_mutate_current():
    current = [1]
    append_list(current, [2])
    assert current == [1]


def test_merge_dict_merges_and_refuses_non_mappings():
    assert merge_dict({"a": "eng"}, {"b": "swh", "a": "fra"}) == {"a": "fra", "b": "swh"}
    for bad in (["not", "a", "dict"], None, "x"):
        with pytest.raises(ReducerError, match="merge_dict.v1"):
            merge_dict({"a": "eng"}, bad)


def test_a_node_returning_a_wrong_type_fails_the_graph_run():
    class S(TypedDict):
        log: Annotated[list, append_list]

    g = StateGraph(S)
    g.add_node("bad", lambda s: {"log": {"oops": 1}})
    g.add_edge(START, "bad")
    g.add_edge("bad", END)
    with pytest.raises(ReducerError):
        g.compile().invoke({"log": []})


def test_chat_message_repr_and_text_in():
    m = ChatMessage(sender="amara", content="Habari", lang="swh", translations={"eng": "Hello"})
    assert repr(m) == "amara | Habari"
    assert m.text_in("swh") == "Habari" and m.english == "Hello"
    assert m.text_in("deu") == "Habari"  # no translation: the original
    assert len(m.id) == 12 and m.created_at.endswith("+00:00")


def test_messages_are_frozen_and_strict():
    m = ChatMessage(sender="a", content="x", lang="eng")
    with pytest.raises(ValidationError):
        m.content = "y"
    with pytest.raises(ValidationError):
        ChatMessage(sender="a", content="x", lang="eng", colour="red")


def test_delivery_marks_aya():
    d = Delivery(message_id="1", user="lena", sender="aya", text="Hallo", lang="deu", translated=True, from_aya=True)
    assert repr(d).endswith("aya | Hallo")
