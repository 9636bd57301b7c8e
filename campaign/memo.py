"""A small bounded in-process memo for values that never change under their key.

For pages and pictures cached under keys that already name everything they show (a campaign
row's state version, the viewer's standing, the query), an entry can never go stale: it is only
ever replaced by one under a new key. Such values can be kept in the server process too, in
front of the shared cache, saving its round trip on every repeat. Bounded by entries and by
total size when ``max_total`` is given (``len`` of each value: characters of a page); least recently used
entries go first. Safe to share between threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict


class Memo:
    def __init__(self, size: int, *, max_total: int | None = None):
        self.size = size
        self.max_total = max_total
        self.total = 0
        self._entries: OrderedDict[str, object] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str):
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: str, value) -> None:
        weight = len(value) if self.max_total is not None else 0
        if self.max_total is not None and weight > self.max_total:
            return  # bigger than the whole memo: not kept
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.total -= self._weight(old)
            self._entries[key] = value
            self.total += weight
            while len(self._entries) > self.size or (self.max_total is not None and self.total > self.max_total):
                _, dropped = self._entries.popitem(last=False)
                self.total -= self._weight(dropped)

    def _weight(self, value) -> int:
        return len(value) if self.max_total is not None else 0

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.total = 0

    def __len__(self) -> int:
        return len(self._entries)
