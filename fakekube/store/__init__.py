"""The versioned object store: what etcd is to a real API server.

- One store-wide ``resourceVersion`` counter, strictly increasing across all kinds.
- Objects are kept per resource in a ``SortedDict`` keyed by ``(namespace, name)``, so lists
  come back in etcd key order and a namespace is a range scan.
- Label and owner-UID indexes make a ``k=v`` selector list and "the dependents of X"
  proportional to the answer, not to the store. A label key is indexed from the first list
  that selects on it (one pass over that resource's objects), then kept up to date: writes
  do not pay for the many label keys nobody selects on.
- A bounded per-resource history serves watches from a resourceVersion; anything older than
  the window is ``410 Gone`` (``too old resource version``).

The store never hands out its own dicts for mutation: stored objects are treated as frozen,
and the API server copies on the way in and out.
"""

from __future__ import annotations

import builtins
import json
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from sortedcontainers import SortedDict

from fakekube._core.multimap import discard
from fakekube.errors import Gone

__all__ = ["Key", "Store", "StoredEvent"]

Key = tuple[str, str]
"""``(namespace, name)``; the namespace is ``""`` for cluster-scoped objects."""

ADDED, MODIFIED, DELETED = "ADDED", "MODIFIED", "DELETED"


class StoredEvent(NamedTuple):
    """One change, as it sits in the watch history (immutable; a tuple, cheap to make per write)."""

    type: str
    resource: str
    rv: int
    obj: dict[str, Any]
    old: dict[str, Any] | None = None


def _canonical(obj: dict[str, Any]) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=repr)


def _key_of(obj: dict[str, Any]) -> Key:
    meta = obj["metadata"]
    return (meta.get("namespace") or "", meta["name"])


class _Table:
    """The objects of one resource, with their indexes and history."""

    __slots__ = ("by_label", "history", "indexed_keys", "objects", "oldest_rv")

    def __init__(self, history_limit: int) -> None:
        self.objects: SortedDict[Key, dict[str, Any]] = SortedDict()
        #: ``(label key, value)`` -> the keys of the objects carrying it, for the label keys in
        #: :attr:`indexed_keys` only (those some list has selected on).
        self.by_label: dict[tuple[str, str], dict[Key, None]] = {}
        self.indexed_keys: dict[str, None] = {}
        self.history: deque[StoredEvent] = deque(maxlen=history_limit)
        self.oldest_rv = 0

    def index(self, key: Key, obj: dict[str, Any]) -> None:
        if not self.indexed_keys:
            return
        labels = obj["metadata"].get("labels")
        if not labels:
            return
        by_label = self.by_label
        for label in self.indexed_keys:
            if label in labels:
                pair = (label, labels[label])
                bucket = by_label.get(pair)
                if bucket is None:
                    by_label[pair] = {key: None}
                else:
                    bucket[key] = None

    def unindex(self, key: Key, obj: dict[str, Any]) -> None:
        if not self.indexed_keys:
            return
        labels = obj["metadata"].get("labels")
        if not labels:
            return
        for label in self.indexed_keys:
            if label in labels:
                discard(self.by_label, (label, labels[label]), key)

    def index_label(self, label: str) -> None:
        """Index the label key ``label`` from now on (a pass over the objects the first time)."""
        if label in self.indexed_keys:
            return
        self.indexed_keys[label] = None
        by_label = self.by_label
        for key, obj in self.objects.items():
            labels = obj["metadata"].get("labels")
            if labels and label in labels:
                by_label.setdefault((label, labels[label]), {})[key] = None


