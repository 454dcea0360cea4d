"""``FakeCluster``: the public harness. It wires the API server, the event loop and the simulated
components, and offers the verbs a test needs.

>>> cluster = FakeCluster(seed=0)
>>> cluster.add_nodes(2)
>>> job = cluster.apply(JOB_YAML)
>>> cluster.run_until(lambda: cluster.get("Job", "pi")["status"].get("succeeded") == 1, timeout=120)

``simulate=False`` gives an API server only, like envtest: no garbage collector, no Job
controller, scheduler, kubelet, DNS or namespace controller (a deleted namespace stays
``Terminating``); a test drives status by hand.

**Virtual time** has one representation at the harness's surface: *virtual seconds as a float*.
An instant counts seconds since the cluster started (``elapsed``, what ``run_until`` returns,
what ``advance_to`` takes); a duration is seconds (``advance``, ``timeout=``, ``script_pods``
durations, ``Reactor(delay_seconds=...)``). Inside, time is integer nanoseconds
(``fakekube.clock.SimTime``): a number going in is rounded to the nearest nanosecond
(``clock.seconds``), and every number coming out is ``clock.to_seconds(ns)``, the float nearest
the exact instant. So instants compare exactly with the decimal a test writes, no
``pytest.approx``::

    assert cluster.run_until(lambda: ..., timeout=120) == 61.01

(exact for runs shorter than about 26 virtual days). ``now`` is the same instant as an aware
``datetime``, for comparing with the timestamps stored in objects. The options of every verb
are keyword-only; positional arguments name the object (kind, name, namespace) or the thing
acted on.

``strict=True`` runs every write of fakekube's own simulators (kubelet, scheduler, Job
controller, DNS, garbage collector, namespace controller) through the API server's whole request
path and raises :class:`~fakekube.errors.StrictModeError` when one builds a body that validation
would reject or defaulting would change; by default (fast) those trusted writes skip the checks
they cannot need. Setting the environment variable ``FAKEKUBE_STRICT=1`` makes every cluster
strict (the project's own test suite does).

**Field validation** of the harness's writes (``apply``, ``create``, ``update``, ``patch``) is
kube-apiserver's: by default ``Warn``, so a field the kind does not declare (a typo such as
``backofLimit``) is dropped with one :class:`~fakekube.ApiWarning` each, worded as kubectl prints
it (``unknown field "spec.replicatedJobs[0].template.spec.backofLimit"``). ``Strict`` rejects the
write instead (a 400 ``BadRequest``, or a 422 for a patch, with kubectl's message), ``Ignore``
drops such fields silently. ``FakeCluster(field_validation=...)`` sets the cluster's default (the
pytest fixtures use ``Strict``); each verb's ``field_validation=`` overrides it for one write.
"""

from __future__ import annotations

import builtins
import functools
import json
import math
import os
import threading
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fakekube._core.clock import SimTime, format_offset, seconds, to_datetime, to_seconds
from fakekube._core.gocompat import go_json_kind
from fakekube._core.jsonutil import brief_repr
from fakekube._core.loop import EventLoop
from fakekube._core.rand import SeedTree
from fakekube._core.trace import Trace
from fakekube._core.version import KUBERNETES_VERSION
from fakekube.apiserver.faults import Reactor
from fakekube.apiserver.field_manager import FIELD_VALIDATIONS
from fakekube.apiserver.kinds import install_builtin_kinds
from fakekube.apiserver.server import ApiServer, WatchEvent
from fakekube.errors import BadRequest, NotFound, UsageError
from fakekube.machinery import patch as patching
from fakekube.machinery import wire
from fakekube.runtime.client import Client
from fakekube.runtime.context import Component, Runtime
from fakekube.runtime.watch_handle import WatchHandle
from fakekube.store import Store

if TYPE_CHECKING:
    from fakekube.http.server import ClusterServer

__all__ = ["FakeCluster"]

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
SYSTEM_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")
STRICT_ENV = "FAKEKUBE_STRICT"  # "1": every FakeCluster is strict (the project's own suite sets it)
DEFAULT_CAPACITY = {"cpu": "32", "memory": "128Gi", "pods": "110"}


