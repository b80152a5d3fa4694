"""Reducers as plain functions; ChatMessage behaviour."""

import pytest
from pydantic import ValidationError

from aya_lab.messages import ChatMessage, Delivery
from aya_lab.state import append_messages, merge_users, replace_value


def test_list_update_is_appended():
    assert append_messages([1, 2], [3]) == [1, 2, 3]
    assert append_messages(None, [1]) == [1]


@pytest.mark.parametrize("update", [None, "text", {"a": 1}, 3, ChatMessage(sender="a", content="x", lang="eng")])
def test_non_list_update_is_ignored(update):
    assert append_messages([1], update) == [1]


def test_append_does_not_mutate_current():
    current = [1]
    append_messages(current, [2])
    assert current == [1]


def test_merge_users():
    assert merge_users({"a": "eng"}, {"b": "swh", "a": "fra"}) == {"a": "fra", "b": "swh"}
    assert merge_users({"a": "eng"}, ["not", "a", "dict"]) == {"a": "eng"}
    assert replace_value(1, 2) == 2


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
