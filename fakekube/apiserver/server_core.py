"""The API server's core: what every verb shares (request context, namespaces, fault reactors,
persisting a change and removing an object, the trace) and the watch fan-out.

The verbs are :mod:`fakekube.apiserver.reads` (get, list, watch), :mod:`fakekube.apiserver.writes`
(create, update, patch, apply) and :mod:`fakekube.apiserver.deletes`; :class:`~fakekube.apiserver.server.ApiServer`
is all of them, and the one entry point.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from fakekube._core.clock import SimTime
from fakekube._core.jsonutil import deep_copy
from fakekube._core.loop import EventLoop, Priority
from fakekube._core.rand import SeedTree
from fakekube._core.trace import Trace
from fakekube.apiserver.admission import CREATE, DELETE, AdmissionChain
from fakekube.apiserver.faults import Reactor, Request
from fakekube.apiserver.field_manager import FieldManager
from fakekube.apiserver.resources import Registry, ResourceType
from fakekube.apiserver.strategy import Context
from fakekube.errors import ApiError, Forbidden, NotFound
from fakekube.machinery import field_selectors as fsel
from fakekube.machinery import selectors as sel
from fakekube.store import ADDED, DELETED, MODIFIED, Store, StoredEvent

__all__ = ["ServerCore", "Watch", "WatchEvent"]

IMMORTAL_NAMESPACES = ("default", "kube-system", "kube-public")  # NamespaceLifecycle's, kube-apiserver


class WatchEvent(NamedTuple):
    """One event on a watch stream: ``ADDED``, ``MODIFIED``, ``DELETED``, ``BOOKMARK`` or ``ERROR``
    (immutable, so watches share it; a tuple, cheap to make per stored change)."""

    type: str
    object: dict[str, Any]


@dataclass(eq=False)
class Watch:
    """A server-side watch. Events reach ``handler`` as scheduled loop events, in RV order."""

    server: ServerCore
    resource: ResourceType
    namespace: str | None
    label_selector: sel.LabelSelector | None
    field_selector: fsel.FieldSelector | None
    handler: Callable[[WatchEvent], None]
    copy: bool = True
    delay: SimTime = 0
    stopped: bool = False
    _pending: deque[WatchEvent] = field(default_factory=deque)
    _scheduled: bool = False
    _everything: bool = field(init=False)  # no namespace or selector: every change of the resource

    _label: str = field(init=False)  # of its deliveries on the loop

    def __post_init__(self) -> None:
        self._everything = self.namespace is None and self.label_selector is None and self.field_selector is None
        self._label = f"watch {self.resource.key}"

    def stop(self) -> None:
        self.stopped = True
        self.server._unwatch(self)

    @property
    def pending(self) -> bool:
        """Events are queued for this watch and not yet handed to its handler."""
        return bool(self._pending)

    def _matches(self, obj: dict[str, Any] | None) -> bool:
        if obj is None:
            return False
        meta = obj["metadata"]
        if self.namespace is not None and (meta.get("namespace") or "") != self.namespace:
            return False
        if self.label_selector is not None and not self.label_selector.matches(meta.get("labels") or {}):
            return False
        if self.field_selector is not None:
            return self.field_selector.matches(self.server.field_set(self.resource, obj))
        return True

    def _offer(self, event: StoredEvent, extra_delay: SimTime = 0) -> None:
        """Translate a stored change into this watch's view (selector transitions) and queue it."""
        if self._everything:
            unfiltered = _unfiltered_view(event)
            if unfiltered is not None:
                self._queue(unfiltered, extra_delay)
            return
        now_matches = event.type != DELETED and self._matches(event.obj)
        was_matching = event.old is not None and self._matches(event.old)
        if event.type == DELETED:
            kind = DELETED if was_matching else None
        elif now_matches:
            kind = MODIFIED if was_matching else ADDED
        else:
            kind = DELETED if was_matching else None
        if kind is None:
            return
        # An object that stopped matching is sent as DELETED with its new state, as the watch cache does.
        self._queue(WatchEvent(kind, event.obj), extra_delay)

    def _queue(self, event: WatchEvent, extra_delay: SimTime = 0) -> None:
        if self.stopped:
            return
        self._pending.append(event)
        if not self._scheduled:
            self._scheduled = True
            self.server.loop.call_later(self.delay + extra_delay, self._flush, priority=Priority.URGENT,
                                        label=self._label)

    def _flush(self) -> None:
        self._scheduled = False
        while self._pending and not self.stopped:
            event = self._pending.popleft()
            if self.copy:
                event = WatchEvent(event.type, deep_copy(event.object))
            self.handler(event)


def _unfiltered_view(event: StoredEvent) -> WatchEvent | None:
    """A stored change as a watch with no namespace or selector sees it (every object matches:
    the answer of :meth:`Watch._offer`'s transitions then): one event every such watch may share."""
    if event.type == DELETED:
        return WatchEvent(DELETED, event.obj) if event.old is not None else None
    return WatchEvent(MODIFIED if event.old is not None else ADDED, event.obj)