def _load_documents(source: Any, depth: int = 0) -> list[dict[str, Any]]:
    """Objects from a dict, a list of dicts, YAML text, or a path to a YAML file; a ``List``
    (``kind: List`` or ``<Kind>List`` with ``items``) stands for its items, as in ``kubectl apply``."""
    if isinstance(source, dict):
        return _list_items(source)
    if isinstance(source, list | tuple):
        if depth >= wire.MAX_DEPTH:
            raise UsageError(f"apply() takes a list of objects; this one holds lists nested more than "
                             f"{wire.MAX_DEPTH} levels deep")
        docs: list[dict[str, Any]] = []
        for item in source:
            docs += _load_documents(item, depth + 1)
        return docs
    if hasattr(source, "to_wire"):
        return [source.to_wire()]
    if hasattr(source, "obj") and callable(source.obj):
        return _load_documents(source.obj())
    if isinstance(source, Path) or (isinstance(source, str) and "\n" not in source and source.endswith((".yaml", ".yml", ".json"))):
        path = Path(source)
        if not path.is_file():
            raise UsageError(f"no such manifest file: {path}")
        source = path.read_text()
    if not isinstance(source, str):
        raise UsageError(f"apply() takes a dict, a list of dicts, YAML text or a path, not {type(source).__name__}")
    import yaml  # lazy: only YAML text needs it (importing PyYAML costs ~20 ms of cold start)

    try:
        loaded = [d for d in wire.load_yaml_documents(source) if d is not None]
    except wire.NotJson as err:
        raise BadRequest(f"error converting YAML to JSON: {err}") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise UsageError(f"malformed YAML{where}: {getattr(err, 'problem', None) or err}") from None
    for doc in loaded:
        if not isinstance(doc, dict):
            raise UsageError(f"every YAML document must be a mapping (an object), got {type(doc).__name__}")
    out: list[dict[str, Any]] = []
    for doc in loaded:
        out += _list_items(doc)
    return out


def _list_items(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The items of a ``List`` (every one an object, checked before any is applied, as kubectl
    decodes the whole List first), or ``[doc]``."""
    kind, items = doc.get("kind"), doc.get("items")
    if not (isinstance(kind, str) and kind.endswith("List") and isinstance(items, list)):
        return [doc]
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise UsageError(f"items[{i}] of the {kind} is not an object (kubectl apply: json: cannot unmarshal "
                             f"{go_json_kind(item)} into Go value of type map[string]interface {{}}); every item "
                             "of a List is an object with apiVersion, kind and metadata")
    return items


def _record_last_applied(obj: dict[str, Any], manifest: str) -> None:
    """kubectl's last-applied annotation, where the object has room for it (metadata or
    annotations of a wrong type are left for the server to refuse)."""
    if obj.get("metadata") is None:
        obj["metadata"] = {}
    meta = obj["metadata"]
    if isinstance(meta, dict):
        if meta.get("annotations") is None:
            meta["annotations"] = {}
        if isinstance(meta["annotations"], dict):
            meta["annotations"][LAST_APPLIED] = manifest


def _last_applied(kind: str, live: dict[str, Any]) -> dict[str, Any]:
    """The configuration the live object was last applied with (``{}`` when it has none).

    A malformed annotation is a :class:`UsageError` that says how to recover: kubectl apply
    cannot compute its patch either (``invalid JSON document``)."""
    meta = live["metadata"]
    text = (meta.get("annotations") or {}).get(LAST_APPLIED)
    if not text:  # absent or empty: kubectl's three-way patch starts from {}
        return {}
    try:
        last = json.loads(text)
    except (ValueError, RecursionError):
        last = text
    if last is None:  # JSON null: no configuration, as kubectl reads it
        return {}
    if isinstance(last, dict):
        return last
    ns = f", {json.dumps(meta['namespace'])}" if meta.get("namespace") else ""
    unset = json.dumps({"metadata": {"annotations": {LAST_APPLIED: None}}}).replace("null", "None")
    raise UsageError(
        f"cannot apply {kind} {meta.get('namespace') + '/' if meta.get('namespace') else ''}{meta['name']}: its "
        f"{LAST_APPLIED} annotation is not a JSON object, so the patch from the last applied configuration cannot "
        f'be computed (kubectl apply fails the same way: "invalid JSON document"). Remove the annotation, '
        f'cluster.patch("{kind}", "{meta["name"]}", {unset}{ns}), or replace the object with cluster.update()')


def _check_text(what: str, value: Any, *, optional: bool = False) -> None:
    """A harness argument that must be a string (or None when ``optional``)."""
    if value is None and optional:
        return
    if not isinstance(value, str):
        kind = "a string or None" if optional else "a string"
        raise UsageError(f"{what} must be {kind}, got {type(value).__name__} {brief_repr(value)}")


def _check_names(kind: Any, name: Any = "", namespace: Any = None) -> None:
    _check_text("the kind", kind)
    _check_text("the name", name)
    _check_text("the namespace", namespace, optional=True)


def _check_mapping(what: str, value: Any, *, values: type | tuple[type, ...] = object) -> None:
    if value is None:
        return
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, values) for k, v in value.items()):
        raise UsageError(f"{what} must be a dict with string keys{'' if values is object else ' and values'} "
                         f"or None, got {brief_repr(value)}")


def _check_int(what: str, value: Any, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{what} must be an int{' or None' if optional else ''}, got {brief_repr(value)}")


#: The values ``field_validation=`` takes (``fieldValidation`` without its empty default).
FIELD_VALIDATION_MODES = tuple(v for v in FIELD_VALIDATIONS if v)


def _check_field_validation(what: str, value: Any) -> str:
    if value not in FIELD_VALIDATION_MODES:
        raise UsageError(f"{what} takes {', '.join(map(repr, FIELD_VALIDATION_MODES))}, got {value!r}")
    return str(value)


def _nanoseconds(value: Any, what: str) -> SimTime:
    """Virtual seconds going in (an int or a float, not negative) as nanoseconds."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value < math.inf:
        raise UsageError(f"{what} a non-negative number of virtual seconds, got {brief_repr(value)}")
    return seconds(value)


