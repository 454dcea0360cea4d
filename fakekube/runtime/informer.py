"""Informers: a watched, indexed, read-only cache of one resource (client-go's SharedInformer).

The cache holds the server's own (frozen) objects, shared by every reader: never mutate what an
informer returns; copy it first. Handlers run inside watch deliveries (scheduled loop events).

When its watch breaks (a ``410 Gone`` ERROR event on the stream, or a broken-watch fault) the
informer does what client-go's reflector does: :meth:`Informer.relist` lists again, hands every
listed object to the handlers (ADDED, or MODIFIED over the cached state), hands the cached
objects the list no longer holds to them as DELETED, and watches on from the list's
resourceVersion. :meth:`Informer.restart` is a controller restart instead: the cache is dropped
silently and refilled. ``intercept``, :meth:`Informer.hold` and :meth:`Informer.release` are the
hooks of the delivery faults of ``fakekube.faults``.

An index that declares the fields it reads (``add_index(..., uses=...)``) is kept only when
those fields change, so its function sees a read-only projection holding just those fields:
reading any other raises ``UsageError`` instead of quietly going stale.
"""

from __future__ import annotations

import builtins
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

from fakekube._core.clock import SECOND, SimTime
from fakekube._core.multimap import discard
from fakekube.apiserver.server import WatchEvent
from fakekube.errors import ApiError, UsageError
from fakekube.runtime._shared_client import SharedClient
from fakekube.runtime.watch_handle import WatchHandle

__all__ = ["Handler", "Indexer", "Informer", "Key", "key_of"]

Key = tuple[str, str]
RELIST_RETRY: SimTime = SECOND
"""How long the informer waits to list again after a failed list."""
Handler = Callable[[str, dict[str, Any], dict[str, Any] | None], None]
"""``handler(event_type, obj, old)``: ADDED / MODIFIED / DELETED, with the previous cached state."""
Indexer = Callable[[Mapping[str, Any]], list[str]]
"""``fn(obj)``: the index values of ``obj`` (the whole object, or its declared fields only)."""
Fields = dict[str, "Fields | None"]
"""Declared field paths as a tree: ``None`` marks a field declared whole."""


def key_of(obj: dict[str, Any]) -> Key:
    meta = obj["metadata"]
    return (meta.get("namespace") or "", meta["name"])


def _fields(paths: tuple[tuple[str, ...], ...]) -> Fields:
    tree: Fields = {}
    for path in sorted(paths, key=len):  # a field declared whole covers every path below it
        node = tree
        for part in path[:-1]:
            below = node.setdefault(part, {})
            if below is None:  # a field declared whole above
                break
            node = below
        else:
            node[path[-1]] = None
    return tree


_PathTree = dict[str, tuple[int, "_PathTree"]]
"""Declared paths by segment: each segment's bit (a path ending there; 0 if none) and what is below."""
_Level = tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int, "_Level"], ...]]
"""One level of a :data:`_PathTree` as :func:`_changed_under` reads it: the fields where paths end
and nothing is declared below (name, bit), then the fields with paths below (name, bit, level)."""


_NO_FIELDS: Mapping[str, Any] = MappingProxyType({})
_CHANGES = frozenset({"ADDED", "MODIFIED", "DELETED"})


def _level(tree: _PathTree) -> _Level:
    return (tuple((part, bit) for part, (bit, below) in tree.items() if not below),
            tuple((part, bit, _level(below)) for part, (bit, below) in tree.items() if below))


def _changed_under(level: _Level, old: Mapping[str, Any], new: Mapping[str, Any]) -> int:
    """The bits of the paths in ``level`` whose values differ between ``old`` and ``new`` (a field
    of a non-dict is missing; a subtree both share is unchanged all the way down: it is frozen)."""
    leaves, branches = level
    changed = 0
    for part, bit in leaves:
        a = old.get(part)
        b = new.get(part)
        if a is not b and a != b:
            changed |= bit
    for part, bit, below in branches:
        a = old.get(part)
        b = new.get(part)
        if a is b:
            continue
        if bit and a != b:
            changed |= bit
        changed |= _changed_under(below, a if isinstance(a, dict) else _NO_FIELDS,
                                  b if isinstance(b, dict) else _NO_FIELDS)
    return changed


