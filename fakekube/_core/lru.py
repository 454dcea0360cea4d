"""A least-recently-used cache of a fixed size (``k8s.io/utils/lru``), for the simulated
components that model one (the event correlator's caches, the garbage collector's absent owners)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

__all__ = ["Lru"]

K = TypeVar("K")
V = TypeVar("V")


class Lru(Generic[K, V]):
    """``k8s.io/utils/lru``: ``get`` and ``add`` make an entry the most recent; the least recent
    entry is evicted beyond ``size``."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def add(self, key: K, value: V) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        if len(self._entries) > self.size:
            self._entries.popitem(last=False)
