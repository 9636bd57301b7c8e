"""A small bounded in-process memo for values that never change under their key.

For pages and pictures cached under keys that already name everything they show (a campaign
row's state version, the viewer's standing, the query), an entry can never go stale: it is only
ever replaced by one under a new key. Such values can be kept in the server process too, in
front of the shared cache, saving its round trip on every repeat. Least recently used entries
go first; safe to share between threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict


class Memo:
    def __init__(self, size: int):
        self.size = size
        self._entries: OrderedDict[str, object] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str):
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: str, value) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
