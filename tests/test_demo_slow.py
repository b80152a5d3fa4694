"""The demo, end to end on the embedded default model (slow: real SmolLM2 generations)."""

import io

import pytest

from aya_lab.demo import SCRIPT, USERS, run_demo


@pytest.mark.slow
def test_demo_end_to_end_on_smollm2(tmp_path):
    out = io.StringIO()
    room = run_demo(tmp_path / "demo.sqlite", model="smollm2", out=out, max_new_tokens=32)
    try:
        text = out.getvalue()
        runs = room.runs()
        assert len(runs) == len(SCRIPT)
        for report, (sender, message) in zip(runs, SCRIPT):
            assert report.sender == sender and set(report.delivered) == set(USERS)
            assert report.delivered[sender] == message
            assert (report.aya_reply is not None) == ("@aya" in message)
        assert runs[4].aya_reply is not None and set(runs[4].aya_reply) == set(USERS)
        assert all(len(room.feed(u)) == len(SCRIPT) + 2 for u in USERS)  # 6 messages + 2 replies
        for user in USERS:
            assert f"--- feed of {user}" in text
    finally:
        room.close()