class FakeCluster:
    """A deterministic in-memory Kubernetes cluster on a virtual clock."""

    def __init__(self, seed: int = 0, *, simulate: bool = True, shuffle_ties: bool = False,
                 watch_history: int = 10_000, trace: bool = True, check_frozen: bool = False,
                 strict: bool = False, field_validation: str = "Warn") -> None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise UsageError(f"FakeCluster(seed=...) takes an int, got {seed!r}")
        if not isinstance(strict, bool):
            raise UsageError(f"FakeCluster(strict=...) takes True or False, got {strict!r}")
        #: The field validation of the harness's writes that do not name one (see the module doc).
        self.field_validation = _check_field_validation("FakeCluster(field_validation=...)", field_validation)
        self.seed = seed
        self.seeds = SeedTree(seed)
        self.trace = Trace(lambda: self.loop.now, enabled=trace)
        self.loop = EventLoop(self.trace, tie_stream=self.seeds.stream("loop/ties") if shuffle_ties else None)
        self.api = ApiServer(loop=self.loop, trace=self.trace, seeds=self.seeds,
                             store=Store(history_limit=watch_history, check_frozen=check_frozen))
        #: Simulators' writes take the whole request path and must pass it unchanged (see the module doc).
        self.strict = self.api.strict = strict or os.environ.get(STRICT_ENV, "") not in ("", "0")
        install_builtin_kinds(self.api)
        self.runtime = Runtime(self.api, self.loop, self.trace, self.seeds)
        self.client = Client(self.api, user_agent="test")
        for ns in SYSTEM_NAMESPACES:
            self.api.create("namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        self.simulate = simulate
        #: Serialises harness calls, HTTP requests and served clocks against the loop (see serve()).
        self.lock = threading.RLock()
        self._nodes_added = 0
        self.components: dict[str, Component] = {}
        if simulate:
            # Imported here: an API-server-only cluster (simulate=False) never loads the simulators.
            from fakekube.components.dns import Dns
            from fakekube.components.garbage_collector import GarbageCollector
            from fakekube.components.job_controller import JobController
            from fakekube.components.kubelet import Kubelet
            from fakekube.components.namespace_controller import NamespaceController
            from fakekube.components.scheduler import Scheduler

            self.gc = GarbageCollector(self.runtime)
            self.job_controller = JobController(self.runtime)
            self.scheduler = Scheduler(self.runtime)
            self.kubelet = Kubelet(self.runtime)
            self.dns = Dns(self.runtime)
            self.namespace_controller = NamespaceController(self.runtime)
            for component in (self.gc, self.job_controller, self.scheduler, self.kubelet, self.dns,
                              self.namespace_controller):
                self.add_component(component)
        self.run_until_idle()

    # ================================================================== components
    def add_component(self, component: Component) -> Component:
        """Start a component (or a user's controller) on this cluster."""
        if component.name in self.components:
            raise UsageError(f"a component named {component.name!r} is already running on this cluster")
        self.components[component.name] = component
        component.start()
        return component

    def _require_simulation(self, what: str) -> None:
        if not self.simulate:
            raise UsageError(f"{what} needs the simulated kubelet; this cluster was made with simulate=False. "
                             "Use FakeCluster(seed=..., simulate=True), or write pod status with update_status().")

    # ================================================================== time
    @property
    def now(self) -> datetime:
        """The current instant as an aware UTC datetime (to compare with timestamps in objects)."""
        return to_datetime(self.loop.now)

    @property
    def elapsed(self) -> float:
        """The current instant: virtual seconds since the cluster started."""
        return to_seconds(self.loop.now)

    def run_until_idle(self, *, max_steps: int = 1_000_000) -> int:
        """Process everything due now (controllers converge); the clock does not move."""
        return self.loop.run_until_idle(max_steps=max_steps)

    def advance(self, seconds_: float) -> None:
        """Move virtual time forward by ``seconds_``, running everything due on the way."""
        self.loop.advance(_nanoseconds(seconds_, "advance() takes"))
        self.loop.run_until_idle()

    def advance_to(self, instant: float) -> None:
        """Run to the virtual ``instant`` (seconds since start), running everything due on the way."""
        target = _nanoseconds(instant, "advance_to() takes an instant:")
        if target < self.loop.now:
            raise UsageError(f"advance_to({instant!r}) is in the past: the cluster is at t={self.elapsed!r} "
                             f"({format_offset(self.loop.now)})")
        self.loop.run_to(target)
        self.loop.run_until_idle()

    def run_until(self, predicate: Callable[[], bool], *, timeout: float, max_steps: int = 10_000_000) -> float:
        """Advance until ``predicate()`` holds; return the instant it first held (seconds since start).

        Raises ``SimulationError`` (with the trace tail) if it does not hold within ``timeout``
        virtual seconds.
        """
        if not callable(predicate):
            raise UsageError("run_until() takes a callable predicate, e.g. lambda: cluster.get(...)[...]")
        held: SimTime = self.loop.run_until(predicate, timeout=_nanoseconds(timeout, "run_until(timeout=...) takes"),
                                            max_steps=max_steps)
        return to_seconds(held)

    # ================================================================== nodes
    def add_node(self, name: str, *, labels: dict[str, str] | None = None, capacity: dict[str, Any] | None = None,
                 taints: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """Register a Ready node (default capacity: 32 CPU, 128Gi, 110 pods)."""
        _check_text("add_node(): the name", name)
        _check_mapping("add_node(labels=...)", labels, values=str)
        _check_mapping("add_node(capacity=...)", capacity, values=(str, int))
        if taints is not None and (not isinstance(taints, list) or not all(isinstance(t, dict) for t in taints)):
            raise UsageError(f"add_node(taints=...) must be a list of dicts or None, got {brief_repr(taints)}")
        cap = {k: str(v) for k, v in {**DEFAULT_CAPACITY, **(capacity or {})}.items()}
        node = {
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                                                  "kubernetes.io/arch": "amd64", **(labels or {})}},
            "spec": {"taints": list(taints)} if taints else {},
            "status": {"capacity": cap, "allocatable": dict(cap),
                       "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                       "message": "kubelet is posting ready status"}],
                       "addresses": [{"type": "InternalIP", "address": self._node_ip()},
                                     {"type": "Hostname", "address": name}],
                       "nodeInfo": {"kubeletVersion": KUBERNETES_VERSION, "kubeProxyVersion": KUBERNETES_VERSION,
                                    "operatingSystem": "linux", "architecture": "amd64",
                                    "osImage": "fakekube simulated node", "kernelVersion": "fakekube",
                                    "containerRuntimeVersion": "fakekube://1.0.0", "machineID": "",
                                    "systemUUID": "", "bootID": ""}},
        }
        return self.api.create("nodes", node)

    def _node_ip(self) -> str:
        """InternalIPs in registration order; never reused, even after a node is removed."""
        self._nodes_added += 1
        n = self._nodes_added
        return f"10.0.{n // 250}.{n % 250 + 1}"

    def add_nodes(self, count: int, *, name_prefix: str = "node", labels: dict[str, str] | None = None,
                  capacity: dict[str, Any] | None = None, taints: builtins.list[dict[str, Any]] | None = None
                  ) -> builtins.list[dict[str, Any]]:
        """Register ``count`` nodes named ``<prefix>-0`` … ``<prefix>-<count-1>``."""
        if not isinstance(count, int) or count < 0:
            raise UsageError(f"add_nodes() takes a non-negative count, got {count!r}")
        _check_text("add_nodes(name_prefix=...)", name_prefix)
        return [self.add_node(f"{name_prefix}-{i}", labels=labels, capacity=capacity, taints=taints) for i in range(count)]

    # ================================================================== API verbs
    def apply(self, obj_or_yaml: Any, *, namespace: str | None = None, field_validation: str | None = None) -> Any:
        """Create each object, or update it if it exists (client-side apply, as kubectl does).

        Returns the stored object, or a list when the input held several documents.
        ``field_validation`` (default: the cluster's, ``Warn`` unless ``FakeCluster(field_validation=...)``
        says otherwise): ``Strict`` rejects unknown fields as ``kubectl apply`` does by default,
        ``Warn`` issues an :class:`~fakekube.ApiWarning` each, ``Ignore`` drops them silently. A key
        repeated in YAML text keeps its last value and is not reported, as ``kubectl apply -f``
        converts YAML on the client and sends no duplicate.
        """
        _check_text("apply(namespace=...)", namespace, optional=True)
        docs = _load_documents(obj_or_yaml)
        field_validation = self._field_validation(field_validation)
        results = [self._apply_one(doc, namespace, field_validation) for doc in docs]
        self.run_until_idle()
        return results[0] if len(results) == 1 else results

    def _apply_one(self, doc: dict[str, Any], namespace: str | None, field_validation: str | None
                   ) -> dict[str, Any]:
        rt = self.api.registry.for_object(doc)
        try:
            wire.check_json(doc)
        except wire.NotJson as err:
            raise BadRequest(f"the {rt.kind} is not a JSON object: {err}") from None
        meta = doc.get("metadata") or {}
        if not isinstance(meta, dict):
            raise BadRequest(f"metadata of a {rt.kind} must be an object")
        name, sent_ns = meta.get("name"), meta.get("namespace")
        # A name or namespace that is not a string is the create's decoding error (400, as kube-apiserver).
        ns = namespace or (sent_ns if isinstance(sent_ns, str) else None) or ("default" if rt.namespaced else None)
        manifest = json.dumps(doc, sort_keys=True, separators=(",", ":"))
        if isinstance(name, str) and name and (sent_ns is None or isinstance(sent_ns, str)):
            try:
                live = self.api.get(rt, name, ns)
            except NotFound:
                live = None
            if live is not None:
                last = _last_applied(rt.kind, live)
                patch = patching.create_merge_patch(last, doc)
                _record_last_applied(patch, manifest)
                return self.client.patch(rt.key, name, patch, ns, patch_type="merge",
                                         field_validation=field_validation)
        body = json.loads(manifest)
        _record_last_applied(body, manifest)
        return self.client.create(body, namespace=ns, field_validation=field_validation)

    def _field_validation(self, given: str | None) -> str:
        """A write's field validation: the one it names, else the cluster's default."""
        return self.field_validation if given is None else given

    def create(self, obj: dict[str, Any], *, namespace: str | None = None,
               field_validation: str | None = None) -> dict[str, Any]:
        """Create ``obj`` (``field_validation``: as :meth:`apply`)."""
        _check_text("create(namespace=...)", namespace, optional=True)
        result = self.client.create(obj, namespace=namespace,
                                    field_validation=self._field_validation(field_validation))
        self.run_until_idle()
        return result

    def update(self, obj: dict[str, Any], *, field_validation: str | None = None) -> dict[str, Any]:
        """Replace ``obj`` (``field_validation``: as :meth:`apply`)."""
        result = self.client.update(obj, field_validation=self._field_validation(field_validation))
        self.run_until_idle()
        return result

    def update_status(self, obj: dict[str, Any]) -> dict[str, Any]:
        result = self.client.update_status(obj)
        self.run_until_idle()
        return result

    def get(self, kind: str, name: str, namespace: str = "default") -> dict[str, Any]:
        _check_names(kind, name, namespace)
        return self.client.get(kind, name, namespace)

    def list(self, kind: str, namespace: str | None = None, *, label_selector: str | None = None,
             field_selector: str | None = None) -> list[dict[str, Any]]:
        _check_names(kind, "", namespace)
        _check_text("label_selector", label_selector, optional=True)
        _check_text("field_selector", field_selector, optional=True)
        return self.client.list(kind, namespace, label_selector=label_selector, field_selector=field_selector)

    def table(self, kind: str, namespace: str | None = None, *, label_selector: str | None = None
              ) -> dict[str, Any]:
        """What ``kubectl get KIND`` receives: the API server's ``meta.k8s.io/v1`` ``Table`` of the
        objects of ``kind`` (in ``namespace``, or in all), with the server's columns (kubectl's
        printers for built-in kinds, a CRD's ``additionalPrinterColumns`` for custom resources;
        ``priority`` 1 columns are the ``-o wide`` ones) and ages on the virtual clock. Rows carry
        the objects' metadata (``includeObject=Metadata``)."""
        from fakekube.http import tables
        from fakekube.http.custom_resources import crd_for

        _check_names(kind, "", namespace)
        _check_text("label_selector", label_selector, optional=True)
        rt = self.api.registry.resolve(kind)
        items = self.client.list(kind, namespace, label_selector=label_selector)
        return tables.table(rt, items, now=self.loop.now, crd=crd_for(self.api, rt))

    def patch(self, kind: str, name: str, patch: Any, namespace: str = "default", *, patch_type: str = "merge",
              subresource: str | None = None, field_validation: str | None = None) -> dict[str, Any]:
        """Patch one object (``field_validation``: as :meth:`apply`; Strict's rejection of a patch is a 422)."""
        _check_names(kind, name, namespace)
        _check_text("patch_type (merge, json, strategic, apply or a media type)", patch_type)
        _check_text("subresource", subresource, optional=True)
        _check_text("field_validation (Strict, Warn or Ignore)", field_validation, optional=True)
        result = self.client.patch(kind, name, patch, namespace, patch_type=patch_type, subresource=subresource,
                                   field_validation=self._field_validation(field_validation))
        self.run_until_idle()
        return result

    def delete(self, kind: str, name: str, namespace: str | None = "default", *,
               propagation_policy: str | None = None, grace_period_seconds: int | None = None) -> dict[str, Any]:
        _check_names(kind, name, namespace)
        _check_text("propagation_policy (Orphan, Background or Foreground)", propagation_policy, optional=True)
        _check_int("grace_period_seconds", grace_period_seconds, optional=True)
        result = self.client.delete(kind, name, namespace, propagation_policy=propagation_policy,
                                    grace_period_seconds=grace_period_seconds)
        self.run_until_idle()
        return result

    def watch(self, kind: str, namespace: str | None = None, *, resource_version: str | None = None,
              label_selector: str | None = None, field_selector: str | None = None) -> WatchStream:
        """A watch whose events collect in ``.events`` (delivered as the loop runs)."""
        _check_names(kind, "", namespace)
        _check_text("resource_version", resource_version, optional=True)
        _check_text("label_selector", label_selector, optional=True)
        _check_text("field_selector", field_selector, optional=True)
        return WatchStream(self.client, kind, namespace, resource_version, label_selector, field_selector)

    def exists(self, kind: str, name: str, namespace: str = "default") -> bool:
        _check_names(kind, name, namespace)
        try:
            self.client.get(kind, name, namespace)
        except NotFound:
            return False
        return True

    # ================================================================== events and faults
    def events(self, involved: dict[str, Any] | None = None, *, reason: str | None = None,
               namespace: str | None = None, kind: str | None = None, name: str | None = None
               ) -> builtins.list[dict[str, Any]]:
        """Recorded core/v1 Events, oldest first, optionally about one object or with one reason."""
        if involved is not None and not (isinstance(involved, dict) and isinstance(involved.get("metadata"), dict)):
            raise UsageError(f"events(involved) takes an object (a dict with metadata) or None, "
                             f"got {brief_repr(involved)}")
        for what, value in (("reason", reason), ("namespace", namespace), ("kind", kind), ("name", name)):
            _check_text(f"events({what}=...)", value, optional=True)
        items = self.client.list("events", namespace)
        out = []
        for ev in items:
            io = ev.get("involvedObject") or {}
            if involved is not None and io.get("uid") != involved["metadata"].get("uid"):
                continue
            if reason is not None and ev.get("reason") != reason:
                continue
            if kind is not None and io.get("kind") != kind:
                continue
            if name is not None and io.get("name") != name:
                continue
            out.append(ev)
        out.sort(key=lambda e: (e.get("firstTimestamp") or "", int(e["metadata"]["resourceVersion"])))
        return out

    def inject(self, reactor: Reactor | None = None, **kwargs: Any) -> Reactor:
        """Add a fault reactor, ``cluster.inject(Reactor(verb=..., resource=..., error=... or
        delay_seconds=...))``; returns it (its ``matched``/``fired`` counters) for inspection.

        A kind or short name in ``reactor.resource`` (``Job``, ``jobs``) is replaced by the
        resource's full name (``jobs.batch``), the name requests carry.
        """
        if kwargs or not isinstance(reactor, Reactor):
            if kwargs:
                given = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
                hint = f"write cluster.inject(Reactor({given}))"
            else:
                hint = f"got {reactor!r}"
            raise UsageError(f"inject() takes one Reactor: {hint} (from fakekube import Reactor; "
                             "a delay is delay_seconds=..., in virtual seconds)")
        if reactor.resource != "*":
            reactor.resource = self.api.registry.resolve(reactor.resource).key
        self.api.reactors.append(reactor)
        return reactor

    def clear_faults(self) -> None:
        """Remove every injected reactor and disarm the delivery faults (``fakekube.faults``)
        that have not fired; deliveries already held still arrive when their delay is over."""
        self.api.reactors.clear()
        for informer in self.runtime.informers():
            informer.intercept = None

    # ================================================================== workload actions
    def fail_pod(self, name: str, namespace: str = "default", *, exit_code: int = 1, reason: str = "Error") -> None:
        """The pod's containers exit now with ``exit_code`` (restartPolicy decides what follows)."""
        self._require_simulation("fail_pod()")
        _check_names("Pod", name, namespace)
        _check_int("fail_pod(exit_code=...)", exit_code)
        _check_text("fail_pod(reason=...)", reason)
        self.kubelet.fail_pod(name, namespace, exit_code=exit_code, reason=reason)
        self.run_until_idle()

    def complete_pod(self, name: str, namespace: str = "default") -> None:
        """The pod's containers exit 0 now."""
        self._require_simulation("complete_pod()")
        _check_names("Pod", name, namespace)
        self.kubelet.complete_pod(name, namespace)
        self.run_until_idle()

    def delete_pod(self, name: str, namespace: str = "default", *, grace_period_seconds: int | None = None) -> None:
        self.delete("pods", name, namespace, grace_period_seconds=grace_period_seconds)

    def evict_pod(self, name: str, namespace: str = "default") -> None:
        _check_names("Pod", name, namespace)
        self.client.evict(name, namespace)
        self.run_until_idle()

    def fail_node(self, name: str) -> None:
        """The node goes NotReady; its pods fail with a DisruptionTarget condition."""
        self._require_simulation("fail_node()")
        _check_text("fail_node(): the name", name)
        self.kubelet.fail_node(name)
        self.run_until_idle()

    def remove_node(self, name: str) -> None:
        self.delete("nodes", name, None)

    def script_pods(self, label_selector: str, *, duration: float | None = None, exit_code: int = 0,
                    ready_after: float | None = None, reason: str | None = None) -> None:
        """Script pods matching ``label_selector`` (created from now on): run ``duration`` s, then exit."""
        self._require_simulation("script_pods()")
        _check_text("script_pods(label_selector)", label_selector)
        self.kubelet.script_pods(label_selector, duration=duration, exit_code=exit_code,
                                 ready_after=ready_after, reason=reason)

    # ================================================================== HTTP
    def serve(self, *, host: str = "127.0.0.1", port: int = 0, clock: str = "manual", speed: float = 1.0,
              quiet_ms: float = 50.0, kubeconfig: str | Path | None = None,
              tls: bool = True) -> ClusterServer[FakeCluster]:
        """Serve this cluster over HTTP to real clients; use as a context manager.

        ``port=0`` picks a free port. ``clock``: ``manual`` (time moves only when the test calls
        ``advance``/``run_until``), ``realtime`` (``speed`` virtual seconds per wall second) or
        ``quiescent`` (time jumps to the next due event once no request came for ``quiet_ms``
        wall milliseconds). ``kubeconfig`` is where to write the kubeconfig (default: a
        temporary file removed on close). ``tls``: serve HTTPS with a CA drawn for this server
        (default, as kube-apiserver; the kubeconfig trusts it), or plain HTTP with ``tls=False``.
        """
        from fakekube.http.server import ClusterServer

        return ClusterServer(self, host=host, port=port, clock=clock, speed=speed, quiet_ms=quiet_ms,
                             kubeconfig=kubeconfig, tls=tls)

    def __repr__(self) -> str:
        return f"<FakeCluster seed={self.seed} t={self.elapsed:g}s simulate={self.simulate}>"