class Store:
    """In-memory, versioned, indexed storage for wire-form objects."""

    def __init__(self, *, history_limit: int = 10_000, check_frozen: bool = False) -> None:
        self.rv = 0
        # check_frozen: remember each stored object's JSON and fail loudly when a later write finds
        # that someone mutated it in place (stored objects are shared, never copied, by readers).
        self._snapshots: dict[tuple[str, Key], str] | None = {} if check_frozen else None
        self._history_limit = history_limit
        self._tables: dict[str, _Table] = {}
        self._by_owner: dict[str, dict[tuple[str, str, str], None]] = {}
        self._listeners: list[tuple[str | None, Callable[[StoredEvent], None]]] = []
        # The listeners each resource's changes reach, in subscription order; rebuilt on subscribe.
        self._listeners_of: dict[str, list[Callable[[StoredEvent], None]]] = {}

    # ------------------------------------------------------------------ reads
    def _table(self, resource: str) -> _Table:
        table = self._tables.get(resource)
        if table is None:
            table = self._tables[resource] = _Table(self._history_limit)
        return table

    def get(self, resource: str, namespace: str, name: str) -> dict[str, Any] | None:
        table = self._tables.get(resource)
        return None if table is None else table.objects.get((namespace, name))

    def count(self, resource: str) -> int:
        table = self._tables.get(resource)
        return 0 if table is None else len(table.objects)

    def list(self, resource: str, namespace: str | None = None, *,
             label_terms: Iterable[tuple[str, str]] = (),
             label_groups: Iterable[Iterable[tuple[str, str]]] = (),
             predicate: Callable[[dict[str, Any]], bool] | None = None) -> builtins.list[dict[str, Any]]:
        """Objects of ``resource`` in key order.

        ``label_terms`` are ``(key, value)`` pairs every result must carry; ``label_groups`` are
        groups of pairs of which every result carries at least one (``k in (a, b)``). The index
        narrows the candidates to the smallest such set; ``predicate`` filters what remains.
        """
        table = self._tables.get(resource)
        if table is None:
            return []
        groups = [(term,) for term in label_terms] + [tuple(group) for group in label_groups]
        candidates = self._candidates(table, namespace, groups)
        if predicate is None:
            return list(candidates)
        return [obj for obj in candidates if predicate(obj)]

    def _candidates(self, table: _Table, namespace: str | None,
                    groups: builtins.list[tuple[tuple[str, str], ...]]) -> Iterator[dict[str, Any]]:
        if groups:
            for group in groups:
                for label, _ in group:
                    table.index_label(label)
            # The group whose buckets hold the fewest objects narrows the candidates.
            sized = []
            for group in groups:
                buckets = [b for b in (table.by_label.get(pair) for pair in group) if b]
                sized.append((sum(map(len, buckets)), buckets))
            best = min(sized, key=lambda s: s[0])[1]
            if not best:
                return iter(())
            found = best[0] if len(best) == 1 else set().union(*best)
            objects = table.objects
            return (objects[k] for k in sorted(k for k in found if namespace is None or k[0] == namespace))
        if namespace is None:
            return iter(table.objects.values())
        in_namespace = table.objects.irange((namespace, ""), (namespace + "\x00", ""), inclusive=(True, False))
        objects = table.objects
        return (objects[k] for k in in_namespace)

    def dependents(self, owner_uid: str) -> builtins.list[tuple[str, str, str]]:
        """``(resource, namespace, name)`` of every object with an ownerReference to ``owner_uid``."""
        return list(self._by_owner.get(owner_uid, ()))

    def resources(self) -> builtins.list[str]:
        return sorted(self._tables)

    # ------------------------------------------------------------------ writes
    def next_rv(self) -> int:
        self.rv += 1
        return self.rv

    def put(self, resource: str, obj: dict[str, Any], *, event: str) -> StoredEvent:
        """Store ``obj`` (whose metadata.resourceVersion the caller set from :meth:`next_rv`)."""
        table = self._tables.get(resource) or self._table(resource)
        meta = obj["metadata"]
        key = (meta.get("namespace") or "", meta["name"])
        old = table.objects.get(key)
        if self._snapshots is not None:
            self._check_snapshot(resource, key, old)
            self._snapshots[(resource, key)] = _canonical(obj)
        if old is None:
            relabel = reown = True
        else:  # most writes keep labels and owners (often the very same values): re-index only what changed
            old_meta = old["metadata"]
            labels, old_labels = meta.get("labels"), old_meta.get("labels")
            relabel = labels is not old_labels and labels != old_labels
            owners, old_owners = meta.get("ownerReferences"), old_meta.get("ownerReferences")
            reown = owners is not old_owners and owners != old_owners
            if relabel:
                table.unindex(key, old)
            if reown:
                self._unindex_owners(resource, key, old)
        if old is None:
            table.objects[key] = obj
        else:  # the key is in the sorted key list already: only the mapping changes
            dict.__setitem__(table.objects, key, obj)  # type: ignore[index]  # a dict at run time (stubs: MutableMapping)
        if relabel:
            table.index(key, obj)
        if reown:
            self._index_owners(resource, key, obj)
        return self._record(table, StoredEvent(event, resource, int(obj["metadata"]["resourceVersion"]), obj, old))

    def remove(self, resource: str, namespace: str, name: str, *, rv: int) -> StoredEvent:
        """Remove an object; the DELETED event carries the deletion revision ``rv``."""
        table = self._table(resource)
        key = (namespace, name)
        old = table.objects.pop(key)
        if self._snapshots is not None:
            self._check_snapshot(resource, key, old)
            del self._snapshots[(resource, key)]
        table.unindex(key, old)
        self._unindex_owners(resource, key, old)
        gone = dict(old)
        gone["metadata"] = dict(old["metadata"], resourceVersion=str(rv))
        return self._record(table, StoredEvent(DELETED, resource, rv, gone, old))

    def _check_snapshot(self, resource: str, key: Key, current: dict[str, Any] | None) -> None:
        assert self._snapshots is not None
        if current is not None and _canonical(current) != self._snapshots[(resource, key)]:
            raise AssertionError(
                f"stored {resource} {key[0] + '/' if key[0] else ''}{key[1]} was mutated in place after it "
                f"was written (stored objects are shared and frozen: copy before editing)\n"
                f"  written: {self._snapshots[(resource, key)]}\n  now:     {_canonical(current)}")

    def verify_frozen(self) -> None:
        """With ``check_frozen``: fail if any stored object was mutated in place since it was written."""
        if self._snapshots is None:
            return
        for name, table in self._tables.items():
            for key, obj in table.objects.items():
                self._check_snapshot(name, key, obj)

    def _record(self, table: _Table, event: StoredEvent) -> StoredEvent:
        if len(table.history) == table.history.maxlen:
            table.oldest_rv = table.history[0].rv
        table.history.append(event)
        listeners = self._listeners_of.get(event.resource)
        if listeners is None:
            listeners = self._listeners_of[event.resource] = [
                listener for resource, listener in self._listeners if resource in (None, event.resource)]
        for listener in listeners:
            listener(event)
        return event

    def _index_owners(self, resource: str, key: Key, obj: dict[str, Any]) -> None:
        for ref in obj["metadata"].get("ownerReferences") or ():
            self._by_owner.setdefault(ref.get("uid", ""), {})[(resource, *key)] = None

    def _unindex_owners(self, resource: str, key: Key, obj: dict[str, Any]) -> None:
        for ref in obj["metadata"].get("ownerReferences") or ():
            discard(self._by_owner, ref.get("uid", ""), (resource, *key))

    # ------------------------------------------------------------------ watch support
    def subscribe(self, listener: Callable[[StoredEvent], None], *, resource: str | None = None) -> None:
        """Call ``listener`` synchronously for every stored change (the API server's watch hub), or
        for every change of ``resource`` only."""
        self._listeners.append((resource, listener))
        self._listeners_of.clear()

    def history_since(self, resource: str, rv: int) -> builtins.list[StoredEvent]:
        """Every change of ``resource`` with a revision greater than ``rv``, oldest first.

        Raises ``Gone`` when ``rv`` is older than the retained window, as etcd compaction does.
        """
        table = self._table(resource)
        if rv < table.oldest_rv:
            raise Gone(f"too old resource version: {rv} ({table.oldest_rv})")
        out: builtins.list[StoredEvent] = []
        for event in reversed(table.history):
            if event.rv <= rv:
                break
            out.append(event)
        out.reverse()
        return out

    def compact(self, resource: str | None = None) -> None:
        """Forget the history (as etcd compaction does); later watches from old RVs get 410."""
        for name, table in self._tables.items():
            if resource is None or name == resource:
                table.history.clear()
                table.oldest_rv = self.rv
