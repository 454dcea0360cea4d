"""The API server: request → defaults → mutating admission → prepare → validate → validating
admission → persist → notify, with the error ``Status`` objects a real server returns.

Order and messages follow ``k8s.io/apiserver`` ``genericregistry.Store`` (Kubernetes 1.34):
see ``spec/kubernetes.md`` §1. Every write is traced; watch deliveries are scheduled on the
event loop, never made inside the write.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from fakekube._core.clock import SECOND, SimTime, format_time
from fakekube._core.jsonutil import deep_copy, json_differences
from fakekube._core.loop import EventLoop, Priority
from fakekube._core.rand import SeedTree
from fakekube._core.trace import Trace
from fakekube.apiserver.admission import CREATE, DELETE, UPDATE, AdmissionChain, AdmissionRequest
from fakekube.apiserver.faults import Reactor, Request
from fakekube.apiserver.field_manager import (
    FieldManager,
    WriteInfo,
    check_options,
    decode_apply_body,
    unsupported_media_type,
)
from fakekube.apiserver.resources import Registry, ResourceType
from fakekube.apiserver.strategy import Context
from fakekube.apiserver.typed_decoding import exact, json_body, undecoded
from fakekube.errors import (
    AlreadyExists,
    ApiError,
    BadRequest,
    Conflict,
    FieldError,
    Forbidden,
    Gone,
    Invalid,
    MethodNotAllowed,
    NotFound,
    StrictModeError,
)
from fakekube.machinery import field_selectors as fsel
from fakekube.machinery import patch as patching
from fakekube.machinery import selectors as sel
from fakekube.machinery import validation as v
from fakekube.machinery import wire
from fakekube.store import ADDED, DELETED, MODIFIED, Store, StoredEvent

__all__ = ["ApiServer", "Watch", "WatchEvent", "WriteInfo"]

MAX_GENERATE_ATTEMPTS = 8
ORPHAN, FOREGROUND = "orphan", "foregroundDeletion"
PROPAGATION_POLICIES = ("Orphan", "Background", "Foreground")
BOOKMARK = "BOOKMARK"
OMIT_EMPTY_METADATA = ("labels", "annotations", "ownerReferences", "finalizers", "generateName")
IMMORTAL_NAMESPACES = ("default", "kube-system", "kube-public")  # NamespaceLifecycle's, kube-apiserver


class WatchEvent(NamedTuple):
    """One event on a watch stream: ``ADDED``, ``MODIFIED``, ``DELETED``, ``BOOKMARK`` or ``ERROR``
    (immutable, so watches share it; a tuple, cheap to make per stored change)."""

    type: str
    object: dict[str, Any]


@dataclass(eq=False)
class Watch:
    """A server-side watch. Events reach ``handler`` as scheduled loop events, in RV order."""

    server: ApiServer
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


def _ref(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    ns = meta.get("namespace")
    return f"{ns}/{meta.get('name')}" if ns else str(meta.get("name"))


class ApiServer:
    """The in-memory API server. Components and tests reach it through a client.

    The ``copy=``, ``copy_result=``, ``fresh_body=`` and ``trusted=`` keywords of its verbs are
    internal: they exist for fakekube's clients (``Client`` always copies, the simulators'
    ``SharedClient`` never does) and for a few read-only helpers; everything else goes through a
    client.

    **Trusted writes.** A write whose ``trusted`` names one of fakekube's own simulators (the
    runtime decides which, in one place: ``fakekube.runtime.context.SIMULATORS``) was built by
    fakekube from objects that already went through the whole path, so it skips decoding the body
    into the kind's type (with the JSON check and field validation), the ObjectMeta and kind
    validation, and a create's second defaulting pass when no mutating admission plugin ran
    between the two.
    Everything observable still happens: admission webhooks, namespace lifecycle, conflicts,
    system fields, the trace. With ``strict`` set (``FakeCluster(strict=True)``) a trusted write
    runs the whole path and raises :class:`~fakekube.errors.StrictModeError` when decoding or
    validation would reject it or decoding or defaulting would change it.
    """

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

    @staticmethod
    def _strict_error(verb: str, rt: ResourceType, obj: dict[str, Any], trusted: str, problem: str) -> StrictModeError:
        """Strict mode's answer to a write one of fakekube's simulators built wrong."""
        meta = obj.get("metadata") or {}
        name = meta.get("name") or f"{meta.get('generateName') or ''}(generated)"
        ns = meta.get("namespace")
        return StrictModeError(f"strict mode: the {verb} of {rt.kind} {ns + '/' if ns else ''}{name} built by "
                               f"{trusted} {problem}")

    def _invalid(self, rt: ResourceType, obj: dict[str, Any], errors: list[FieldError], trusted: str | None,
                 verb: str = "create") -> Exception:
        name = obj["metadata"].get("name") or ""
        if trusted is not None:
            return self._strict_error(verb, rt, obj, trusted,
                                      f"fails validation: {Invalid.for_object(rt.names, name, errors)}")
        return Invalid.for_object(rt.names, name, errors)

    def _default_again(self, rt: ResourceType, obj: dict[str, Any], trusted: str | None, mutated: bool) -> None:
        """A create's second defaulting pass, after mutating admission. A trusted write skips it
        when no mutating plugin was registered for it (``mutated``: none could have touched the
        object since the first pass, and defaulting is idempotent); in strict mode it runs and must
        not change anything."""
        if trusted is None or mutated:
            rt.strategy.default(obj)
        elif self.strict:
            self._default_unchanged("create", rt, obj, trusted, "is changed by defaulting")

    def _default_unchanged(self, verb: str, rt: ResourceType, obj: dict[str, Any], trusted: str, problem: str) -> None:
        """Strict mode runs a defaulting pass a trusted write skips, on a copy (``obj`` may share
        subtrees with the frozen stored object), and fails with ``problem`` and the differences
        when it changes anything; ``obj`` stays as it is."""
        probe = deep_copy(obj)
        rt.strategy.default(probe)
        if probe != obj:
            raise self._strict_error(verb, rt, obj, trusted, f"{problem}: " + "; ".join(json_differences(obj, probe)))

    def _decodes(self, rt: ResourceType, obj: dict[str, Any], trusted: str | None, verb: str) -> bool:
        """Whether a write's body goes through typed decoding and field validation: every
        untrusted one. A simulator builds its bodies from objects the server decoded, so a
        trusted write skips both (and the JSON check in :meth:`_body`); in strict mode they run
        here and must pass without changing anything. What an update or patch carries over from
        the stored object is not the simulator's doing: strict mode neither walks a top-level
        field shared with it again nor blames the simulator for an undeclared field it already had."""
        # DEVIATION(upstream): kube-apiserver decodes every request body; see _validates.
        if trusted is None:
            return True
        if not self.strict:
            return False
        meta = obj["metadata"]
        stored = None if verb == "create" else \
            self.store.get(rt.key, meta.get("namespace") or "", meta.get("name") or "")
        if not exact(rt, obj, stored):
            problem = undecoded(rt, obj)
            unknown = self.fields.unknown_fields(rt, obj) if problem is None else []
            if unknown and stored is not None:  # those the stored object has already are a user's
                carried = set(self.fields.unknown_fields(rt, stored))
                unknown = [path for path in unknown if path not in carried]
            if unknown:
                problem = "has fields its kind does not declare: " + ", ".join(unknown)
            if problem is not None:
                raise self._strict_error(verb, rt, obj, trusted, problem)
        return False

    def _validates(self, trusted: str | None) -> bool:
        """Whether a write runs ObjectMeta and kind validation: every untrusted one, and in strict mode all."""
        # DEVIATION(upstream): kube-apiserver validates every write; the fake trusts the bodies its
        # own simulators build (strict mode checks that trust on every such write).
        return trusted is None or self.strict

    def field_set(self, rt: ResourceType, obj: dict[str, Any]) -> dict[str, str]:
        """The values a field selector sees for ``obj``."""
        extra = None if rt.custom else fsel.FIELD_GETTERS.get(rt.plural)
        return fsel.object_field_set(obj, extra, namespaced=rt.namespaced)

    def _body(self, rt: ResourceType, body: Any, namespace: str, *, copy: bool = True,
              trusted: str | None = None) -> dict[str, Any]:
        """The request body as the server's own object (a copy unless the caller made it fresh);
        a trusted body skips the JSON check (see :meth:`_decodes`)."""
        if not isinstance(body, dict):
            raise BadRequest(f"the body of a {rt.kind} request must be an object, not {type(body).__name__}")
        if trusted is None:
            json_body(rt, body)
        obj = deep_copy(body) if copy else body
        meta = obj.get("metadata")
        if meta is None:
            meta = obj["metadata"] = {}
        if not isinstance(meta, dict):
            raise BadRequest(f"metadata of a {rt.kind} must be an object")
        if obj.get("apiVersion") not in (None, "", rt.api_version):
            raise BadRequest(f"the API version in the data ({obj['apiVersion']}) does not match the expected "
                             f"API version ({rt.api_version})")
        if obj.get("kind") not in (None, "", rt.kind):
            raise BadRequest(f"the kind in the data ({obj['kind']}) does not match the expected kind ({rt.kind})")
        obj["apiVersion"], obj["kind"] = rt.api_version, rt.kind
        for key in OMIT_EMPTY_METADATA:  # Go's omitempty: an empty list or map is not stored
            if key in meta and not meta[key]:
                del meta[key]
        body_ns = meta.get("namespace")
        if body_ns is not None and not isinstance(body_ns, str):
            return obj  # not a string: left for typed decoding to reject (see _ns)
        if rt.namespaced:
            if body_ns and body_ns != namespace:
                raise BadRequest("the namespace of the provided object does not match the namespace sent on the request")
            meta["namespace"] = namespace
        else:
            meta.pop("namespace", None)
        return obj

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

    # ================================================================== create
    def create(self, resource: str | ResourceType, body: dict[str, Any], *, namespace: str | None = None,
               dry_run: bool = False, copy_result: bool = True, fresh_body: bool = False,
               field_manager: str | None = None, field_validation: str | None = None,
               user_agent: str | None = None, info: WriteInfo | None = None,
               trusted: str | None = None) -> dict[str, Any]:
        """Create an object.

        Internal options (see the class docstring): ``copy_result=False`` returns the stored object
        itself, for callers that only read the result. ``fresh_body=True`` lets the server keep
        ``body`` instead of copying it: only for a caller that built it for this call, shares
        nothing mutable with it, and never touches it again.

        Request options as on the wire (every write takes them): ``field_manager``
        (``fieldManager``; a write that carries one -- ``""`` for a request without the
        parameter, named after ``user_agent`` then -- records ``metadata.managedFields``; None, an
        in-process write, records them only on objects that already have them),
        ``field_validation`` (``Strict``, ``Warn`` -- the default -- or ``Ignore``: what to do
        with fields the kind's schema does not declare), ``dry_run`` (``dryRun=All``: everything
        but storing), ``user_agent`` (names the manager of a write without a field manager, as
        kube-apiserver does: the part before the first ``/``); ``info`` collects warnings (see
        :class:`WriteInfo`).
        """
        rt = self.resource(resource)
        check_options("CreateOptions", field_manager=field_manager, field_validation=field_validation)
        meta = body.get("metadata") if isinstance(body, dict) else None
        ns = self._ns(rt, namespace if namespace is not None or not isinstance(meta, dict) else meta.get("namespace"))
        obj = self._body(rt, body, ns, copy=not fresh_body, trusted=trusted)
        if self._decodes(rt, obj, trusted, "create"):
            self.fields.check_decoded(rt, obj, field_validation, info)
        return self._create(rt, ns, obj, dry_run=dry_run, copy_result=copy_result, field_manager=field_manager,
                            user_agent=user_agent, info=info, trusted=trusted)

    def _create(self, rt: ResourceType, ns: str, obj: dict[str, Any], *, dry_run: bool, copy_result: bool,
                field_manager: str | None = None, user_agent: str | None = None, info: WriteInfo | None = None,
                applied: bool = False, trusted: str | None = None) -> dict[str, Any]:
        meta = obj["metadata"]
        self._react("create", rt, ns, meta.get("name") or meta.get("generateName") or "", None)
        sent_rv = meta.get("resourceVersion")
        strategy = rt.strategy
        strategy.default(obj)
        if not applied:
            self.fields.track_create(rt, obj, field_manager, user_agent, self.now)
        self._check_namespace(rt, ns, meta.get("name") or meta.get("generateName") or "Unknown")
        mutated = self.admission.reaches(True, rt.key, CREATE)
        if mutated:
            self.admission.mutate(AdmissionRequest(CREATE, rt, ns, meta.get("name") or "", obj, None, self,
                                                   dry_run=dry_run))
        self._default_again(rt, obj, trusted, mutated)
        meta = obj["metadata"]
        # Store.create: system fields, then the generated name.
        meta["uid"] = self._uids.uid()
        meta["creationTimestamp"] = format_time(self.now)
        for field_name in ("deletionTimestamp", "deletionGracePeriodSeconds", "generation", "resourceVersion"):
            meta.pop(field_name, None)
        if strategy.tracks_generation:
            meta["generation"] = 1
        strategy.prepare_for_create(obj, self._context())
        generate = not meta.get("name") and bool(meta.get("generateName"))
        attempts = MAX_GENERATE_ATTEMPTS if generate else 1
        validates = self._validates(trusted)
        admits = self.admission.reaches(False, rt.key, CREATE)
        for attempt in range(attempts):
            if generate:
                meta["name"] = self._generate_name(meta["generateName"])
            if validates:
                errors = self._validate_meta(rt, meta) + strategy.validate(obj)
                if errors:
                    raise self._invalid(rt, obj, errors, trusted)
            if admits:
                self.admission.validate(AdmissionRequest(CREATE, rt, ns, meta["name"], obj, None, self,
                                                         dry_run=dry_run))
            existing = self.store.get(rt.key, ns, meta["name"])
            if existing is None:
                break
            if not generate:
                prefix = "object is being deleted: " if existing["metadata"].get("deletionTimestamp") else ""
                raise AlreadyExists.for_object(rt.names, meta["name"], prefix=prefix)
            if attempt == attempts - 1:
                raise AlreadyExists.for_object(
                    rt.names, meta["name"], retry_after=1,
                    suffix=", the server was not able to generate a unique name for the object")
        if info is not None:
            info.created = True
        if dry_run:
            return obj
        if sent_rv:  # the storage layer's check: after validation and admission, a plain error (500)
            raise patching.PatchInternalError("resourceVersion should not be set on objects to be created")
        self._persist(rt, obj, "create", ADDED)
        return deep_copy(obj) if copy_result else obj

    def _generate_name(self, base: str) -> str:
        return base[:58] + self._names.name_suffix(5)

    def _validate_meta(self, rt: ResourceType, meta: dict[str, Any]) -> list[FieldError]:
        return v.validate_object_meta(meta, namespaced=rt.namespaced, name_rule=rt.strategy.name_rule)

    # ================================================================== update
    def update(self, resource: str | ResourceType, body: dict[str, Any], *, namespace: str | None = None,
               subresource: str | None = None, dry_run: bool = False, copy_result: bool = True,
               fresh_body: bool = False, field_manager: str | None = None, field_validation: str | None = None,
               user_agent: str | None = None, info: WriteInfo | None = None,
               trusted: str | None = None) -> dict[str, Any]:
        """Update (PUT) an object or its ``status``; the other options as for :meth:`create`."""
        rt = self.resource(resource)
        check_options("UpdateOptions", field_manager=field_manager, field_validation=field_validation)
        if not isinstance(body, dict) or not isinstance(body.get("metadata"), dict) \
                or not isinstance(body["metadata"].get("name"), str) or not body["metadata"]["name"]:
            raise BadRequest(f"an update of a {rt.kind} needs metadata.name")
        ns = self._ns(rt, namespace if namespace is not None else body["metadata"].get("namespace"))
        name = body["metadata"]["name"]
        self._react("update", rt, ns, name, subresource)
        new = self._body(rt, body, ns, copy=not fresh_body, trusted=trusted)
        if self._decodes(rt, new, trusted, "update"):
            self.fields.check_decoded(rt, new, field_validation, info)
        return self._update(rt, ns, name, new, subresource, dry_run=dry_run, verb="update",
                            copy_result=copy_result, field_manager=field_manager, user_agent=user_agent,
                            trusted=trusted)

    def _update(self, rt: ResourceType, ns: str, name: str, new: dict[str, Any], subresource: str | None, *,
                dry_run: bool, verb: str, copy_result: bool = True, field_manager: str | None = None,
                user_agent: str | None = None, applied: bool = False,
                trusted: str | None = None) -> dict[str, Any]:
        if subresource not in (None, "status") and not (subresource == "finalize" and "finalize" in rt.subresources):
            raise NotFound(f"the server could not find the requested resource ({subresource} {rt.key})")
        if subresource == "finalize" and verb != "update":  # namespaces/finalize serves PUT only
            raise MethodNotAllowed("the server does not allow this method on the requested resource")
        if subresource == "status" and not rt.has_status:
            raise NotFound(f"the server could not find the requested resource ({rt.key}/status)")
        old = self.store.get(rt.key, ns, name)
        if old is None:
            raise NotFound.for_object(rt.names, name)
        meta = new["metadata"]
        rv = meta.get("resourceVersion")
        if not rv:
            if not rt.strategy.allow_unconditional_update:
                raise Invalid(f'{rt.key} "{name}" is invalid: metadata.resourceVersion: Invalid value: 0: '
                              "must be specified for an update",
                              details={"name": name, "group": rt.group, "kind": rt.kind, "causes": [
                                  {"reason": "FieldValueInvalid", "message": "Invalid value: 0: must be "
                                   "specified for an update", "field": "metadata.resourceVersion"}]})
        elif rv != old["metadata"]["resourceVersion"]:
            raise Conflict.modified(rt.names, name)
        strategy = rt.strategy
        strategy.default(new)  # every update's one pass, trusted too (a Job's status write gets its labels here)
        meta = new["metadata"]  # defaulting may rebuild it (a custom resource's pruning does)
        old_meta = old["metadata"]
        # BeforeUpdate: system fields cannot be changed by a client.
        for key in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"):
            if key in old_meta:
                meta[key] = old_meta[key]
            else:
                meta.pop(key, None)
        meta["resourceVersion"] = old_meta["resourceVersion"]
        ctx = self._context(subresource)
        if subresource == "status":
            strategy.prepare_for_status_update(new, old, ctx)
        else:
            if rt.has_status:
                if "status" in old:
                    new["status"] = old["status"]
                else:
                    new.pop("status", None)
            strategy.prepare_for_update(new, old, ctx)
        if not applied:
            self.fields.track_update(rt, old, new, field_manager, user_agent, subresource, self.now)
        if subresource != "status":
            if self.admission.reaches(True, rt.key, UPDATE, subresource):
                # The body may share subtrees with the frozen stored object (fresh_body, patches);
                # a mutating plugin gets an object of its own.
                new.update({k: deep_copy(v) for k, v in new.items()})
                meta = new["metadata"]
                self.admission.mutate(AdmissionRequest(UPDATE, rt, ns, name, new, old, self,
                                                       subresource=subresource, dry_run=dry_run))
            if strategy.tracks_generation and strategy.spec_changed(new, old):
                meta["generation"] = int(old_meta.get("generation", 0)) + 1
        if self._validates(trusted):
            errors = v.validate_object_meta_update(meta, old_meta, old_is_valid=True)
            errors += (strategy.validate_status_update(new, old) if subresource == "status"
                       else strategy.validate_update(new, old))
            if errors:
                raise self._invalid(rt, new, errors, trusted, verb)
        if self.admission.reaches(False, rt.key, UPDATE, subresource):
            self.admission.validate(AdmissionRequest(UPDATE, rt, ns, name, new, old, self,
                                                     subresource=subresource, dry_run=dry_run))
        self.fields.keep_times_if_unchanged(new, old)
        if new == old:
            return deep_copy(old) if copy_result else old
        if dry_run:
            return deep_copy(new) if copy_result else new
        if old_meta.get("deletionTimestamp") and not meta.get("finalizers") \
                and not old_meta.get("deletionGracePeriodSeconds") and not strategy.finalizing(new):
            # ShouldDeleteDuringUpdate: the last finalizer is gone from a terminating object.
            self._remove(rt, new)
            return new
        self._persist(rt, new, verb, MODIFIED, subresource)
        return deep_copy(new) if copy_result else new

    # ================================================================== patch
    def patch(self, resource: str | ResourceType, name: str, patch: Any, *, namespace: str | None = None,
              patch_type: str = "merge", subresource: str | None = None,
              dry_run: bool = False, copy_result: bool = True, field_manager: str | None = None,
              field_validation: str | None = None, force: bool | None = None, user_agent: str | None = None,
              info: WriteInfo | None = None, trusted: str | None = None) -> dict[str, Any]:
        """PATCH with ``patch_type`` a content type or ``merge``/``json``/``strategic``/``apply``.

        Server-side apply (``application/apply-patch+yaml``, a YAML or JSON body or a dict)
        needs ``field_manager``, creates the object when it is absent (``info.created``), and
        answers 409 on fields other managers own unless ``force``. Other options as for
        :meth:`create`; ``force`` is for apply only.
        """
        rt = self.resource(resource)
        ns = self._ns(rt, namespace)
        media = patching.normalize_patch_type(patch_type)
        apply = media == patching.APPLY_PATCH_YAML
        check_options("PatchOptions", field_manager=field_manager, field_validation=field_validation,
                      force=force, apply=apply)
        if media == patching.APPLY_PATCH_CBOR:
            raise unsupported_media_type(rt)
        self._react("patch", rt, ns, name, subresource)
        if apply:
            assert field_manager is not None
            return self._apply(rt, ns, name, patch, subresource, field_manager, force=bool(force), dry_run=dry_run,
                               copy_result=copy_result, info=info)
        old = self.store.get(rt.key, ns, name)
        if old is None:
            raise NotFound.for_object(rt.names, name)
        # A fresh object that shares untouched subtrees with the frozen stored one; old is untouched.
        new = self._patched(rt, old, patch, media, trusted)
        if not isinstance(new, dict) or not isinstance(new.get("metadata"), dict):
            raise BadRequest("the patch produced an object without metadata")
        if new["metadata"] is old["metadata"]:  # the server sets fields on it below
            new["metadata"] = dict(old["metadata"])
        patched_meta = new["metadata"]
        self._check_patch_preconditions(rt, name, old, patched_meta, _has_rv(patch, media))
        for key in ("name", "namespace"):
            if patched_meta.get(key) != old["metadata"].get(key):
                patched_meta[key] = old["metadata"].get(key)
        new = self._body(rt, new, ns, copy=False, trusted=trusted)
        if self._decodes(rt, new, trusted, "patch"):
            self.fields.check_patched(rt, new, field_validation, info, patch, media)
        return self._update(rt, ns, name, new, subresource, dry_run=dry_run, verb="patch",
                            copy_result=copy_result, field_manager=field_manager, user_agent=user_agent,
                            trusted=trusted)

    def _patched(self, rt: ResourceType, old: dict[str, Any], patch: Any, media: str,
                 trusted: str | None) -> dict[str, Any]:
        """``old`` with ``patch`` applied. A trusted writer's patch is a JSON value it built, so it
        skips the JSON check (see :meth:`_decodes`); strict mode checks it."""
        if trusted is None or not isinstance(patch, dict | list):
            return patching.apply_patch(old, patch, media, resource=rt.key, share=True)
        if self.strict:
            try:
                wire.check_json(patch)
            except wire.NotJson as err:
                raise self._strict_error("patch", rt, old, trusted, f"sends a patch that is not JSON: {err}") from None
        return patching.apply_built_patch(old, patch, media, resource=rt.key, share=True)

    def _check_patch_preconditions(self, rt: ResourceType, name: str, old: dict[str, Any],
                                   patched_meta: dict[str, Any], has_rv: bool) -> None:
        if patched_meta.get("uid") not in (None, old["metadata"]["uid"]):
            raise Conflict(f'Precondition failed: UID in precondition: {patched_meta["uid"]}, '
                           f'UID in object meta: {old["metadata"]["uid"]}',
                           details={"name": name, "group": rt.group, "kind": rt.plural})
        # A resourceVersion in the patch is a precondition; without one the patch applies to the latest.
        if has_rv and patched_meta.get("resourceVersion") != old["metadata"]["resourceVersion"]:
            raise Conflict.modified(rt.names, name)
        patched_meta["resourceVersion"] = old["metadata"]["resourceVersion"]

    def _apply(self, rt: ResourceType, ns: str, name: str, body: Any, subresource: str | None, field_manager: str,
               *, force: bool, dry_run: bool, copy_result: bool, info: WriteInfo | None) -> dict[str, Any]:
        """Server-side apply: merge the applied configuration, then update or create (spec §1.6)."""
        if subresource not in (None, "status") or (subresource == "status" and not rt.has_status):
            raise NotFound(f"the server could not find the requested resource ({rt.key}/{subresource})")
        config = decode_apply_body(body)
        old = self.store.get(rt.key, ns, name)
        if old is None and subresource is not None:
            raise NotFound.for_object(rt.names, name)
        new = self.fields.apply(rt, old, config, field_manager, force=force, subresource=subresource, now=self.now)
        meta = new["metadata"]
        if meta.get("name") != name:
            raise BadRequest(f"the name of the object ({meta.get('name') or ''}) does not match the name on "
                             f"the URL ({name})")
        if old is None:
            if meta.get("uid"):
                raise Conflict(f'Operation cannot be fulfilled on {rt.key} "{name}": uid mismatch: the provided '
                               f"object specified uid {meta['uid']}, and no existing object was found",
                               details={"name": name, "group": rt.group, "kind": rt.plural})
            new = self._body(rt, new, ns, copy=False)
            return self._create(rt, ns, new, dry_run=dry_run, copy_result=copy_result, info=info, applied=True)
        self._check_patch_preconditions(rt, name, old, meta, _has_rv(config, patching.MERGE_PATCH))
        new = self._body(rt, new, ns, copy=False)
        return self._update(rt, ns, name, new, subresource, dry_run=dry_run, verb="patch",
                            copy_result=copy_result, applied=True)

    # ================================================================== subresources
    def create_subresource(self, resource: str | ResourceType, name: str, subresource: str,
                           body: dict[str, Any], *, namespace: str | None = None) -> dict[str, Any]:
        """``POST .../<name>/<subresource>`` (pods/binding, pods/eviction)."""
        rt = self.resource(resource)
        ns = self._ns(rt, namespace)
        handler = self.subresource_handlers.get((rt.key, subresource))
        if handler is None:
            raise MethodNotAllowed(f"the server does not allow this method on the requested resource "
                                   f"({rt.key}/{subresource})")
        self._react("create", rt, ns, name, subresource)
        self._check_namespace(rt, ns, name)
        return handler(self, rt, ns, name, body)

    # ================================================================== delete
    def delete(self, resource: str | ResourceType, name: str, *, namespace: str | None = None,
               propagation_policy: str | None = None, grace_period_seconds: int | None = None,
               preconditions: dict[str, str] | None = None, dry_run: bool = False,
               copy_result: bool = True) -> dict[str, Any]:
        """DELETE: finalizers and graceful deletion turn it into an update; else the object goes.

        Returns the object (when it lingers, or for kinds that return it, such as Pods) or a
        ``Status`` of ``Success``; ``copy_result`` as for :meth:`create`.
        """
        rt = self.resource(resource)
        ns = self._ns(rt, namespace)
        self._react("delete", rt, ns, name, None)
        if propagation_policy is not None and propagation_policy not in PROPAGATION_POLICIES:
            raise Invalid(f'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: '
                          f'"{propagation_policy}": supported values: "Foreground", "Background", "Orphan", "nil"',
                          details={"group": "meta.k8s.io", "kind": "DeleteOptions", "causes": [
                              {"reason": "FieldValueNotSupported", "field": "propagationPolicy",
                               "message": f'Unsupported value: "{propagation_policy}": supported values: '
                                          '"Foreground", "Background", "Orphan", "nil"'}]})
        old = self.store.get(rt.key, ns, name)
        if old is None:
            raise NotFound.for_object(rt.names, name)
        old_meta = old["metadata"]
        self._check_preconditions(rt, name, old_meta, preconditions or {})
        self._check_namespace(rt, ns, name, DELETE)
        if old_meta.get("deletionTimestamp") and rt.strategy.finalizing(old):
            return deep_copy(old) if copy_result else old  # a terminating Namespace stays as it is
        # Deletion only changes metadata: the new version shares everything else with the stored
        # (never mutated) old one.
        new = {**old, "metadata": dict(old_meta)}  # metadata fields are replaced, never edited in place
        meta = new["metadata"]
        finalizers = list(meta.get("finalizers") or [])
        policy = propagation_policy
        if policy is None:
            if ORPHAN in finalizers or FOREGROUND in finalizers:
                policy = None
            else:
                policy = rt.strategy.default_gc_policy
        if policy == "Orphan":
            finalizers = [f for f in finalizers if f != FOREGROUND]
            finalizers += [] if ORPHAN in finalizers else [ORPHAN]
        elif policy == "Foreground":
            finalizers = [f for f in finalizers if f != ORPHAN]
            finalizers += [] if FOREGROUND in finalizers else [FOREGROUND]
        elif policy == "Background":
            finalizers = [f for f in finalizers if f not in (ORPHAN, FOREGROUND)]
        grace = rt.strategy.grace_period(old, grace_period_seconds)
        if old_meta.get("deletionTimestamp"):
            # Already terminating: a shorter grace period may be applied, never a longer one.
            current = old_meta.get("deletionGracePeriodSeconds")
            if current is not None and grace < current and grace > 0:
                meta["deletionGracePeriodSeconds"] = grace
                meta["deletionTimestamp"] = format_time(self.now + grace * SECOND)
            elif grace == 0 and current:
                meta["deletionGracePeriodSeconds"] = 0
            if finalizers != list(old_meta.get("finalizers") or []):
                meta["finalizers"] = finalizers
            if not meta.get("finalizers") and not meta.get("deletionGracePeriodSeconds"):
                return self._delete_now(rt, new, dry_run, copy_result)
            result = old if new == old else new if dry_run else self._persist(rt, new, "delete", MODIFIED)
            return deep_copy(result) if copy_result else result
        marked = rt.strategy.prepare_for_delete(new, self._context())
        if not finalizers and grace == 0 and not marked:
            return self._delete_now(rt, new, dry_run, copy_result)
        if finalizers:
            meta["finalizers"] = finalizers
        else:
            meta.pop("finalizers", None)
        meta["deletionTimestamp"] = format_time(self.now + grace * SECOND)
        if not marked:
            meta["deletionGracePeriodSeconds"] = grace
        if rt.strategy.tracks_generation or "generation" in meta:
            meta["generation"] = int(meta.get("generation", 0)) + 1
        if dry_run:
            return deep_copy(new) if copy_result else new
        result = self._persist(rt, new, "delete", MODIFIED)
        return deep_copy(result) if copy_result else result

    def _check_preconditions(self, rt: ResourceType, name: str, meta: dict[str, Any],
                             pre: dict[str, str]) -> None:
        uid, rv = pre.get("uid"), pre.get("resourceVersion")
        if uid is None and rv is None:
            return
        label = f'{rt.names.qualified_kind} "{name}"'
        if uid is not None and uid != meta.get("uid"):
            raise Conflict(f"Operation cannot be fulfilled on {label}: the UID in the precondition ({uid}) does "
                           f"not match the UID in record ({meta.get('uid')}). The object might have been deleted "
                           "and then recreated")
        if rv is not None and rv != meta.get("resourceVersion"):
            raise Conflict(f"Operation cannot be fulfilled on {label}: the ResourceVersion in the precondition "
                           f"({rv}) does not match the ResourceVersion in record ({meta.get('resourceVersion')}). "
                           "The object might have been modified")

    def _delete_now(self, rt: ResourceType, obj: dict[str, Any], dry_run: bool,
                    copy_result: bool = True) -> dict[str, Any]:
        if not dry_run:
            obj = self._remove(rt, obj)
        if rt.strategy.return_deleted_object:
            return deep_copy(obj) if copy_result else obj
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                "details": {"name": obj["metadata"]["name"], "group": rt.group, "kind": rt.plural,
                            "uid": obj["metadata"]["uid"]}}

    def _remove(self, rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        meta = obj["metadata"]
        rv = self.store.next_rv()
        self.writes += 1
        self.trace.write("delete", rt.key, rt.api_version, rt.kind, None, meta.get("namespace") or "", meta["name"], rv,
                         removed=True)
        event = self.store.remove(rt.key, meta.get("namespace") or "", meta["name"], rv=rv)
        return event.obj

    # ================================================================== bulk helpers for controllers
    def dependents(self, owner_uid: str) -> Iterable[tuple[ResourceType, dict[str, Any]]]:
        """Objects with an ownerReference to ``owner_uid`` (the garbage collector's graph edge)."""
        for key, ns, name in self.store.dependents(owner_uid):
            obj = self.store.get(key, ns, name)
            rt = self.registry.by_key(key)
            if obj is not None and rt is not None:
                yield rt, obj


def _has_rv(patch: Any, media: str) -> bool:
    if media == patching.JSON_PATCH:
        return any(isinstance(op, dict) and str(op.get("path", "")).startswith("/metadata/resourceVersion")
                   for op in (patch if isinstance(patch, list) else []))
    return isinstance(patch, dict) and isinstance(patch.get("metadata"), dict) \
        and patch["metadata"].get("resourceVersion") is not None

