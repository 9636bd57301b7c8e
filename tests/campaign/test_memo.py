"""campaign/memo.py: the bounded in-process memo in front of the shared cache."""

import threading

from campaign.memo import Memo


def test_memo_keeps_the_most_recently_used_entries():
    memo = Memo(2)
    memo.put("a", 1)
    memo.put("b", 2)
    assert memo.get("a") == 1  # "a" is now the most recent
    memo.put("c", 3)
    assert memo.get("b") is None and memo.get("a") == 1 and memo.get("c") == 3
    assert len(memo) == 2
    memo.clear()
    assert memo.get("a") is None and len(memo) == 0


def test_memo_stays_within_its_size_under_threads():
    memo = Memo(50)

    def work(n):
        for i in range(500):
            memo.put(f"{n}-{i}", i)
            memo.get(f"{n}-{i // 2}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(memo) == 50


def test_memo_keeps_within_its_total_size():
    memo = Memo(100, max_total=10)
    memo.put("a", "xxxx")
    memo.put("b", "yyyy")
    memo.put("c", "zzzz")  # 12 characters: "a" goes
    assert memo.get("a") is None and memo.get("b") == "yyyy" and memo.total == 8
    memo.put("b", "yy")  # replacing counts the new size only
    assert memo.total == 6
    memo.put("huge", "h" * 11)  # bigger than the whole memo: not kept, nothing dropped
    assert memo.get("huge") is None and memo.total == 6 and len(memo) == 2
