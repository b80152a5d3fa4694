"""A router whose model call hangs ends the send with one RouterTimeoutError, and the send rolls back."""

from __future__ import annotations

import shutil
import threading

import pytest

from aya_lab.agents.routing import RouterTimeoutError
from aya_lab.room import default_graph_path
from tests.fakes import FakeRoomModel
from tests.room.test_room import snapshot

RELEASE = threading.Event()


class HangingRouterModel(FakeRoomModel):
    """Hangs on the supervisor's router prompt (until released); answers everything else as usual."""

    def answer(self, prompt: str) -> str:
        if "Tool:" in prompt:
            RELEASE.wait(10)
        return super().answer(prompt)


def test_a_hung_router_call_times_out_and_the_send_rolls_back(make_room, tmp_path):
    shutil.copy(default_graph_path(), tmp_path / "aya.yaml")
    params = "{router_prompt: supervisor/baseline, summarizer: two_call, query_k: 3, max_steps: 3, route_on: auto, route_timeout: 0.5}"
    (tmp_path / "timeout.yaml").write_text(
        f"base: aya.yaml\nname: aya-timeout\nchanges:\n  - update_node: supervisor\n    factory_parameter: {params}\n"
    )
    room = make_room(model=HangingRouterModel(default="hi"), graph=tmp_path / "timeout.yaml")
    room.send("kofi", "hello")
    before = snapshot(room)
    try:
        with pytest.raises(
            RouterTimeoutError,
            match=r"step 1: router AuthorityRouter: route\(\) did not return within route_timeout=0.5 s",
        ):
            room.send("kofi", "@aya how are you?")
    finally:
        RELEASE.set()
    assert snapshot(room) == before


class HangingLoopModel(FakeRoomModel):
    """Hangs on the loop router's second call (after the first observation); answers the rest as usual."""

    def answer(self, prompt: str) -> str:
        if "\nObservation: " in prompt.rsplit("<transcript>", 1)[-1]:
            RELEASE_LOOP.wait(10)
        return super().answer(prompt)


RELEASE_LOOP = threading.Event()


def test_a_loop_router_hung_after_the_first_tool_names_step_2_and_the_send_rolls_back(make_room, tmp_path):
    shutil.copy(default_graph_path(), tmp_path / "aya.yaml")
    params = "{router: loop, route_timeout: 0.5}"
    (tmp_path / "loop.yaml").write_text(
        f"base: aya.yaml\nname: aya-loop\nchanges:\n  - update_node: supervisor\n    factory_parameter: {params}\n"
    )
    room = make_room(model=HangingLoopModel(default="hi"), graph=tmp_path / "loop.yaml")
    room.send("kofi", "hello")
    before = snapshot(room)
    try:
        with pytest.raises(
            RouterTimeoutError,
            match=r"step 2: router AuthorityRouter: route\(\) did not return within route_timeout=0.5 s",
        ):
            room.send("kofi", "@aya how are you?")
    finally:
        RELEASE_LOOP.set()
    assert snapshot(room) == before
