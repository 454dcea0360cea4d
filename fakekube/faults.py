"""Faults: the one vocabulary of what can go wrong in a simulated cluster.

The conformance scenarios' timeline (``failPod: {hostname: ...}``) and the hypothesis fault
timelines (``jobset_ref.testing.strategies``) both build these values, so a fault means the
same thing, with the same parameters, wherever it is written. Each is a frozen value;
``apply(cluster)`` makes it happen now (or arms it, for a delivery fault) and returns a one-line
description of what it did. :func:`parse_fault` reads the mapping form (the YAML of a timeline
step). Every fault is something a real cluster does:

=================  =======================================================  =======================
action             spec                                                     value
=================  =======================================================  =======================
``failPod``        a pod target, ``exitCode`` (1), ``reason`` (``Error``)   :class:`FailPod`
``completePod``    a pod target                                             :class:`CompletePod`
``evictPod``       a pod target                                             :class:`EvictPod`
``deletePod``      a pod target                                             :class:`DeletePod`
``failNode``       a node name, or ``{pod: <name or hostname>, namespace}`` :class:`FailNode`
``inject``         ``{verb, resource, subresource, namespace, name,         :class:`Inject`
                   nth|times, error: {code, reason, message},
                   delaySeconds}``
``breakWatch``     ``{kind, nth}``                                          :class:`BreakWatch`
``delayDelivery``  ``{kind, nth, delaySeconds}``                            :class:`DelayDelivery`
``clearFaults``    ``true``                                                 :class:`ClearFaults`
=================  =======================================================  =======================

What each models:

- ``failPod``/``completePod``: a container exits (an application error, OOM kill, a finished
  run); ``evictPod``: an eviction (drain, API-initiated); ``deletePod``: ``kubectl delete pod``;
  ``failNode``: a node stops responding (the node lifecycle controller's taints, its pods fail).
- ``inject`` with ``error``: the API server answers a request with that Status (conflicts,
  throttling, webhook or etcd errors); with ``delaySeconds``: the watch events of the matching
  writes reach every watcher late (a lagging watch cache).
- ``breakWatch``: the watch stream of the informers of ``kind`` ends at their ``nth`` next
  event (a dropped connection, an apiserver restart, ``410 Gone``); that event and whatever was
  in flight never arrive on it, and the informer relists as client-go's reflector does (list,
  diff against its cache: ADDED/MODIFIED for what is listed, DELETED for what is gone; then
  watch from the list's resourceVersion). A real watch never loses an event silently: it breaks
  and the reflector relists.
- ``delayDelivery``: the informers of ``kind`` get their ``nth`` next event, and every event
  behind it on the stream (a watch is ordered), ``delaySeconds`` late (a slow consumer or
  network, a busy controller process).

Informers are shared by every simulated component (one process, as in kube-controller-manager),
so a delivery fault delays or breaks the stream for all of them. Losing one event silently while
the stream goes on has no real counterpart and is not in the vocabulary; tests that need it
install ``Informer.intercept`` themselves.

A **pod target** (:class:`PodTarget`) is a pod name (a hostname when no pod has that name) or
``{name | hostname | selector, namespace, all, pick}``. It picks among the matching pods that
can take the fault, in name order: pods whose containers run (``Running``, not being deleted)
for ``failPod``/``completePod``, live pods (not terminal, not being deleted) for
``evictPod``/``deletePod``; the first one (or the ``pick``-th, modulo their number), or all of
them with ``all: true``. No such pod is :class:`NoTarget` (a ``UsageError``).

``inject`` is a :class:`fakekube.Reactor` (API errors or delayed watch delivery); its
``error`` is built by :func:`api_error` (the ``ApiError`` class of the HTTP code). Times are
virtual seconds: a number or a duration text such as ``"1m30s"``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from fakekube import errors
from fakekube._core.clock import parse_duration, seconds
from fakekube.apiserver.faults import Reactor
from fakekube.apiserver.server import WatchEvent
from fakekube.errors import ApiError, UsageError
from fakekube.machinery import selectors

if TYPE_CHECKING:
    from fakekube.cluster import FakeCluster
    from fakekube.runtime.informer import Informer

__all__ = [
    "FAULT_ACTIONS",
    "BreakWatch",
    "ClearFaults",
    "CompletePod",
    "DelayDelivery",
    "DeletePod",
    "EvictPod",
    "FailNode",
    "FailPod",
    "Fault",
    "Inject",
    "NoTarget",
    "PodTarget",
    "api_error",
    "check_keys",
    "is_live",
    "parse_fault",
]

#: The timeline actions :func:`parse_fault` reads.
FAULT_ACTIONS = ("failPod", "completePod", "evictPod", "deletePod", "failNode", "inject", "breakWatch",
                 "delayDelivery", "clearFaults")

_TARGET_KEYS = ("name", "hostname", "selector", "namespace", "all", "pick")
_INJECT_KEYS = ("verb", "resource", "subresource", "namespace", "name", "error", "delaySeconds", "nth", "times")


class NoTarget(UsageError):
    """No pod (or node) matches a fault's target; ``seen`` names the pods the target matched (none were
    running), ``candidates`` the ``(name, hostname)`` of the pods it could have hit (when it matched none)."""

    def __init__(self, message: str, seen: Iterable[str] = (), candidates: Iterable[tuple[str, str]] = ()) -> None:
        super().__init__(message)
        self.seen = list(seen)
        self.candidates = list(candidates)


def _closest(wanted: str, candidates: Iterable[tuple[str, str]]) -> str | None:
    """The pod name or hostname nearest to a mistyped target (difflib's ratio), if any is near."""
    import difflib

    words = sorted({w for pair in candidates for w in pair if w})
    close = difflib.get_close_matches(wanted, words, n=1, cutoff=0.6)
    return close[0] if close else None


def is_live(pod: dict[str, Any]) -> bool:
    """Not being deleted and not terminal (``Succeeded``/``Failed``)."""
    return (not pod["metadata"].get("deletionTimestamp")
            and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"))


def _is_running(pod: dict[str, Any]) -> bool:
    return not pod["metadata"].get("deletionTimestamp") and (pod.get("status") or {}).get("phase") == "Running"


def api_error(code: int | None, message: str, reason: str | None = None) -> ApiError:
    """The ``ApiError`` a server answers with for ``code`` (``409`` → ``Conflict``; ``500`` and unknown
    codes → ``ApiError``), with ``message`` and an optional ``reason`` overriding the class's."""
    classes = {cls.CODE: cls for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, ApiError)}
    cls = classes.get(int(code if code is not None else 500), ApiError)
    return cls(message, code=code, reason=reason)


def check_keys(spec: Any, allowed: Iterable[str], where: str, *, required: Iterable[str] = (),
               error: type[Exception] = UsageError) -> dict[str, Any]:
    """``spec`` as a mapping with only ``allowed`` keys and every ``required`` one, else ``error``
    naming what is wrong at ``where`` (the fault vocabulary's and the scenario format's one check)."""
    if not isinstance(spec, dict):
        raise error(f"{where}: expected a mapping, got {type(spec).__name__} {spec!r}")
    allowed = set(allowed)
    unknown = sorted(set(spec) - allowed)
    if unknown:
        raise error(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; "
                    f"known keys: {', '.join(sorted(allowed))}")
    missing = [k for k in required if k not in spec]
    if missing:
        raise error(f"{where}: missing required key(s) {', '.join(map(repr, missing))}")
    return spec


# ====================================================================== targets


@dataclass(frozen=True, slots=True)
class PodTarget:
    """Which pods a pod fault hits (see the module docstring)."""

    name: str | None = None
    hostname: str | None = None
    selector: str | None = None
    namespace: str = "default"
    all: bool = False
    pick: int = 0

    def __post_init__(self) -> None:
        for key in ("name", "hostname", "selector"):
            value = getattr(self, key)
            if value is not None and not isinstance(value, str):
                raise UsageError(f"a pod target's {key} is a string, got {value!r}")
        if self.selector:
            try:
                selectors.parse_label_selector(self.selector)
            except Exception as err:
                raise UsageError(f"bad label selector {self.selector!r}: {err}") from None
        if not isinstance(self.pick, int) or isinstance(self.pick, bool) or self.pick < 0:
            raise UsageError(f"a pod target's pick is a non-negative int, got {self.pick!r}")

    @classmethod
    def parse(cls, spec: Any, where: str, *, extra: Iterable[str] = ()) -> PodTarget:
        """A pod name or hostname, or a mapping of the target's keys (plus ``extra`` keys the fault reads)."""
        if isinstance(spec, str):
            return cls(name=spec)
        check_keys(spec, (*_TARGET_KEYS, *extra), where)
        return cls(**{k: spec[k] for k in _TARGET_KEYS if k in spec})

    def describe(self) -> dict[str, Any]:
        """The target in its mapping form (only what differs from the defaults)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if getattr(self, f.name) != f.default}

    def pods(self, cluster: FakeCluster, *, running: bool) -> list[dict[str, Any]]:
        """The pods hit, read from storage (injected API faults never hit the harness's own reads)."""
        rt = cluster.api.registry.resolve("pods")
        pods = list(cluster.api.store.list(rt.key, self.namespace))
        if self.selector:
            parsed = selectors.parse_label_selector(self.selector)
            pods = [p for p in pods if parsed.matches((p.get("metadata") or {}).get("labels") or {})]
        if self.name is not None:
            exact = [p for p in pods if p["metadata"]["name"] == self.name]
            pods = exact or [p for p in pods if (p.get("spec") or {}).get("hostname") == self.name]
        if self.hostname is not None:
            pods = [p for p in pods if (p.get("spec") or {}).get("hostname") == self.hostname]
        ready = [p for p in pods if (_is_running(p) if running else is_live(p))]
        if not ready:
            message = f"no {'running' if running else 'live'} pod matches {self.describe()}"
            candidates: list[tuple[str, str]] = []
            if not pods:  # the target matched no pod at all: name the pods it could have meant
                alive = _is_running if running else is_live
                candidates = [(p["metadata"]["name"], (p.get("spec") or {}).get("hostname") or "")
                              for p in cluster.api.store.list(rt.key, self.namespace) if alive(p)]
                wanted = self.name if self.name is not None else self.hostname
                close = _closest(wanted, candidates) if wanted else None
                if close is not None:
                    message += f"; did you mean {close!r}?"
            raise NoTarget(message, [p["metadata"]["name"] for p in pods], candidates)
        return ready if self.all else [ready[self.pick % len(ready)]]


# ====================================================================== faults


class Fault:
    """Something that goes wrong now: ``apply(cluster)`` returns what it did, in one line."""

    def apply(self, cluster: FakeCluster) -> str:  # pragma: no cover - interface
        raise NotImplementedError


class _PodFault(Fault):
    """A fault acting on each pod of a :class:`PodTarget`."""

    target: PodTarget
    running: ClassVar[bool] = False

    def pods(self, cluster: FakeCluster) -> list[dict[str, Any]]:
        return self.target.pods(cluster, running=self.running)

    def act(self, cluster: FakeCluster, pod: dict[str, Any]) -> str:  # pragma: no cover - interface
        raise NotImplementedError

    def apply(self, cluster: FakeCluster) -> str:
        return "; ".join(self.act(cluster, pod) for pod in self.pods(cluster))


@dataclass(frozen=True, slots=True)
class FailPod(_PodFault):
    """The pod's running containers exit with ``exit_code`` (its restartPolicy decides what follows)."""

    target: PodTarget
    exit_code: int = 1
    reason: str = "Error"
    running: ClassVar[bool] = True

    def act(self, cluster: FakeCluster, pod: dict[str, Any]) -> str:
        meta = pod["metadata"]
        cluster.fail_pod(meta["name"], meta["namespace"], exit_code=self.exit_code, reason=self.reason)
        return f"fail-pod {meta['name']} exit={self.exit_code} reason={self.reason}"


@dataclass(frozen=True, slots=True)
class CompletePod(_PodFault):
    """The pod's running containers exit 0."""

    target: PodTarget
    running: ClassVar[bool] = True

    def act(self, cluster: FakeCluster, pod: dict[str, Any]) -> str:
        meta = pod["metadata"]
        cluster.complete_pod(meta["name"], meta["namespace"])
        return f"complete-pod {meta['name']}"


@dataclass(frozen=True, slots=True)
class EvictPod(_PodFault):
    """An eviction (``pods/eviction``) of the pod."""

    target: PodTarget

    def act(self, cluster: FakeCluster, pod: dict[str, Any]) -> str:
        meta = pod["metadata"]
        cluster.evict_pod(meta["name"], meta["namespace"])
        return f"evict-pod {meta['name']}"


@dataclass(frozen=True, slots=True)
class DeletePod(_PodFault):
    """A delete of the pod (graceful, as ``kubectl delete pod``)."""

    target: PodTarget

    def act(self, cluster: FakeCluster, pod: dict[str, Any]) -> str:
        meta = pod["metadata"]
        cluster.delete_pod(meta["name"], meta["namespace"])
        return f"delete-pod {meta['name']}"


@dataclass(frozen=True, slots=True)
class FailNode(Fault):
    """The node stops responding (NotReady, unreachable taints; its pods fail). Give the node's
    ``name``, or a ``pod`` target for the node that pod runs on."""

    name: str | None = None
    pod: PodTarget | None = None

    def __post_init__(self) -> None:
        if (self.name is None) == (self.pod is None):
            raise UsageError("FailNode takes a node name= or a pod= target, one of them")
        if self.name is not None and not isinstance(self.name, str):
            raise UsageError(f"FailNode(name=...) takes a node name, got {self.name!r}")

    def node(self, cluster: FakeCluster) -> str:
        if self.pod is not None:
            pod = self.pod.pods(cluster, running=False)[0]
            node = (pod.get("spec") or {}).get("nodeName")
            if not node:
                raise NoTarget(f"pod {pod['metadata']['name']} is not scheduled on a node")
            return str(node)
        assert self.name is not None
        if cluster.api.store.get(cluster.api.registry.resolve("nodes").key, "", self.name) is None:
            raise NoTarget(f"no node named {self.name!r}",
                           [n["metadata"]["name"] for n in cluster.api.store.list("nodes", None)])
        return self.name

    def apply(self, cluster: FakeCluster) -> str:
        name = self.node(cluster)
        cluster.fail_node(name)
        return f"fail-node {name}"


@dataclass(frozen=True)
class Inject(Fault):
    """Add a copy of ``reactor`` (fresh counters each time) to the API server."""

    reactor: Reactor

    def apply(self, cluster: FakeCluster) -> str:
        r = cluster.inject(dataclasses.replace(self.reactor))
        what = f"error {r.error.code} {r.error.reason}" if r.error is not None else f"delay {r.delay_seconds:g}s"
        when = f" nth={r.nth}" if r.nth is not None else f" x{r.times}" if r.times is not None else ""
        return f"inject {r.verb} {r.resource}{'/' + r.subresource if r.subresource not in (None, '*') else ''} " \
               f"{what}{when}"


class _DeliveryFault(Fault):
    """A fault armed on the informers of ``kind``: it acts on the ``nth`` change event each of
    them delivers after ``apply``. Every event of the stream counts once, when it comes out of
    the stream (events a relist hands out do not count); when a fault armed earlier acts on the
    same event, this one does not."""

    kind: str
    nth: int
    verb: ClassVar[str]

    def _check(self) -> None:
        if not isinstance(self.kind, str) or not self.kind:
            raise UsageError(f"{type(self).__name__}(kind=...) takes a kind or resource name, got {self.kind!r}")
        if not isinstance(self.nth, int) or isinstance(self.nth, bool) or self.nth < 1:
            raise UsageError(f"{type(self).__name__}(nth=...) takes a positive int, got {self.nth!r}")

    def fire(self, cluster: FakeCluster, informer: Informer, event: WatchEvent) -> None:  # pragma: no cover
        raise NotImplementedError

    def apply(self, cluster: FakeCluster) -> str:
        key = cluster.api.registry.resolve(self.kind).key
        informers = cluster.runtime.informers(key)
        if not informers:
            raise NoTarget(f"no informer watches {key}")
        for informer in informers:
            informer.intercept = self._arm(cluster, informer, informer.intercept)
        return f"{self.verb} {key} nth={self.nth}{self.describe_extra()}"

    def describe_extra(self) -> str:
        return ""

    def _arm(self, cluster: FakeCluster, informer: Informer,
             previous: Callable[[WatchEvent], bool] | None) -> Callable[[WatchEvent], bool]:
        seen = 0

        def intercept(event: WatchEvent) -> bool:
            nonlocal seen
            taken = previous is not None and previous(event)
            seen += 1
            if seen != self.nth or taken:  # a fault armed earlier acts on it: this one does not
                return taken
            meta = event.object.get("metadata") or {}
            ref = f"{meta['namespace']}/{meta.get('name')}" if meta.get("namespace") else meta.get("name")
            cluster.trace.add(f"{self.verb} {informer.kind}: {event.type} {ref}{self.describe_extra()}")
            self.fire(cluster, informer, event)
            return True

        return intercept


@dataclass(frozen=True, slots=True)
class BreakWatch(_DeliveryFault):
    """The watch of the informers of ``kind`` breaks at their ``nth`` next event: it is not
    delivered, and each informer relists (list and diff) and watches on."""

    kind: str
    nth: int = 1
    verb: ClassVar[str] = "break-watch"

    def __post_init__(self) -> None:
        self._check()

    def fire(self, cluster: FakeCluster, informer: Informer, event: WatchEvent) -> None:
        informer.relist()


@dataclass(frozen=True, slots=True)
class DelayDelivery(_DeliveryFault):
    """The informers of ``kind`` get their ``nth`` next event, and every event behind it,
    ``seconds`` late."""

    kind: str
    nth: int = 1
    seconds: float = 1.0
    verb: ClassVar[str] = "delay-delivery"

    def __post_init__(self) -> None:
        self._check()
        value = self.seconds
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < float("inf"):
            raise UsageError(f"DelayDelivery(seconds=...) takes a positive number of virtual seconds, got {value!r}")

    def describe_extra(self) -> str:
        return f" {self.seconds:g}s"

    def fire(self, cluster: FakeCluster, informer: Informer, event: WatchEvent) -> None:
        informer.hold(event)
        cluster.loop.call_later(seconds(self.seconds), informer.release, label=f"release {informer.kind}")


@dataclass(frozen=True, slots=True)
class ClearFaults(Fault):
    """Remove every injected reactor and disarm every delivery fault that has not fired (held
    deliveries still arrive when their delay is over)."""

    def apply(self, cluster: FakeCluster) -> str:
        cluster.clear_faults()
        return "clear-faults"


# ====================================================================== the mapping form


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise UsageError(f"{where}: expected an integer, got {value!r}")
    try:
        return int(value)
    except ValueError:
        raise UsageError(f"{where}: expected an integer, got {value!r}") from None


def _reactor(spec: Any) -> Reactor:
    check_keys(spec, _INJECT_KEYS, "inject")
    kwargs: dict[str, Any] = {k: spec[k] for k in ("verb", "resource", "subresource", "namespace", "name", "nth",
                                                   "times") if k in spec}
    if "error" in spec:
        error = check_keys(spec["error"], ("code", "reason", "message"), "inject.error", required=("message",))
        kwargs["error"] = api_error(error.get("code"), error["message"], error.get("reason"))
    if "delaySeconds" in spec:
        try:
            kwargs["delay_seconds"] = parse_duration(spec["delaySeconds"])
        except ValueError as err:
            raise UsageError(f"inject.delaySeconds: {err}") from None
    return Reactor(**kwargs)


def parse_fault(action: str, spec: Any) -> Fault:
    """The fault of one timeline step ``{<action>: <spec>}`` (see the module docstring);
    ``UsageError`` for a malformed spec."""
    if action == "failPod":
        target = PodTarget.parse(spec, action, extra=("exitCode", "reason"))
        opts = spec if isinstance(spec, dict) else {}
        return FailPod(target, exit_code=_int(opts.get("exitCode", 1), "failPod.exitCode"),
                       reason=str(opts.get("reason", "Error")))
    if action == "completePod":
        return CompletePod(PodTarget.parse(spec, action))
    if action == "evictPod":
        return EvictPod(PodTarget.parse(spec, action))
    if action == "deletePod":
        return DeletePod(PodTarget.parse(spec, action))
    if action == "failNode":
        if isinstance(spec, dict):
            check_keys(spec, ("pod", "namespace"), action, required=("pod",))
            return FailNode(pod=PodTarget(name=spec["pod"], namespace=spec.get("namespace", "default")))
        if not isinstance(spec, str):
            raise UsageError(f"failNode takes the name of an existing node or {{pod: <name or hostname>}}, "
                             f"got {spec!r}")
        return FailNode(name=spec)
    if action == "inject":
        return Inject(_reactor(spec))
    if action in ("breakWatch", "delayDelivery"):
        required = ("kind", "delaySeconds") if action == "delayDelivery" else ("kind",)
        check_keys(spec, (*required, "nth"), action, required=required)
        nth = _int(spec.get("nth", 1), f"{action}.nth")
        if action == "breakWatch":
            return BreakWatch(spec["kind"], nth)
        try:
            delay = parse_duration(spec["delaySeconds"])
        except ValueError as err:
            raise UsageError(f"delayDelivery.delaySeconds: {err}") from None
        return DelayDelivery(spec["kind"], nth, delay)
    if action == "clearFaults":
        return ClearFaults()
    raise UsageError(f"unknown fault {action!r}; known: {', '.join(FAULT_ACTIONS)}")
