"""Generation cache: hit, miss, replay, off, concurrency, corruption, LangChain interface."""

import multiprocessing as mp
import sqlite3

import pytest
from langchain_core.outputs import Generation

from aya_lab.models import CacheCorruptError, CacheMissError, GenerationCache, GenerationResult
from aya_lab.models.fake import FakeChatModel


def test_second_call_is_a_hit_and_skips_the_model(tmp_path):
    cache = GenerationCache(tmp_path / "c.sqlite", "readwrite")
    model = FakeChatModel(responses=["first", "second"], cache=cache)
    a = model.generate_texts([[_h("hello")]])
    b = model.generate_texts([[_h("hello")]])
    assert a[0].text == b[0].text == "first"
    assert (a[0].cached, b[0].cached) == (False, True)
    assert model.prompts == ["<human> hello"]  # the model saw it once


def test_key_includes_settings_and_repeat(tmp_path):
    cache = GenerationCache(tmp_path / "c.sqlite", "readwrite")
    model = FakeChatModel(responses=["a", "b", "c"], cache=cache)
    r0 = model.generate_texts([[_h("q")]])[0].text
    r1 = model.generate_texts([[_h("q")]], repeat=1)[0].text
    hot = model.model_copy(update={"settings": model.settings.model_copy(update={"temperature": 0.7})})
    r2 = hot.generate_texts([[_h("q")]])[0].text
    assert len({r0, r1, r2}) == 3
    assert len(cache) == 3


def test_replay_miss_names_the_prompt(tmp_path):
    path = tmp_path / "c.sqlite"
    FakeChatModel(responses=["x"], cache=GenerationCache(path, "readwrite")).generate_texts([[_h("known")]])
    replay = FakeChatModel(responses=["x"], cache=GenerationCache(path, "replay"))
    assert replay.generate_texts([[_h("known")]])[0].text == "x"
    with pytest.raises(CacheMissError) as err:
        replay.generate_texts([[_h("a brand new prompt")]])
    assert "a brand new prompt" in str(err.value) and "AYA_LAB_CACHE_MODE=readwrite" in str(err.value)
    assert replay.prompts == []


def test_replay_without_file(tmp_path):
    with pytest.raises(CacheMissError, match="does not exist"):
        GenerationCache(tmp_path / "none.sqlite", "replay")


def test_off_mode_never_stores(tmp_path):
    cache = GenerationCache(tmp_path / "c.sqlite", "off")
    model = FakeChatModel(responses=["a", "b"], cache=cache)
    assert [model.generate_texts([[_h("q")]])[0].text for _ in range(2)] == ["a", "b"]
    assert not (tmp_path / "c.sqlite").exists()


def test_env_mode_is_validated(monkeypatch):
    from aya_lab.models.cache import cache_mode

    monkeypatch.setenv("AYA_LAB_CACHE_MODE", "replai")
    with pytest.raises(ValueError, match="'replai' is not one of off, readwrite, replay"):
        cache_mode()


def test_corrupted_file_is_reported_not_replaced(tmp_path):
    path = tmp_path / "c.sqlite"
    path.write_bytes(b"this is not a sqlite database at all" * 100)
    with pytest.raises(CacheCorruptError) as err:
        GenerationCache(path, "readwrite")
    assert str(path) in str(err.value)
    assert path.read_bytes().startswith(b"this is not")  # untouched


def test_foreign_sqlite_file_is_reported(tmp_path):
    path = tmp_path / "other.sqlite"
    sqlite3.connect(path).execute("CREATE TABLE x (y)").connection.commit()
    with pytest.raises(CacheCorruptError, match="no aya_lab cache table"):
        GenerationCache(path, "replay")


def test_langchain_basecache_interface(tmp_path):
    cache = GenerationCache(tmp_path / "c.sqlite", "readwrite")
    assert cache.lookup("p", "llm") is None
    cache.update("p", "llm", [Generation(text="out")])
    assert cache.lookup("p", "llm")[0].text == "out"
    cache.clear()
    assert cache.lookup("p", "llm") is None


def _writer(path, worker, n):
    cache = GenerationCache(path, "readwrite")
    for i in range(n):
        cache.put("fp", f"prompt {i}", "{}", 0, GenerationResult(f"w{worker}-{i}", 1, 1))
        cache.put("fp", f"own {worker} {i}", "{}", 0, GenerationResult("x", 1, 1))


def test_two_processes_write_at_once(tmp_path):
    path = tmp_path / "c.sqlite"
    GenerationCache(path, "readwrite").close()
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, w, 150)) for w in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0]
    cache = GenerationCache(path, "readwrite")
    assert len(cache) == 150 + 2 * 150  # shared keys once, own keys each
    assert cache.get("fp", "prompt 7", "{}", 0).text in {"w0-7", "w1-7"}


def _h(text):
    from langchain_core.messages import HumanMessage

    return HumanMessage(text)


def test_foreign_sqlite_file_is_not_written_to(tmp_path):
    path = tmp_path / "other.sqlite"
    sqlite3.connect(path).execute("CREATE TABLE x (y)").connection.commit()
    with pytest.raises(CacheCorruptError, match="no aya_lab cache table"):
        GenerationCache(path, "readwrite")
    tables = {r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master")}
    assert tables == {"x"}


def test_first_use_from_many_threads_gives_one_cache(tmp_path, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    from aya_lab.models.cache import get_default_cache

    monkeypatch.setenv("AYA_LAB_GENERATION_CACHE", str(tmp_path / "shared.sqlite"))
    with ThreadPoolExecutor(8) as pool:
        caches = list(pool.map(lambda _: get_default_cache(), range(16)))
    assert len({id(c) for c in caches}) == 1


def test_opening_one_new_file_from_many_threads_at_once(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    path = tmp_path / "race.sqlite"
    with ThreadPoolExecutor(8) as pool:
        caches = list(pool.map(lambda _: GenerationCache(path, "readwrite"), range(16)))
    for i, cache in enumerate(caches):
        cache.put("fp", f"p{i}", "{}", 0, GenerationResult("x", 1, 1))
    assert len(caches[0]) == 16