def _serialized(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def locked(self: FakeCluster, *args: Any, **kwargs: Any) -> Any:
        with self.lock:
            return method(self, *args, **kwargs)

    return locked


# Every public verb of the harness runs under the cluster lock, so a test thread can call them
# while the cluster is served (HTTP handler threads and served clocks take the same lock). The
# lock is re-entrant and uncontended when nothing is served.
for _name, _member in list(vars(FakeCluster).items()):
    if not _name.startswith("_") and _name != "serve" and callable(_member) and not isinstance(_member, property):
        setattr(FakeCluster, _name, _serialized(_member))
del _name, _member


#: Events a :class:`WatchStream` keeps before the server ends it, as kube-apiserver ends a watch
#: whose client does not keep up.
MAX_WATCH_EVENTS = 10_000


class WatchStream:
    """A user-facing watch: events collect in ``events`` as the loop delivers them.

    A stream holds at most :data:`MAX_WATCH_EVENTS` events: the next one ends it, as
    kube-apiserver closes the watch of a client that does not keep up (``closed`` is True; a real
    client would list and watch again)."""

    def __init__(self, client: Client, kind: str, namespace: str | None, resource_version: str | None,
                 label_selector: str | None, field_selector: str | None) -> None:
        self.events: list[WatchEvent] = []
        self.closed = False
        self._watch: WatchHandle = client.watch(kind, self._deliver, namespace=namespace,
                                                resource_version=resource_version,
                                                label_selector=label_selector, field_selector=field_selector)

    def _deliver(self, event: WatchEvent) -> None:
        if self.closed:
            return
        if len(self.events) >= MAX_WATCH_EVENTS:
            self.closed = True
            self._watch.stop()
            return
        self.events.append(event)

    def stop(self) -> None:
        self._watch.stop()

    def __iter__(self) -> Iterator[WatchEvent]:
        return iter(list(self.events))

    def types(self) -> list[str]:
        return [e.type for e in self.events]