class _Projection(Mapping[str, Any]):
    """The fields an index declared, read-only. Reading an undeclared one raises ``UsageError``;
    a declared field the object lacks is missing, as in the object. (``get``, ``len`` and truth
    are spelled out: index functions call them on every recomputation.)"""

    __slots__ = ("_index", "_obj", "_path", "_tree")

    def __init__(self, obj: dict[str, Any], tree: Fields, index: str, path: tuple[str, ...] = ()) -> None:
        self._obj, self._tree, self._index, self._path = obj, tree, index, path

    def __getitem__(self, key: str) -> Any:
        if key not in self._tree:
            raise self._undeclared(key)
        return self._project(key, self._obj[key])

    def get(self, key: str, default: Any = None) -> Any:
        if key not in self._tree:
            raise self._undeclared(key)
        obj = self._obj
        return self._project(key, obj[key]) if key in obj else default

    def _project(self, key: str, value: Any) -> Any:
        """What reading the declared field ``key`` (whose value is ``value``) gives."""
        sub = self._tree[key]
        if sub is None or not isinstance(value, dict):
            return value
        return _Projection(value, sub, self._index, (*self._path, key))

    def _undeclared(self, key: str) -> UsageError:
        field = ".".join((*self._path, key))
        return UsageError(f"the index {self._index!r} read {field}, which its uses= does not declare; "
                          f"add {field!r} to uses= (or drop uses= to recompute the index on every change)")

    def __iter__(self) -> Iterator[str]:
        return (key for key in self._tree if key in self._obj)

    def __len__(self) -> int:
        return len(self._tree.keys() & self._obj.keys())

    def __bool__(self) -> bool:
        return not self._tree.keys().isdisjoint(self._obj.keys())


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
        self._indexers: dict[str, Indexer] = {}
        self._paths: dict[tuple[str, ...], int] = {}  # every declared field path -> its bit
        self._path_tree: _PathTree = {}  # the same paths by segment, so a shared prefix is read once
        self._levels: _Level = _level({})  # the tree as compared
        self._masks: dict[str, int | None] = {}  # each index's declared paths as bits (None: no uses)
        self._whole_indexes = 0  # indexes without uses= (recomputed on every change)
        self._fields: dict[str, Fields] = {}
        self._indexes: dict[str, dict[str, dict[Key, None]]] = {}
        self._values: dict[Key, dict[str, list[str]]] = {}  # what each indexer gave each cached object
        self._handlers: list[Handler] = []
        self._watch: WatchHandle | None = None
        self.intercept: Callable[[WatchEvent], bool] | None = None
        """Sees each change event the watch delivers before it is applied; True: a fault took it."""
        self._held: deque[tuple[WatchEvent, bool]] | None = None  # (event, already seen by intercept)

    # ------------------------------------------------------------------ setup
    def add_index(self, name: str, fn: Indexer, *, uses: tuple[str, ...] | None = None) -> None:
        """Index objects by ``fn(obj)``. ``uses`` names the only fields ``fn`` reads (dotted paths,
        e.g. ``("metadata.labels", "spec.nodeName")``); an update that leaves them equal keeps the
        previous values without calling ``fn``, and ``fn`` gets a read-only projection of the
        object holding only those fields (reading another raises ``UsageError``). Without
        ``uses``, ``fn`` gets the whole object and runs on every change."""
        self._indexers[name] = fn
        if uses is None:
            self._masks[name] = None
            self._fields.pop(name, None)
        else:
            paths = tuple(tuple(path.split(".")) for path in uses)
            self._masks[name] = sum({self._path_bit(path) for path in paths})
            self._fields[name] = _fields(paths)
        self._whole_indexes = sum(mask is None for mask in self._masks.values())
        index = self._indexes[name] = {}
        for key, obj in self.cache.items():
            values = self._values.setdefault(key, {})[name] = self._index_values(name, fn, obj)
            for value in values:
                index.setdefault(value, {})[key] = None

    def _path_bit(self, path: tuple[str, ...]) -> int:
        """The bit standing for ``path`` in the masks (each path declared by any index is compared
        once per update, however many indexes declare it)."""
        bit = self._paths.get(path)
        if bit is None:
            bit = self._paths[path] = 1 << len(self._paths)
            node = self._path_tree
            for depth, part in enumerate(path, 1):
                bits, below = node.get(part, (0, {}))
                node[part] = (bits | bit if depth == len(path) else bits, below)
                node = below
            self._levels = _level(self._path_tree)
        return bit

    def add_handler(self, handler: Handler) -> None:
        self._handlers.append(handler)

    def start(self) -> None:
        """List-and-watch: current objects arrive as ADDED deliveries, then changes."""
        if self._watch is not None:
            return
        self._watch = self.client.watch(self.kind, self._on_event, namespace=self.namespace,
                                        label_selector=self.label_selector, delay=self.delay)

    def stop(self) -> None:
        if self._watch is not None:
            self._watch.stop()
            self._watch = None

    def restart(self) -> None:
        """Drop the cache and relist (a controller restart); handlers see ADDED for what exists."""
        self.stop()
        self._held = None
        for key in list(self.cache):
            self._apply("DELETED", self.cache[key], notify=False)
        self.start()

    def relist(self) -> None:
        """The watch broke: list again and diff against the cache (handlers see ADDED or MODIFIED
        for each listed object and DELETED for each cached one that is gone), then watch from
        the list's resourceVersion. Events still in flight on the broken stream are lost; the
        list has their effect. A list that fails is retried a second later (as the reflector's
        backoff does)."""
        self.stop()
        self._held = None
        try:
            listed = self.client.list_object(self.kind, self.namespace, label_selector=self.label_selector)
        except ApiError:
            self.client.server.loop.call_later(RELIST_RETRY, self._retry_relist, label=f"relist {self.kind}")
            return
        seen: set[Key] = set()
        for obj in listed["items"]:
            seen.add(key_of(obj))
            self._apply("ADDED", obj)
        for key in [k for k in self.cache if k not in seen]:
            self._apply("DELETED", self.cache[key])
        self._watch = self.client.watch(self.kind, self._on_event, namespace=self.namespace,
                                        resource_version=listed["metadata"]["resourceVersion"],
                                        label_selector=self.label_selector, delay=self.delay)

    def _retry_relist(self) -> None:
        if self._watch is None:
            self.relist()

    def hold(self, first: WatchEvent | None = None) -> None:
        """Deliveries wait from now on (``first``, which ``intercept`` has seen, and then what
        comes), in order, until :meth:`release`: a slow stream."""
        if self._held is None:
            self._held = deque()
        if first is not None:
            self._held.append((first, True))

    def release(self) -> None:
        """Deliver the held events in order, then deliver as events come again."""
        held, self._held = self._held, None
        watch = self._watch
        while held and self._watch is watch:  # a relist on the way makes the rest stale
            if self._held is not None:  # held again on the way: the rest waits behind, in order
                self._held.extend(held)
                return
            self._deliver(*held.popleft())

    # ------------------------------------------------------------------ events
    def _on_event(self, event: WatchEvent) -> None:
        if self._held is not None:
            self._held.append((event, False))
        elif self.intercept is None and event.type in _CHANGES:  # _deliver's path for a plain change
            self._apply(event.type, event.object)
        else:
            self._deliver(event)

    def _deliver(self, event: WatchEvent, screened: bool = False) -> None:
        if event.type == "ERROR":  # 410 Gone: the stream ended
            self.relist()
            return
        if event.type == "BOOKMARK":
            return
        if not screened and self.intercept is not None and self.intercept(event):
            return
        self._apply(event.type, event.object)

    def _apply(self, kind: str, obj: dict[str, Any], *, notify: bool = True) -> None:
        meta = obj["metadata"]
        key = (meta.get("namespace") or "", meta["name"])  # key_of, inline: once per delivery
        cache = self.cache
        old = cache.get(key)
        if kind == "DELETED":
            cache.pop(key, None)
            self._reindex(key, self._values.pop(key, {}), {})
        else:
            cache[key] = obj
            if self._indexers:
                previous = self._values.get(key)
                if old is None or previous is None:
                    current = {name: self._index_values(name, fn, obj) for name, fn in self._indexers.items()}
                    self._reindex(key, previous or {}, current)
                    self._values[key] = current
                else:
                    changed = _changed_under(self._levels, old, obj)
                    if changed or self._whole_indexes:
                        self._update_indexes(key, previous, obj, changed)
            if kind == "ADDED" and old is not None:
                kind = "MODIFIED"
        if notify:
            for handler in self._handlers:
                handler(kind, obj, old)

    def _update_indexes(self, key: Key, previous: dict[str, list[str]], obj: dict[str, Any], changed: int) -> None:
        """A cached object changed: recompute the indexes whose declared fields changed (the bits
        ``changed``; every index without ``uses``) and move the key between buckets where the
        values differ. ``previous`` (this key's values) is updated in place."""
        for name, fn in self._indexers.items():
            before = previous.get(name)
            mask = self._masks[name]
            if before is not None and mask is not None and not mask & changed:
                continue
            after = self._index_values(name, fn, obj)
            previous[name] = after
            if before == after:
                continue
            index = self._indexes[name]
            for value in before or ():
                discard(index, value, key)
            for value in after:
                index.setdefault(value, {})[key] = None

    def _index_values(self, name: str, fn: Indexer, obj: dict[str, Any]) -> list[str]:
        fields = self._fields.get(name)
        return list(fn(obj if fields is None else _Projection(obj, fields, name)))

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

    def list(self, namespace: str | None = None) -> builtins.list[dict[str, Any]]:
        return [obj for key, obj in sorted(self.cache.items()) if namespace is None or key[0] == namespace]

    def by_index(self, index: str, value: str) -> builtins.list[dict[str, Any]]:
        """Objects whose indexer returned ``value``, in (namespace, name) order.

        Safe to call from another thread than the one delivering events (a webhook server's
        handler): the bucket is copied in one step and an object removed meanwhile is skipped."""
        bucket = self._indexes[index].get(value)
        if not bucket:
            return []
        cache = self.cache
        return [obj for k in sorted(bucket) if (obj := cache.get(k)) is not None]

    def count_index(self, index: str, value: str) -> int:
        return len(self._indexes[index].get(value) or ())

    def __len__(self) -> int:
        return len(self.cache)
