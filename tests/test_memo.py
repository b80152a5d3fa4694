"""LRUMemo: kept values by key, one at a time or a batch at once, bounded, least recently used dropped first."""

import threading

import pytest

from aya_lab.memo import LRUMemo


def test_get_computes_a_key_once_and_drops_the_least_recently_used():
    memo: LRUMemo[str, int] = LRUMemo(2)
    calls: list[str] = []

    def compute(key):
        return lambda: calls.append(key) or len(calls)

    assert memo.get("a", compute("a")) == 1
    assert memo.get("b", compute("b")) == 2
    assert memo.get("a", compute("a")) == 1  # kept, and now the most recent
    assert memo.get("c", compute("c")) == 3  # drops b, not a
    assert memo.keys() == ["a", "c"] and calls == ["a", "b", "c"]


def test_get_many_computes_only_the_missing_keys_in_one_call_each_once():
    memo: LRUMemo[str, str] = LRUMemo(10)
    batches: list[list[str]] = []

    def upper(missing: list[str]) -> list[str]:
        batches.append(missing)
        return [key.upper() for key in missing]

    assert memo.get_many(["a", "b", "a"], upper) == ["A", "B", "A"]
    assert memo.get_many(["c", "b", "c", "d"], upper) == ["C", "B", "C", "D"]
    assert batches == [["a", "b"], ["c", "d"]]
    assert memo.get_many([], upper) == [] and len(batches) == 2


def test_get_many_keeps_at_most_size_and_still_answers_a_batch_larger_than_that():
    memo: LRUMemo[int, int] = LRUMemo(3)
    assert memo.get_many(list(range(5)), lambda missing: [k * 10 for k in missing]) == [0, 10, 20, 30, 40]
    assert memo.keys() == [2, 3, 4]
    memo.get_many([2], lambda missing: pytest.fail(f"{missing} were kept"))
    assert memo.keys() == [3, 4, 2]
    memo.clear()
    assert memo.keys() == []


def test_get_many_refuses_a_compute_that_returns_the_wrong_number_of_values_and_keeps_nothing():
    memo: LRUMemo[str, int] = LRUMemo(4)
    with pytest.raises(ValueError, match="1 values for 2 keys"):
        memo.get_many(["a", "b"], lambda missing: [1])
    assert memo.keys() == []


def test_threads_filling_one_memo_agree_and_stay_within_its_size():
    memo: LRUMemo[int, int] = LRUMemo(50)
    errors: list[BaseException] = []

    def work(offset: int) -> None:
        try:
            for start in range(0, 200, 7):
                keys = [(start + offset + i) % 120 for i in range(10)]
                assert memo.get_many(keys, lambda missing: [k * k for k in missing]) == [k * k for k in keys]
        except BaseException as error:  # noqa: BLE001 - reported on the main thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(memo.keys()) <= 50