class ServerCore:
    """What the API server's verbs share; see :class:`~fakekube.apiserver.server.ApiServer`."""

    def __init__(self, *, loop: EventLoop, trace: Trace, seeds: SeedTree, store: Store | None = None) -> None:
        self.loop = loop
        self.trace = trace
        self.store = store or Store()
        self.registry = Registry()
        self.admission = AdmissionChain()
        self.reactors: list[Reactor] = []
        self.subresource_handlers: dict[tuple[str, str], Callable[..., dict[str, Any]]] = {}
        self.fields = FieldManager()
        self._names = seeds.stream("apiserver/names")
        self._uids = seeds.stream("apiserver/uids")
        self._watches: dict[str, list[Watch]] = {}
        self._write_delay: SimTime = 0
        self.store.subscribe(self._fan_out)
        self.writes = 0
        #: Run trusted (simulator) writes through the whole path and fail on any difference.
        self.strict = False
        self._last_context = Context(loop.now)

    # ================================================================== helpers
    @property
    def now(self) -> SimTime:
        return self.loop.now

    def _context(self, subresource: str | None = None) -> Context:
        """What a strategy may know about the request (the last one again while it is still true:
        many writes happen at one virtual instant)."""
        ctx = self._last_context
        if ctx.now != self.loop.now or ctx.subresource != subresource:
            ctx = self._last_context = Context(self.loop.now, subresource)
        return ctx

    def resource(self, name: str | ResourceType) -> ResourceType:
        return name if isinstance(name, ResourceType) else self.registry.resolve(name)

    def _ns(self, rt: ResourceType, namespace: Any) -> str:
        """The namespace a request acts in; a body's namespace that is not a string stays in the body,
        whose decoding rejects it (400), as kube-apiserver decodes a body before anything else."""
        if not rt.namespaced:
            return ""
        return namespace if isinstance(namespace, str) and namespace else "default"

    def _react(self, verb: str, rt: ResourceType, namespace: str, name: str, sub: str | None) -> None:
        self._write_delay = 0
        if not self.reactors:
            return
        req = Request(verb, rt.key, namespace, name, sub)
        for reactor in self.reactors:
            if reactor.fires(req):
                if reactor.error is not None:
                    self.trace.fault(verb, rt.key, sub, namespace, name, reactor.error.code, reactor.error.reason)
                    raise ApiError.from_status(deep_copy(reactor.error.status))
                self._write_delay = max(self._write_delay, reactor.delay)

    def _check_namespace(self, rt: ResourceType, namespace: str, obj_name: str, operation: str = CREATE) -> None:
        """The NamespaceLifecycle admission plugin (the first in kube-apiserver's chain): the
        immortal namespaces cannot be deleted; other deletes, and anything cluster-scoped, pass;
        a namespaced request needs its namespace (404), and a create (subresources included)
        needs it not ``Terminating`` (403 with a ``NamespaceTerminating`` cause)."""
        if operation == DELETE:
            if rt.key == "namespaces" and obj_name in IMMORTAL_NAMESPACES:
                raise Forbidden.for_object(rt.names, obj_name, "this namespace may not be deleted")
            return
        if not rt.namespaced:
            return
        ns = self.store.get("namespaces", "", namespace)
        if ns is None:
            raise NotFound.for_object(self.registry.resolve("namespaces").names, namespace)
        if operation == CREATE and (ns.get("status") or {}).get("phase") == "Terminating":
            raise Forbidden.for_object(
                rt.names, obj_name,
                f"unable to create new content in namespace {namespace} because it is being terminated",
                causes=[{"reason": "NamespaceTerminating",
                         "message": f"namespace {namespace} is being terminated",
                         "field": "metadata.namespace"}])

    def field_set(self, rt: ResourceType, obj: dict[str, Any]) -> dict[str, str]:
        """The values a field selector sees for ``obj``."""
        extra = None if rt.custom else fsel.FIELD_GETTERS.get(rt.plural)
        return fsel.object_field_set(obj, extra, namespaced=rt.namespaced)

    def _persist(self, rt: ResourceType, obj: dict[str, Any], verb: str, event: str,
                 sub: str | None = None) -> dict[str, Any]:
        rv = self.store.next_rv()
        obj["metadata"]["resourceVersion"] = str(rv)
        self.writes += 1
        meta = obj["metadata"]
        if self.trace.enabled:  # not even the call (nine arguments) when the trace is off
            self.trace.write(verb, rt.key, rt.api_version, rt.kind, sub, meta.get("namespace") or "", meta.get("name"),
                             rv)
        self.store.put(rt.key, obj, event=event)
        return obj

    def _remove(self, rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        meta = obj["metadata"]
        rv = self.store.next_rv()
        self.writes += 1
        self.trace.write("delete", rt.key, rt.api_version, rt.kind, None, meta.get("namespace") or "", meta["name"], rv,
                         removed=True)
        event = self.store.remove(rt.key, meta.get("namespace") or "", meta["name"], rv=rv)
        return event.obj

    # ================================================================== watch fan-out
    def _fan_out(self, event: StoredEvent) -> None:
        watches = self._watches.get(event.resource)
        if not watches:
            return
        delay = self._write_delay
        unfiltered: WatchEvent | None = None  # built on first use, shared (it is frozen)
        built = False
        for watch in watches:
            if watch._everything:
                if not built:
                    unfiltered, built = _unfiltered_view(event), True
                if unfiltered is not None:
                    watch._queue(unfiltered, delay)
            else:
                watch._offer(event, delay)

    def _unwatch(self, watch: Watch) -> None:
        bucket = self._watches.get(watch.resource.key, [])
        if watch in bucket:
            bucket.remove(watch)
