"""A replica's bounded cache of file bytes read from the store.

Stored files are immutable and named by their digest, so a cached copy never goes
stale; the cache only bounds memory. One cache per ``Database`` (so per replica,
shared by every tenant it serves), least recently used first out, keyed by
``(tenant, digest)`` so a tenant never reads bytes through another's key.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

__all__ = ["DEFAULT_CACHE_BYTES", "BlobCache"]

DEFAULT_CACHE_BYTES = 64 * 1024 * 1024


class BlobCache:
    """At most ``max_bytes`` of file bytes; a file over an eighth of that is not kept."""

    def __init__(self, max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.max_bytes = max(0, int(max_bytes))
        self._items: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    @property
    def size(self) -> int:
        """Bytes held now."""
        return self._size

    def get(self, key: tuple[str, str]) -> bytes | None:
        with self._lock:
            data = self._items.get(key)
            if data is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return data

    def __contains__(self, key: tuple[str, str]) -> bool:
        return key in self._items

    def put(self, key: tuple[str, str], data: bytes) -> None:
        if len(data) > self.max_bytes // 8:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._size -= len(old)
            self._items[key] = data
            self._size += len(data)
            while self._size > self.max_bytes and self._items:
                _key, dropped = self._items.popitem(last=False)
                self._size -= len(dropped)

    def drop(self, key: tuple[str, str]) -> None:
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._size -= len(old)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._size = 0
