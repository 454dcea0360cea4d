"""The API server's reads: get, list and watch (with label and field selectors), and an owner's
dependents for the garbage collector.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from fakekube._core.clock import SimTime
from fakekube._core.jsonutil import deep_copy
from fakekube.apiserver.resources import ResourceType
from fakekube.apiserver.server_core import ServerCore, Watch, WatchEvent
from fakekube.errors import BadRequest, Gone, NotFound
from fakekube.machinery import field_selectors as fsel
from fakekube.machinery import selectors as sel
from fakekube.store import ADDED

__all__ = ["ReadVerbs"]

BOOKMARK = "BOOKMARK"


class ReadVerbs(ServerCore):
    """The read verbs of :class:`~fakekube.apiserver.server.ApiServer`."""

    # ================================================================== reads
    def get(self, resource: str | ResourceType, name: str, namespace: str | None = None, *,
            copy: bool = True) -> dict[str, Any]:
        rt = self.resource(resource)
        ns = self._ns(rt, namespace)
        self._react("get", rt, ns, name, None)
        obj = self.store.get(rt.key, ns, name)
        if obj is None:
            raise NotFound.for_object(rt.names, name)
        return deep_copy(obj) if copy else obj

    def list(self, resource: str | ResourceType, namespace: str | None = None, *,
             label_selector: str | sel.LabelSelector | None = None,
             field_selector: str | fsel.FieldSelector | None = None,
             copy: bool = True) -> dict[str, Any]:
        """A ``<Kind>List``: items in (namespace, name) order and the store revision."""
        rt = self.resource(resource)
        ns = namespace if rt.namespaced else None
        self._react("list", rt, ns or "", "", None)
        label_sel = self._label_selector(label_selector)
        field_sel = self._field_selector(rt, field_selector)
        predicate = self._predicate(rt, label_sel, field_sel)
        groups = label_sel.index_groups() if label_sel is not None else ()
        items = self.store.list(rt.key, ns, label_groups=groups, predicate=predicate)
        if copy:
            items = [deep_copy(o) for o in items]
        return {"kind": f"{rt.kind}List", "apiVersion": rt.api_version,
                "metadata": {"resourceVersion": str(self.store.rv)}, "items": items}

    def _label_selector(self, value: str | sel.LabelSelector | None) -> sel.LabelSelector | None:
        if value is None or value == "":
            return None
        if isinstance(value, str):
            return sel.parse_label_selector(value)
        return value

    def _field_selector(self, rt: ResourceType, value: str | fsel.FieldSelector | None) -> fsel.FieldSelector | None:
        if value is None or value == "":
            return None
        fs = fsel.parse_field_selector(value) if isinstance(value, str) else value
        if rt.custom or rt.plural not in fsel.SUPPORTED_FIELDS:
            supported: Iterable[str] = ["metadata.name", *(["metadata.namespace"] if rt.namespaced else [])]
        else:
            supported = fsel.SUPPORTED_FIELDS[rt.plural]
        return fsel.check_supported(fs, list(supported), rt.plural)

    def _predicate(self, rt: ResourceType, label_sel: sel.LabelSelector | None,
                   field_sel: fsel.FieldSelector | None) -> Callable[[dict[str, Any]], bool] | None:
        if label_sel is None and field_sel is None:
            return None

        def predicate(obj: dict[str, Any]) -> bool:
            if label_sel is not None and not label_sel.matches(obj["metadata"].get("labels") or {}):
                return False
            return field_sel is None or field_sel.matches(self.field_set(rt, obj))

        return predicate

    def watch(self, resource: str | ResourceType, handler: Callable[[WatchEvent], None], *,
              namespace: str | None = None, resource_version: str | None = None,
              label_selector: str | sel.LabelSelector | None = None,
              field_selector: str | fsel.FieldSelector | None = None,
              copy: bool = True, delay: SimTime = 0,
              send_initial_events: bool = False, allow_bookmarks: bool = False) -> Watch:
        """Start a watch. Without a resourceVersion (or with "0") current objects arrive as ADDED.

        From a resourceVersion N, every change after N is replayed; N older than the retained
        history gives an ``ERROR`` event carrying a 410 ``Expired`` Status, then the watch ends.
        """
        rt = self.resource(resource)
        ns = namespace if rt.namespaced else None
        self._react("watch", rt, ns or "", "", None)
        w = Watch(self, rt, ns, self._label_selector(label_selector), self._field_selector(rt, field_selector),
                  handler, copy=copy, delay=delay)
        if resource_version in (None, "", "0") or send_initial_events:
            for obj in self.store.list(rt.key, ns):
                if w._matches(obj):
                    w._queue(WatchEvent(ADDED, obj))
            if send_initial_events and allow_bookmarks:
                w._queue(WatchEvent(BOOKMARK, {"kind": rt.kind, "apiVersion": rt.api_version, "metadata": {
                    "resourceVersion": str(self.store.rv),
                    "annotations": {"k8s.io/initial-events-end": "true"}}}))
        else:
            try:
                rv = int(resource_version)
            except ValueError:
                raise BadRequest(f'invalid resource version "{resource_version}"') from None
            try:
                history = self.store.history_since(rt.key, rv)
            except Gone as gone:
                w._queue(WatchEvent("ERROR", gone.status))
                return w  # never registered: the stream ends after the ERROR event
            for event in history:
                w._offer(event)
        self._watches.setdefault(rt.key, []).append(w)
        return w

    # ================================================================== bulk helpers for controllers
    def dependents(self, owner_uid: str) -> Iterable[tuple[ResourceType, dict[str, Any]]]:
        """Objects with an ownerReference to ``owner_uid`` (the garbage collector's graph edge)."""
        for key, ns, name in self.store.dependents(owner_uid):
            obj = self.store.get(key, ns, name)
            rt = self.registry.by_key(key)
            if obj is not None and rt is not None:
                yield rt, obj
