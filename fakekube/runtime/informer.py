"""Informers: a watched, indexed, read-only cache of one resource (client-go's SharedInformer).

The cache holds the server's own (frozen) objects, shared by every reader: never mutate what an
informer returns; copy it first. Handlers run inside watch deliveries (scheduled loop events).
A ``410 Gone`` on the stream makes the informer relist and diff, as a reflector does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube._core.clock import SimTime
from fakekube._core.multimap import discard
from fakekube.apiserver.server import Watch, WatchEvent
from fakekube.runtime._shared_client import SharedClient

__all__ = ["Handler", "Informer", "Key", "key_of"]

Key = tuple[str, str]
Handler = Callable[[str, dict[str, Any], dict[str, Any] | None], None]
"""``handler(event_type, obj, old)``: ADDED / MODIFIED / DELETED, with the previous cached state."""


def key_of(obj: dict[str, Any]) -> Key:
    meta = obj["metadata"]
    return (meta.get("namespace") or "", meta["name"])


class Informer:
    """A cache of ``kind`` kept current by a watch, with named secondary indexes."""

    def __init__(self, client: SharedClient, kind: str, *, namespace: str | None = None,
                 label_selector: str | None = None, delay: SimTime = 0) -> None:
        self.client = client
        self.kind = kind
        self.namespace = namespace
        self.label_selector = label_selector
        self.delay = delay
        self.cache: dict[Key, dict[str, Any]] = {}
        self._indexers: dict[str, Callable[[dict[str, Any]], list[str]]] = {}
        self._uses: dict[str, tuple[tuple[str, ...], ...] | None] = {}
        self._indexes: dict[str, dict[str, dict[Key, None]]] = {}
        self._values: dict[Key, dict[str, list[str]]] = {}  # what each indexer gave each cached object
        self._handlers: list[Handler] = []
        self._watch: Watch | None = None
        self.drop: Callable[[WatchEvent], bool] | None = None

    # ------------------------------------------------------------------ setup
    def add_index(self, name: str, fn: Callable[[dict[str, Any]], list[str]], *,
                  uses: tuple[str, ...] | None = None) -> None:
        """Index objects by ``fn(obj)``. ``uses`` names the only fields ``fn`` reads (dotted paths,
        e.g. ``("metadata.labels", "spec.nodeName")``); an update that leaves them equal keeps the
        previous values without calling ``fn``. Without ``uses``, ``fn`` runs on every change."""
        self._indexers[name] = fn
        self._uses[name] = None if uses is None else tuple(tuple(path.split(".")) for path in uses)
        index = self._indexes[name] = {}
        for key, obj in self.cache.items():
            values = self._values.setdefault(key, {})[name] = list(fn(obj))
            for value in values:
                index.setdefault(value, {})[key] = None

    def add_handler(self, handler: Handler) -> None:
        self._handlers.append(handler)

    def start(self) -> None:
        """List-and-watch: current objects arrive as ADDED deliveries, then changes."""
        if self._watch is not None:
            return
        self._watch = self.client.watch(self.kind, self._on_event, namespace=self.namespace,
                                        label_selector=self.label_selector, delay=self.delay,
                                        drop=self._maybe_drop)
        # Also relist under a 410 ERROR event (watch from an expired resourceVersion).

    def stop(self) -> None:
        if self._watch is not None:
            self._watch.stop()
            self._watch = None

    def restart(self) -> None:
        """Drop the cache and relist (a controller restart); handlers see ADDED for what exists."""
        self.stop()
        for key in list(self.cache):
            self._apply("DELETED", self.cache[key], notify=False)
        self.start()

    def _maybe_drop(self, event: WatchEvent) -> bool:
        return self.drop is not None and self.drop(event)

    # ------------------------------------------------------------------ events
    def _on_event(self, event: WatchEvent) -> None:
        if event.type == "ERROR":
            self.restart()
            return
        if event.type == "BOOKMARK":
            return
        self._apply(event.type, event.object)

    def _apply(self, kind: str, obj: dict[str, Any], *, notify: bool = True) -> None:
        key = key_of(obj)
        old = self.cache.get(key)
        if kind == "DELETED":
            self.cache.pop(key, None)
            self._reindex(key, self._values.pop(key, {}), {})
        else:
            self.cache[key] = obj
            if self._indexers:
                previous = self._values.get(key, {})
                current = {name: (previous[name] if old is not None and name in previous
                                  and self._unchanged(self._uses[name], old, obj) else list(fn(obj)))
                           for name, fn in self._indexers.items()}
                self._values[key] = current
                self._reindex(key, previous, current)
            if kind == "ADDED" and old is not None:
                kind = "MODIFIED"
        if notify:
            for handler in self._handlers:
                handler(kind, obj, old)

    @staticmethod
    def _unchanged(uses: tuple[tuple[str, ...], ...] | None, old: dict[str, Any], new: dict[str, Any]) -> bool:
        if uses is None:
            return False
        for path in uses:
            a: Any = old
            b: Any = new
            for part in path:
                a = a.get(part) if isinstance(a, dict) else None
                b = b.get(part) if isinstance(b, dict) else None
            if a is not b and a != b:
                return False
        return True

    def _reindex(self, key: Key, previous: dict[str, list[str]], current: dict[str, list[str]]) -> None:
        for name, index in self._indexes.items():
            before, after = previous.get(name, ()), current.get(name, ())
            if before == after:
                continue
            for value in before:
                discard(index, value, key)
            for value in after:
                index.setdefault(value, {})[key] = None

    # ------------------------------------------------------------------ reads
    def get(self, name: str, namespace: str = "") -> dict[str, Any] | None:
        return self.cache.get((namespace, name))

    def list(self, namespace: str | None = None) -> list[dict[str, Any]]:
        return [obj for key, obj in sorted(self.cache.items()) if namespace is None or key[0] == namespace]

    def by_index(self, index: str, value: str) -> list[dict[str, Any]]:
        """Objects whose indexer returned ``value``, in (namespace, name) order."""
        bucket = self._indexes[index].get(value)
        if not bucket:
            return []
        return [self.cache[k] for k in sorted(bucket)]

    def count_index(self, index: str, value: str) -> int:
        return len(self._indexes[index].get(value) or ())

    def __len__(self) -> int:
        return len(self.cache)
