"""Offline by default (issue 11): a hub id resolves only from the local Hugging Face cache unless the
user opts in with AYA_LAB_ALLOW_DOWNLOADS=1; an unset HF_HUB_OFFLINE does not mean "go online"."""

from __future__ import annotations

import socket

import huggingface_hub
import pytest
from huggingface_hub import constants

from aya_lab.models.errors import ModelNotFoundError
from aya_lab.models.loader import load_model
from aya_lab.models.resolve import ALLOW_DOWNLOADS_ENV, downloads_allowed, resolve_checkpoint

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def hub(tmp_path, monkeypatch):
    """An empty HF cache, no offline flag, no opt-in; every hub call and every socket recorded."""
    cache = tmp_path / "hub"
    cache.mkdir()
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv(ALLOW_DOWNLOADS_ENV, raising=False)
    calls: list[str] = []
    real = huggingface_hub.snapshot_download

    def snapshot_download(repo_id, *args, local_files_only=False, **kwargs):
        calls.append("cache" if local_files_only else "network")
        if not local_files_only:
            raise ConnectionError("the test hub has no network")
        return real(repo_id, *args, local_files_only=True, **kwargs)

    def no_socket(*args, **kwargs):
        calls.append("socket")
        raise OSError("no network in tests")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)
    monkeypatch.setattr(socket, "create_connection", no_socket)
    monkeypatch.setattr(socket.socket, "connect", no_socket)
    monkeypatch.setattr(socket, "getaddrinfo", no_socket)
    return cache, calls


def cache_model(cache, repo_id: str):
    folder = cache / f"models--{repo_id.replace('/', '--')}"
    snapshot = folder / "snapshots" / COMMIT
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}", encoding="utf-8")
    (folder / "refs").mkdir()
    (folder / "refs" / "main").write_text(COMMIT, encoding="utf-8")
    return snapshot


def test_a_hub_id_missing_from_the_cache_is_not_looked_up_online(hub):
    _, calls = hub
    with pytest.raises(ModelNotFoundError) as err:
        load_model("hf:some-org/not-cached")
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith("hub model 'some-org/not-cached' is not in the local Hugging Face cache")
    assert f"{ALLOW_DOWNLOADS_ENV}=1" in msg and "huggingface-cli download some-org/not-cached" in msg
    assert calls == ["cache"]  # looked up in the cache only: no download, no socket
    assert not downloads_allowed()


def test_a_cached_hub_id_resolves_without_the_network(hub):
    cache, calls = hub
    snapshot = cache_model(cache, "some-org/cached")
    assert resolve_checkpoint("some-org/cached", "hf:some-org/cached") == snapshot
    assert calls == ["cache"]


def test_downloads_happen_only_after_the_opt_in(hub, monkeypatch):
    _, calls = hub
    monkeypatch.setenv(ALLOW_DOWNLOADS_ENV, "1")
    assert downloads_allowed()
    with pytest.raises(ModelNotFoundError, match=r"'some-org/not-cached' could not be found or downloaded"):
        resolve_checkpoint("some-org/not-cached", "hf:some-org/not-cached")
    assert calls == ["cache", "network"]


def test_hf_hub_offline_wins_over_the_opt_in(hub, monkeypatch):
    _, calls = hub
    monkeypatch.setenv(ALLOW_DOWNLOADS_ENV, "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert not downloads_allowed()
    with pytest.raises(ModelNotFoundError, match="and HF_HUB_OFFLINE is set; run `huggingface-cli download"):
        resolve_checkpoint("some-org/not-cached", "seq2seq:some-org/not-cached")
    assert calls == ["cache"]
