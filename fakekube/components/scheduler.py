"""The kube-scheduler subset a JobSet can observe (``spec/kubernetes.md`` §4), built to scale.

Filters, in upstream order (the first failing filter gives a node its reason, as
``RunFilterPlugins`` does): ``NodeUnschedulable`` (``node(s) were unschedulable``),
``TaintToleration`` (NoSchedule/NoExecute; ``node(s) had untolerated taint {<key>: <value>}``),
``NodeAffinity`` (``nodeSelector`` + required node affinity with In/NotIn/Exists/DoesNotExist/
Gt/Lt and ``matchFields`` on ``metadata.name``; ``node(s) didn't match Pod's node
affinity/selector``), ``NodeResourcesFit`` (``Too many pods`` and one ``Insufficient <resource>``
per short resource: cpu, memory, ephemeral-storage, extended resources such as
``nvidia.com/gpu`` and ``google.com/tpu``; requests = max(init, sum(app) + sidecars) +
overhead, limits stand in for missing requests) and ``InterPodAffinity`` (required terms with
``topologyKey``, ``namespaces``/``namespaceSelector``, ``matchLabelKeys``/``mismatchLabelKeys``,
the "first pod of a self-affine group" rule, and the symmetric check of existing pods'
anti-affinity). Pods counted on a node are the bound pods that are not ``Succeeded``/``Failed``
(terminating pods still count).

Queue: pods with ``spec.schedulingGates`` are never queued (the API server already wrote
``PodScheduled=False/SchedulingGated``); removing the last gate queues the pod. Pods are taken
highest ``spec.priority`` first, then in the order they became schedulable. A pod that becomes
schedulable is attempted ``SCHEDULING_DELAY`` (10 ms of virtual time) later; all pods due at the
same instant are scheduled in one cycle, each seeing the previous ones' placements.

Choice: among feasible nodes, the highest *free-fraction* score wins, ties broken by node name.
The score is ``(allocatable - requested) / allocatable`` of cpu plus that of memory, in parts per
million, with upstream's non-zero defaults (100m cpu, 200Mi memory per container without a
request) so that best-effort pods spread. It does not depend on the pod, so the nodes are kept
in sorted orders by *node key* ``(-score, name)`` and a pod walks an order until the first
feasible node, which is exactly the feasible node with the smallest key. That is usually the
first node looked at: a node that took a pod scores lower than its empty peers and sinks. Each
order is built the first time a pod needs it and kept up to date from then on:

- all nodes (``_order``), for pods without a better one;
- per label ``(key, value)``, the nodes carrying it (``_label_orders``): a pod whose
  ``nodeSelector`` (or required node affinity ``In`` terms) allows few nodes walks only those,
  merging the orders of the labels it allows;
- per topology key, its domains by their first node key (``_domains``): a pod with
  anti-affinity on that key (exclusive placement) walks the nodes domain by domain, merging the
  domains' orders and passing over whole domains that hold a pod it must avoid without looking
  at their nodes. Domains holding a pod whose anti-affinity term is on that key ("guarded":
  with exclusive placement, every taken domain) are not in that order at all; an index of
  those terms names the few guarded domains the pod may use (a term there fails to match it).

So the multislice shape (leaders with exclusive placement, then followers pinned to their
leader's pool) costs O(log n) per pod, however many pools and nodes there are. Inter-pod
(anti-)affinity keeps, per topology domain ``(key, value)``, the bound pods there (and those
carrying anti-affinity terms), so a check looks at one domain's pods, memoised per scheduling
attempt.

Binding: ``POST pods/<pod>/binding``, then a ``Normal Scheduled`` event ``Successfully assigned
<ns>/<pod> to <node>`` from ``default-scheduler``. A pod that fits nowhere gets
``PodScheduled=False/Unschedulable`` with the ``FitError`` text of Kubernetes 1.34 and a
``Warning FailedScheduling`` event with the same text::

    0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu.
    no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful
    for scheduling, 2 No preemption victims found for incoming pod..

(one line; the histogram is sorted as strings; ``no new claims to deallocate, `` is the
DynamicResources post-filter of 1.34 and the doubled final period is what ``FitError.Error``
produces around the preemption text.) With no nodes at all the message is ``no nodes available
to schedule pods``. Unschedulable pods are retried only when something that could help happens
(a node is added or changes; a bound pod is deleted or finishes; a pod is bound, for pods with
required pod affinity; the pod itself changes), no earlier than upstream's per-pod backoff
(1 s doubling to 10 s after the last attempt).

Not modelled: preemption itself (the message is computed as if no victim could help: nodes
failing only on resources or anti-affinity report ``No preemption victims found for incoming
pod``), nominatedNodeName, soft (preferred) affinity and taints, pod topology spread, ports,
volumes, DRA, the 5-minute unschedulable flush, scheduler extenders and profiles, pods that name
another ``schedulerName`` (ignored), and the PreFilter form of ``matchFields`` (treated as an
ordinary filter).
"""

from __future__ import annotations

import functools
import heapq
import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sortedcontainers import SortedList

from fakekube._core.clock import MILLISECOND, SECOND, SimTime, format_time
from fakekube._core.jsonutil import deep_copy
from fakekube._core.multimap import discard
from fakekube.apiserver.kinds.pods import set_condition
from fakekube.errors import ApiError, Conflict, Forbidden, NotFound
from fakekube.machinery import selectors as sel
from fakekube.machinery.quantity import milli_value, value_of
from fakekube.runtime.context import Runtime
from fakekube.runtime.events import NORMAL, WARNING

__all__ = [
    "DEFAULT_SCHEDULER_NAME",
    "INITIAL_BACKOFF",
    "MAX_BACKOFF",
    "SCHEDULING_DELAY",
    "Scheduler",
]

DEFAULT_SCHEDULER_NAME = "default-scheduler"
SCHEDULING_DELAY: SimTime = 10 * MILLISECOND
INITIAL_BACKOFF: SimTime = 1 * SECOND
MAX_BACKOFF: SimTime = 10 * SECOND
DEFAULT_MILLI_CPU = 100
DEFAULT_MEMORY = 200 * 1024 * 1024
SMALL_POOL_FRACTION = 4  # a pod with anti-affinity walks its pool, not the domains, when the pool
# holds at most 1/4 of the nodes

R_UNSCHEDULABLE = "node(s) were unschedulable"
R_AFFINITY = "node(s) didn't match Pod's node affinity/selector"
R_TOO_MANY_PODS = "Too many pods"
R_POD_AFFINITY = "node(s) didn't match pod affinity rules"
R_POD_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
R_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
R_NOT_HELPFUL = "Preemption is not helpful for scheduling"
R_NO_VICTIMS = "No preemption victims found for incoming pod"
NO_NODES = "no nodes available to schedule pods"
DRA_POST_FILTER = "no new claims to deallocate"
PREEMPT_NEVER = "not eligible due to preemptionPolicy=Never."
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"

PodKey = tuple[str, str]
Pair = tuple[str, str]
NodeKey = tuple[int, str]  # (-score, name): the scheduler's preference order, best first


# ====================================================================== pod facts
def _quantity(name: str, text: Any) -> int:
    return _parse_quantity("cpu" if name == "cpu" else "", str(text))


@functools.lru_cache(maxsize=4096)
def _parse_quantity(kind: str, text: str) -> int:
    try:
        return milli_value(text) if kind == "cpu" else value_of(text)
    except (ValueError, ArithmeticError):
        return 0


def _container_requests(c: dict[str, Any]) -> dict[str, int]:
    res = c.get("resources") or {}
    requests = dict(res.get("limits") or {})
    requests.update(res.get("requests") or {})
    return {k: _quantity(k, v) for k, v in requests.items()}


def pod_requests(spec: dict[str, Any]) -> dict[str, int]:
    """Effective pod request per resource (cpu in millicores), as ``resourcehelper.PodRequests``."""
    total: dict[str, int] = {}
    for c in spec.get("containers") or []:
        for k, v in _container_requests(c).items():
            total[k] = total.get(k, 0) + v
    sidecars: dict[str, int] = {}
    init_max: dict[str, int] = {}
    for c in spec.get("initContainers") or []:
        req = _container_requests(c)
        if c.get("restartPolicy") == "Always":
            for k, v in req.items():
                sidecars[k] = sidecars.get(k, 0) + v
            current = sidecars
        else:
            current = {k: sidecars.get(k, 0) + req.get(k, 0) for k in set(sidecars) | set(req)}
        for k, v in current.items():
            init_max[k] = max(init_max.get(k, 0), v)
    for k, v in sidecars.items():
        total[k] = total.get(k, 0) + v
    for k, v in init_max.items():
        total[k] = max(total.get(k, 0), v)
    for k, v in (spec.get("overhead") or {}).items():
        total[k] = total.get(k, 0) + _quantity(k, v)
    return {k: v for k, v in total.items() if v}


def _nonzero(spec: dict[str, Any]) -> tuple[int, int]:
    """Cpu and memory with upstream's per-container defaults (``GetNonzeroRequests``), for scores."""
    cpu = mem = 0
    for c in spec.get("containers") or []:
        req = _container_requests(c)
        cpu += req.get("cpu") or DEFAULT_MILLI_CPU
        mem += req.get("memory") or DEFAULT_MEMORY
    return cpu, mem


def _is_terminal(pod: dict[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def _tolerates(tolerations: list[dict[str, Any]], taint: dict[str, Any]) -> bool:
    """``v1helper.TolerationsTolerateTaint``."""
    for t in tolerations:
        if t.get("effect") and t.get("effect") != taint.get("effect"):
            continue
        if t.get("key") and t.get("key") != taint.get("key"):
            continue
        op = t.get("operator") or "Equal"
        if op == "Exists" or (op == "Equal" and (t.get("value") or "") == (taint.get("value") or "")):
            return True
    return False


def _node_expression_matches(expr: dict[str, Any], value: str | None) -> bool:
    op, values = expr.get("operator"), expr.get("values") or []
    if op == "In":
        return value is not None and value in values
    if op == "NotIn":
        return value is None or value not in values
    if op == "Exists":
        return value is not None
    if op == "DoesNotExist":
        return value is None
    if op in ("Gt", "Lt"):
        if value is None or len(values) != 1:
            return False
        try:
            have, want = int(value), int(values[0])
        except ValueError:
            return False
        return have > want if op == "Gt" else have < want
    return False


def _node_term_matches(term: dict[str, Any], name: str, labels: dict[str, str]) -> bool:
    exprs, fields = term.get("matchExpressions") or [], term.get("matchFields") or []
    if not exprs and not fields:
        return False
    for expr in exprs:
        if not _node_expression_matches(expr, labels.get(expr.get("key", ""))):
            return False
    for f in fields:
        if f.get("key") != "metadata.name" or not _node_expression_matches(f, name):
            return False
    return True


@dataclass(slots=True)
class _Term:
    """A required pod (anti-)affinity term, resolved against the pod that carries it."""

    selector: sel.LabelSelector
    topology_key: str
    namespaces: frozenset[str]
    ns_selector: sel.LabelSelector | None

    def matches(self, namespace: str, labels: dict[str, str], ns_labels: dict[str, dict[str, str]]) -> bool:
        if namespace not in self.namespaces:
            if self.ns_selector is None or not self.ns_selector.matches(ns_labels.get(namespace) or {}):
                return False
        return self.selector.matches(labels)


def _terms(pod: dict[str, Any], kind: str) -> list[_Term]:
    affinity = ((pod.get("spec") or {}).get("affinity") or {}).get(kind) or {}
    raw = affinity.get("requiredDuringSchedulingIgnoredDuringExecution") or []
    meta = pod["metadata"]
    labels = meta.get("labels") or {}
    out = []
    for t in raw:
        try:
            selector = sel.selector_from_label_selector_dict(t.get("labelSelector"))
            extra = []
            if not selector.matches_nothing:
                for key in t.get("matchLabelKeys") or []:
                    if key in labels:
                        extra.append(sel.Requirement(key, sel.Operator.IN, (labels[key],)))
                for key in t.get("mismatchLabelKeys") or []:
                    if key in labels:
                        extra.append(sel.Requirement(key, sel.Operator.NOT_IN, (labels[key],)))
            if extra:
                selector = sel.LabelSelector.of([*selector.requirements, *extra])
            ns_sel_raw = t.get("namespaceSelector")
            ns_selector = None if ns_sel_raw is None else sel.selector_from_label_selector_dict(ns_sel_raw)
        except (ValueError, ApiError):
            selector, ns_selector = sel.NOTHING, None
        names = frozenset(t.get("namespaces") or ())
        if not names and ns_selector is None:
            names = frozenset({meta.get("namespace") or "default"})
        out.append(_Term(selector, t.get("topologyKey") or "", names, ns_selector))
    return out


TermId = tuple[PodKey, int]  # a bound pod's anti-affinity term: (pod, index in its terms)
_FAILS_BY_LABEL = (sel.Operator.NOT_IN, sel.Operator.NOT_EQUALS)


@dataclass(slots=True)
class _Guards:
    """The bound pods' anti-affinity terms on one topology key, by domain: a domain holding such a
    term is closed to every pod the term matches (``existing pods anti-affinity``). Indexed to
    find, for a pod, the domains where *every* term fails to match it, without evaluating them all.

    A term fails a pod when the pod is outside the term's namespaces, when its selector matches
    nothing, or when the pod fails one of its requirements. ``k notin (v, ...)`` and ``k != v``
    fail exactly the pods labelled ``k=v``, so those are found from the pod's labels; the other
    requirements and the namespace scopes repeat across terms (exclusive placement gives every
    term the same ``Exists`` and priority requirements), so each distinct one is evaluated once.
    """

    terms: dict[str, int] = field(default_factory=dict)  # domain -> number of terms there
    # condition -> the terms it is part of -> their domain. A requirement of None stands for a
    # selector that matches nothing.
    by_label: dict[Pair, dict[TermId, str]] = field(default_factory=dict)
    by_requirement: dict[sel.Requirement | None, dict[TermId, str]] = field(default_factory=dict)
    by_scope: dict[tuple[frozenset[str], sel.LabelSelector | None], dict[TermId, str]] = \
        field(default_factory=dict)

    def _conditions(self, term: _Term) -> Iterator[tuple[dict[Any, dict[TermId, str]], Any]]:
        yield self.by_scope, (term.namespaces, term.ns_selector)
        if term.selector.matches_nothing:
            yield self.by_requirement, None
        for r in term.selector.requirements:
            if r.operator in _FAILS_BY_LABEL:
                for value in r.values:
                    yield self.by_label, (r.key, value)
            else:
                yield self.by_requirement, r

    def add(self, term_id: TermId, term: _Term, domain: str) -> None:
        self.terms[domain] = self.terms.get(domain, 0) + 1
        for index, condition in self._conditions(term):
            index.setdefault(condition, {})[term_id] = domain

    def remove(self, term_id: TermId, term: _Term, domain: str) -> None:
        left = self.terms[domain] - 1
        if left:
            self.terms[domain] = left
        else:
            del self.terms[domain]
        for index, condition in self._conditions(term):
            discard(index, condition, term_id)

    def open_to(self, namespace: str, labels: dict[str, str], ns_labels: dict[str, dict[str, str]]) -> set[str]:
        """The domains where every term fails to match a pod in ``namespace`` with ``labels``."""
        failing: dict[TermId, str] = {}
        for pair in labels.items():
            failing.update(self.by_label.get(pair, {}))
        for r, terms in self.by_requirement.items():
            if r is None or not r.matches(labels):
                failing.update(terms)
        for (names, ns_selector), terms in self.by_scope.items():
            if namespace not in names and \
                    (ns_selector is None or not ns_selector.matches(ns_labels.get(namespace) or {})):
                failing.update(terms)
        failed: dict[str, int] = {}
        for domain in failing.values():
            failed[domain] = failed.get(domain, 0) + 1
        return {domain for domain, n in failed.items() if n == self.terms[domain]}


@dataclass(slots=True)
class _Domains:
    """The domains of one topology key, kept for pods with anti-affinity on that key.

    ``order`` lists ``(first node key, value)`` of the *unguarded* domains (no bound pod there
    has an anti-affinity term on the key), best first; guarded domains are left out, as most
    pods may not use them (``guards`` finds the ones a pod may). ``listed`` is where each
    listed domain sits in ``order``; domains in ``stale`` (a node, its key or a guard changed)
    are re-listed before the next look, so a domain filling up node after node moves once per
    look, not once per pod.
    """

    guards: _Guards = field(default_factory=_Guards)
    order: SortedList = field(default_factory=SortedList)
    listed: dict[str, NodeKey] = field(default_factory=dict)
    stale: dict[str, None] = field(default_factory=dict)


@dataclass(slots=True)
class _PodInfo:
    """A bound, non-terminal pod as the scheduler accounts it."""

    key: PodKey
    uid: str
    labels: dict[str, str]
    node: str
    requests: dict[str, int]
    nonzero: tuple[int, int]
    priority: int
    anti_terms: list[_Term]


@dataclass(slots=True)
class _NodeInfo:
    name: str
    labels: dict[str, str]
    taints: list[dict[str, Any]]
    unschedulable: bool
    allocatable: dict[str, int]
    requested: dict[str, int] = field(default_factory=dict)
    nonzero_cpu: int = 0
    nonzero_mem: int = 0
    pod_count: int = 0
    key: NodeKey = (0, "")  # order_key() as of the last change of the node's usage

    def order_key(self) -> NodeKey:
        cpu, mem = self.allocatable.get("cpu", 0), self.allocatable.get("memory", 0)
        score = 0
        if cpu > 0:
            score += max(0, cpu - self.nonzero_cpu) * 1_000_000 // cpu
        if mem > 0:
            score += max(0, mem - self.nonzero_mem) * 1_000_000 // mem
        return (-score, self.name)


@dataclass(slots=True)
class _Attempt:
    """What one scheduling attempt of one pod knows (upstream's CycleState)."""

    pod: dict[str, Any]
    namespace: str
    labels: dict[str, str]
    requests: dict[str, int]
    tolerations: list[dict[str, Any]]
    node_selector: dict[str, str]
    required_terms: list[dict[str, Any]] | None
    affinity_terms: list[_Term]
    anti_terms: list[_Term]
    affinity_pairs: set[Pair] | None = None
    self_affine: bool = False
    anti_memo: dict[tuple[int, str], bool] = field(default_factory=dict)
    existing_memo: dict[Pair, bool] = field(default_factory=dict)


# ====================================================================== the scheduler
class Scheduler:
    """``default-scheduler``: binds pending pods to nodes through the API."""

    name = "scheduler"

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.client = rt.shared_client(DEFAULT_SCHEDULER_NAME)
        self.recorder = rt.recorder(DEFAULT_SCHEDULER_NAME, correlate=False)  # events.k8s.io upstream
        self._nodes: dict[str, _NodeInfo] = {}
        self._nodes_by_label: dict[Pair, dict[str, None]] = {}
        self._label_key_nodes: dict[str, int] = {}  # label key -> how many nodes carry it
        # Node keys in order (module docstring), each built the first time a pod needs it and
        # kept up to date from then on. Invariants: ``_order``, once built, holds every node's
        # key; ``_label_orders[pair]``, when present, holds the keys of exactly the nodes in
        # ``_nodes_by_label[pair]`` (never empty); for a topology key ``k`` in ``_domains``,
        # every label ``(k, v)`` has its order, ``_domains[k].guards`` holds the terms on ``k``
        # of the pods in ``_domain_anti``, and every unguarded domain is listed or stale.
        self._order: SortedList | None = None
        self._label_orders: dict[Pair, SortedList] = {}
        self._domains: dict[str, _Domains] = {}
        self._bound: dict[PodKey, _PodInfo] = {}
        self._node_pods: dict[str, dict[PodKey, None]] = {}
        # label key -> value -> bound pods, for the keys pod affinity has asked about so far
        self._pods_by_label: dict[str, dict[str, dict[PodKey, None]]] = {}
        self._domain_pods: dict[Pair, dict[PodKey, None]] = {}
        self._domain_anti: dict[Pair, dict[PodKey, None]] = {}
        self._anti_keys: dict[str, int] = {}
        self._ns_labels: dict[str, dict[str, str]] = {}
        # queue
        self._seq = itertools.count()
        self._waiting: list[tuple[SimTime, int, PodKey]] = []
        self._queued: dict[PodKey, int] = {}
        self._unschedulable: dict[PodKey, bool] = {}  # -> has required pod affinity terms
        self._attempts: dict[PodKey, int] = {}
        self._last_attempt: dict[PodKey, SimTime] = {}
        self._cycle_at: SimTime | None = None
        self._running = False
        self.scheduled = 0
        self.failed_attempts = 0

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self._running = True
        self._ns_informer = self.rt.informer("namespaces")
        self._ns_informer.add_handler(self._on_namespace)
        self._node_informer = self.rt.informer("nodes")
        self._node_informer.add_handler(self._on_node)
        self._pod_informer = self.rt.informer("pods")
        self._pod_informer.add_handler(self._on_pod)

    def stop(self) -> None:
        self._running = False

    # ------------------------------------------------------------------ informer handlers
    def _on_namespace(self, type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        name = obj["metadata"]["name"]
        if type_ == "DELETED":
            self._ns_labels.pop(name, None)
        else:
            self._ns_labels[name] = dict(obj["metadata"].get("labels") or {})

    def _on_node(self, type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        name = obj["metadata"]["name"]
        current = self._nodes.get(name)
        if current is not None:
            self._remove_node(current)
        if type_ == "DELETED":
            return
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        alloc_raw = status.get("allocatable") or status.get("capacity") or {}
        info = _NodeInfo(name=name, labels=dict(obj["metadata"].get("labels") or {}),
                         taints=[t for t in spec.get("taints") or []
                                 if t.get("effect") in ("NoSchedule", "NoExecute")],
                         unschedulable=bool(spec.get("unschedulable")),
                         allocatable={k: _quantity(k, v) for k, v in alloc_raw.items()})
        self._add_node(info)
        if current is None or (current.labels, current.taints, current.unschedulable, current.allocatable) != \
                (info.labels, info.taints, info.unschedulable, info.allocatable):
            self._move_unschedulable(all_pods=True)

    def _add_node(self, info: _NodeInfo) -> None:
        self._nodes[info.name] = info
        for key in self._node_pods.get(info.name, {}):
            pod = self._bound[key]
            self._account(info, pod, +1)
            self._index_domains(pod, info, add=True)
        info.key = info.order_key()
        if self._order is not None:
            self._order.add(info.key)
        for pair in info.labels.items():
            self._nodes_by_label.setdefault(pair, {})[info.name] = None
            self._label_key_nodes[pair[0]] = self._label_key_nodes.get(pair[0], 0) + 1
            self._move_in_label_order(pair, None, info.key)

    def _remove_node(self, info: _NodeInfo) -> None:
        if self._order is not None:
            self._order.remove(info.key)
        for pair in info.labels.items():
            self._move_in_label_order(pair, info.key, None)
            discard(self._nodes_by_label, pair, info.name)
            left = self._label_key_nodes[pair[0]] - 1
            if left:
                self._label_key_nodes[pair[0]] = left
            else:
                del self._label_key_nodes[pair[0]]
        for key in self._node_pods.get(info.name, {}):
            self._index_domains(self._bound[key], info, add=False)
        del self._nodes[info.name]

    def _on_pod(self, type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        meta, spec = obj["metadata"], obj.get("spec") or {}
        key = (meta.get("namespace") or "", meta["name"])
        if type_ == "DELETED":
            self._dequeue(key)
            if self._forget(key, meta.get("uid")):
                self._move_unschedulable(all_pods=True)
            return
        node = spec.get("nodeName")
        if node:
            self._dequeue(key)
            if _is_terminal(obj):
                if self._forget(key, meta.get("uid")):
                    self._move_unschedulable(all_pods=True)
                return
            known = self._bound.get(key)
            if known is None or known.uid != meta.get("uid") or known.labels != (meta.get("labels") or {}):
                if known is not None:
                    self._forget(key, known.uid)
                self._assume(self._pod_info(obj, node))
                if known is None or known.uid != meta.get("uid"):
                    self._move_unschedulable(all_pods=False)
            return
        if _is_terminal(obj) or meta.get("deletionTimestamp") or spec.get("schedulingGates") \
                or (spec.get("schedulerName") or DEFAULT_SCHEDULER_NAME) != DEFAULT_SCHEDULER_NAME:
            self._dequeue(key)
            return
        if key in self._queued:
            return
        if key in self._unschedulable:
            if old is not None and old.get("spec") == obj.get("spec") and \
                    (old["metadata"].get("labels") or {}) == (meta.get("labels") or {}):
                return  # our own status write, or nothing that could help
            self._requeue(key)
            return
        self._enqueue(key, self.rt.now + SCHEDULING_DELAY)

    # ------------------------------------------------------------------ accounting
    def _pod_info(self, pod: dict[str, Any], node: str, at: _Attempt | None = None) -> _PodInfo:
        meta, spec = pod["metadata"], pod.get("spec") or {}
        return _PodInfo(key=(meta.get("namespace") or "", meta["name"]), uid=meta.get("uid", ""),
                        labels=at.labels if at is not None else dict(meta.get("labels") or {}), node=node,
                        requests=at.requests if at is not None else pod_requests(spec),
                        nonzero=_nonzero(spec), priority=int(spec.get("priority") or 0),
                        anti_terms=at.anti_terms if at is not None else _terms(pod, "podAntiAffinity"))

    def _account(self, node: _NodeInfo, pod: _PodInfo, sign: int) -> None:
        requested = node.requested
        for k, v in pod.requests.items():
            requested[k] = requested.get(k, 0) + sign * v
        node.nonzero_cpu += sign * pod.nonzero[0]
        node.nonzero_mem += sign * pod.nonzero[1]
        node.pod_count += sign

    def _reaccount(self, node: _NodeInfo, pod: _PodInfo, sign: int) -> None:
        """Account ``pod`` on a known node (sign +1) or take it off (-1), and re-sort the node."""
        old = node.key
        self._account(node, pod, sign)
        node.key = new = node.order_key()
        if new == old:
            return
        if self._order is not None:
            self._order.remove(old)
            self._order.add(new)
        for pair in node.labels.items():
            if pair in self._label_orders:  # (every domain of a kept topology key has its order)
                self._move_in_label_order(pair, old, new)

    def _index_domains(self, pod: _PodInfo, node: _NodeInfo, *, add: bool) -> None:
        anti_keys = {t.topology_key for t in pod.anti_terms} if pod.anti_terms else ()
        for pair in node.labels.items():
            if add:
                self._domain_pods.setdefault(pair, {})[pod.key] = None
            else:
                discard(self._domain_pods, pair, pod.key)
            if pair[0] in anti_keys:
                if add:
                    self._domain_anti.setdefault(pair, {})[pod.key] = None
                else:
                    discard(self._domain_anti, pair, pod.key)
                domains = self._domains.get(pair[0])
                if domains is not None:
                    self._guard(domains.guards, pod, pair[0], pair[1], add=add)
                    domains.stale[pair[1]] = None

    @staticmethod
    def _guard(guards: _Guards, pod: _PodInfo, topology_key: str, domain: str, *, add: bool) -> None:
        for i, term in enumerate(pod.anti_terms):
            if term.topology_key == topology_key:
                if add:
                    guards.add((pod.key, i), term, domain)
                else:
                    guards.remove((pod.key, i), term, domain)

    def _assume(self, pod: _PodInfo) -> None:
        self._bound[pod.key] = pod
        self._node_pods.setdefault(pod.node, {})[pod.key] = None
        for label_key, by_value in self._pods_by_label.items():
            value = pod.labels.get(label_key)
            if value is not None:
                by_value.setdefault(value, {})[pod.key] = None
        for term in pod.anti_terms:
            self._anti_keys[term.topology_key] = self._anti_keys.get(term.topology_key, 0) + 1
        node = self._nodes.get(pod.node)
        if node is not None:
            self._reaccount(node, pod, +1)
            self._index_domains(pod, node, add=True)

    def _forget(self, key: PodKey, uid: str | None) -> bool:
        pod = self._bound.get(key)
        if pod is None or (uid is not None and pod.uid != uid):
            return False
        node = self._nodes.get(pod.node)
        if node is not None:
            self._index_domains(pod, node, add=False)
            self._reaccount(node, pod, -1)
        for term in pod.anti_terms:
            left = self._anti_keys[term.topology_key] - 1
            if left:
                self._anti_keys[term.topology_key] = left
            else:
                del self._anti_keys[term.topology_key]
        for label_key, by_value in self._pods_by_label.items():
            value = pod.labels.get(label_key)
            if value is not None:
                discard(by_value, value, key)
        discard(self._node_pods, pod.node, key)
        del self._bound[key]
        return True

    # ------------------------------------------------------------------ node orders
    def _move_in_label_order(self, pair: Pair, old: NodeKey | None, new: NodeKey | None) -> None:
        """Replace node key ``old`` by ``new`` (None: absent) in the order of label ``pair``, if
        that order is kept (and mark the label's domain stale, if its topology key is kept)."""
        order = self._label_orders.get(pair)
        domains = self._domains.get(pair[0])
        if order is None:
            if domains is None or new is None:
                return
            order = self._label_orders[pair] = SortedList()  # a new domain of a kept key
        if old is not None:
            order.remove(old)
        if new is not None:
            order.add(new)
        if not order:
            del self._label_orders[pair]
        if domains is not None:
            domains.stale[pair[1]] = None

    def _all_order(self) -> SortedList:
        """Every node's key, in order."""
        if self._order is None:
            self._order = SortedList(node.key for node in self._nodes.values())
        return self._order

    def _label_order(self, pair: Pair) -> SortedList:
        """The keys of the nodes labelled ``pair``, in order."""
        order = self._label_orders.get(pair)
        if order is None:
            order = SortedList(self._nodes[name].key for name in self._nodes_by_label.get(pair, ()))
            if order:
                self._label_orders[pair] = order
        return order

    def _domains_of(self, topology_key: str) -> _Domains:
        """The domains of ``topology_key``, up to date."""
        domains = self._domains.get(topology_key)
        if domains is None:
            domains = self._domains[topology_key] = _Domains()
            for (label_key, value), pods in self._domain_anti.items():
                if label_key == topology_key:
                    for key in pods:
                        self._guard(domains.guards, self._bound[key], topology_key, value, add=True)
            for pair in self._nodes_by_label:
                if pair[0] == topology_key:
                    self._label_order(pair)
                    domains.stale[pair[1]] = None
        for value in domains.stale:
            listed = domains.listed.pop(value, None)
            if listed is not None:
                domains.order.remove((listed, value))
            order = self._label_orders.get((topology_key, value))
            if order is not None and value not in domains.guards.terms:
                domains.listed[value] = order[0]
                domains.order.add((order[0], value))
        domains.stale.clear()
        return domains

    # ------------------------------------------------------------------ queue
    def _enqueue(self, key: PodKey, ready_at: SimTime) -> None:
        seq = next(self._seq)
        self._queued[key] = seq
        self._unschedulable.pop(key, None)
        heapq.heappush(self._waiting, (ready_at, seq, key))
        if self._cycle_at is None or ready_at < self._cycle_at:
            self._cycle_at = ready_at
            self.rt.loop.call_at(ready_at, self._cycle, label="scheduler cycle")

    def _dequeue(self, key: PodKey) -> None:
        self._queued.pop(key, None)
        self._unschedulable.pop(key, None)
        self._attempts.pop(key, None)
        self._last_attempt.pop(key, None)

    def _requeue(self, key: PodKey) -> None:
        attempts = self._attempts.get(key, 1)
        backoff = min(INITIAL_BACKOFF * 2 ** max(0, attempts - 1), MAX_BACKOFF)
        ready = max(self.rt.now + SCHEDULING_DELAY, self._last_attempt.get(key, 0) + backoff)
        self._enqueue(key, ready)

    def _move_unschedulable(self, *, all_pods: bool) -> None:
        if not self._unschedulable:
            return
        for key, affine in list(self._unschedulable.items()):
            if all_pods or affine:
                self._requeue(key)

    def _cycle(self) -> None:
        now = self.rt.now
        if self._cycle_at is not None and self._cycle_at <= now:
            self._cycle_at = None
        if not self._running:
            return
        ready: list[tuple[int, int, PodKey]] = []
        while self._waiting and self._waiting[0][0] <= now:
            _, seq, key = heapq.heappop(self._waiting)
            if self._queued.get(key) != seq:
                continue  # superseded or dequeued
            pod = self._pod_informer.get(key[1], key[0])
            priority = int(((pod or {}).get("spec") or {}).get("priority") or 0)
            heapq.heappush(ready, (-priority, seq, key))
        while ready:
            _, seq, key = heapq.heappop(ready)
            if self._queued.get(key) != seq:
                continue
            del self._queued[key]
            self._schedule_one(key)
        if self._waiting and self._cycle_at is None:
            nxt = self._waiting[0][0]
            self._cycle_at = nxt
            self.rt.loop.call_at(nxt, self._cycle, label="scheduler cycle")

    # ------------------------------------------------------------------ one pod
    def _schedule_one(self, key: PodKey) -> None:
        pod = self._pod_informer.get(key[1], key[0])
        if pod is None:
            return
        spec, meta = pod.get("spec") or {}, pod["metadata"]
        if spec.get("nodeName") or meta.get("deletionTimestamp") or spec.get("schedulingGates") \
                or _is_terminal(pod) or key in self._bound:
            return
        self._attempts[key] = self._attempts.get(key, 0) + 1
        self._last_attempt[key] = self.rt.now
        attempt = self._attempt(pod)
        node = self._find_node(attempt)
        if node is not None:
            self._bind(pod, node, attempt)
            return
        self._fail(pod, self._fit_error(attempt))

    def _attempt(self, pod: dict[str, Any]) -> _Attempt:
        spec, meta = pod.get("spec") or {}, pod["metadata"]
        node_affinity = (spec.get("affinity") or {}).get("nodeAffinity") or {}
        required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        return _Attempt(pod=pod, namespace=meta.get("namespace") or "default",
                        labels=dict(meta.get("labels") or {}), requests=pod_requests(spec),
                        tolerations=list(spec.get("tolerations") or []),
                        node_selector=dict(spec.get("nodeSelector") or {}),
                        required_terms=None if required is None else list(required.get("nodeSelectorTerms") or []),
                        affinity_terms=_terms(pod, "podAffinity"), anti_terms=_terms(pod, "podAntiAffinity"))

    def _pool(self, at: _Attempt) -> tuple[list[Sequence[NodeKey]], int] | None:
        """The nodes the pod's required node constraints allow (None: all), as sorted runs of node
        keys with their total length: the smallest ``nodeSelector`` label, or for required node
        affinity the union over its terms of each term's smallest ``In`` option. Runs may overlap
        and may hold nodes the pod does not fit; the filters decide."""
        best: list[Pair | Sequence[NodeKey]] | None = None  # label pairs stand for their orders
        best_size = len(self._nodes)
        for pair in at.node_selector.items():
            size = len(self._nodes_by_label.get(pair, ()))
            if best is None or size < best_size:
                best, best_size = [pair], size
        if at.required_terms:
            union: list[Pair | Sequence[NodeKey]] = []
            union_size = 0
            for term in at.required_terms:
                options: list[tuple[int, list[Pair | Sequence[NodeKey]]]] = []
                for expr in term.get("matchExpressions") or []:
                    if expr.get("operator") == "In":
                        pairs = [(expr.get("key", ""), value) for value in dict.fromkeys(expr.get("values") or [])]
                        options.append((sum(len(self._nodes_by_label.get(pair, ())) for pair in pairs), [*pairs]))
                for f in term.get("matchFields") or []:
                    if f.get("key") == "metadata.name" and f.get("operator") == "In":
                        keys = sorted({self._nodes[n].key for n in f.get("values") or [] if n in self._nodes})
                        options.append((len(keys), [keys]))
                if not options:
                    break
                size, runs = min(options, key=lambda option: option[0])
                union += runs
                union_size += size
            else:
                if best is None or union_size < best_size:
                    best, best_size = union, union_size
        if best is None:
            return None
        return [self._label_order(run) if isinstance(run, tuple) else run for run in best], best_size

    def _find_node(self, at: _Attempt) -> str | None:
        """The feasible node with the smallest node key (highest score, then name), or None."""
        keys = {t.topology_key for t in at.anti_terms}
        anti_key = next(iter(keys)) if len(keys) == 1 else None
        pool = self._pool(at)
        small_pool = pool is not None and pool[1] * SMALL_POOL_FRACTION <= len(self._nodes)
        if anti_key is not None and not small_pool and self._label_key_nodes.get(anti_key) == len(self._nodes):
            return self._find_by_domain(at, anti_key)
        if pool is None:
            candidates: Iterable[NodeKey] = self._all_order()
        elif len(pool[0]) == 1:
            candidates = pool[0][0]
        else:
            candidates = (key for key, _ in itertools.groupby(heapq.merge(*pool[0])))  # merged, deduplicated
        # Nodes in domains the pod's anti-affinity rules out are passed over without filtering.
        for _, name in candidates:
            node = self._nodes[name]
            if anti_key is not None:
                domain = node.labels.get(anti_key)
                if domain is not None and self._domain_excluded(at, anti_key, domain):
                    continue
            if self._filter(node, at) is None:
                return name
        return None

    def _find_by_domain(self, at: _Attempt, topology_key: str) -> str | None:
        """``_find_node`` for a pod with anti-affinity on ``topology_key``, which every node carries.

        Walks the nodes in order as a merge of the domains' own orders: a domain joins the merge
        when its first node could be next, unless the pod's own anti-affinity rules it out as a
        whole (then none of its nodes is looked at). Guarded domains whose guards match the pod
        are never even listed. Cost: the nodes filtered plus the unguarded domains passed over.
        """
        domains = self._domains_of(topology_key)
        open_guarded = sorted((self._label_orders[(topology_key, value)][0], value)
                              for value in domains.guards.open_to(at.namespace, at.labels, self._ns_labels))
        joining = heapq.merge(domains.order, open_guarded)
        waiting = next(joining, None)
        merge: list[tuple[NodeKey, Iterator[NodeKey]]] = []  # (next node key, rest of its domain)
        while True:
            if waiting is not None and (not merge or waiting[0] < merge[0][0]):
                value = waiting[1]
                waiting = next(joining, None)
                if not self._domain_excluded(at, topology_key, value):
                    nodes = iter(self._label_orders[(topology_key, value)])
                    heapq.heappush(merge, (next(nodes), nodes))
                continue
            if not merge:
                return None
            key, nodes = merge[0]
            if self._filter(self._nodes[key[1]], at) is None:
                return key[1]
            following = next(nodes, None)
            if following is None:
                heapq.heappop(merge)
            else:
                heapq.heapreplace(merge, (following, nodes))

    def _domain_excluded(self, at: _Attempt, topology_key: str, value: str) -> bool:
        """Whether every node of domain ``(topology_key, value)`` fails ``InterPodAffinity``: the
        domain holds a pod one of the pod's anti-affinity terms on that key matches, or a pod
        whose anti-affinity term on that key matches the pod."""
        for i, t in enumerate(at.anti_terms):
            if t.topology_key == topology_key and self._anti_hit(at, i, value):
                return True
        return topology_key in self._anti_keys and self._existing_anti_hit(at, (topology_key, value))

    # ------------------------------------------------------------------ filters
    def _filter(self, node: _NodeInfo, at: _Attempt) -> tuple[list[str], bool] | None:
        """None when the pod fits; else (reasons, unresolvable) of the first failing filter."""
        if node.unschedulable and not _tolerates(at.tolerations, {"key": UNSCHEDULABLE_TAINT,
                                                                  "effect": "NoSchedule"}):
            return [R_UNSCHEDULABLE], True
        for taint in node.taints:
            if not _tolerates(at.tolerations, taint):
                return [f"node(s) had untolerated taint {{{taint.get('key', '')}: {taint.get('value', '')}}}"], True
        labels = node.labels
        for k, v in at.node_selector.items():
            if labels.get(k) != v:
                return [R_AFFINITY], True
        if at.required_terms is not None and not any(
                _node_term_matches(t, node.name, labels) for t in at.required_terms):
            return [R_AFFINITY], True
        reasons: list[str] = []
        unresolvable = False
        if node.pod_count + 1 > node.allocatable.get("pods", 0):
            reasons.append(R_TOO_MANY_PODS)
        for res in sorted(at.requests):
            want = at.requests[res]
            alloc = node.allocatable.get(res, 0)
            if want > alloc - node.requested.get(res, 0):
                reasons.append(f"Insufficient {res}")
                unresolvable = unresolvable or want > alloc
        if reasons:
            return reasons, unresolvable
        if at.affinity_terms and not self._satisfies_affinity(node, at):
            return [R_POD_AFFINITY], True
        if at.anti_terms and self._violates_anti_affinity(node, at):
            return [R_POD_ANTI_AFFINITY], False
        if self._anti_keys and self._violates_existing_anti_affinity(node, at):
            return [R_EXISTING_ANTI_AFFINITY], False
        return None

    def _candidate_pods(self, term: _Term) -> Iterable[PodKey]:
        best: Iterable[PodKey] = self._bound
        size = len(self._bound)
        for label_key, value in term.selector.equality_terms():
            bucket = self._pods_labelled(label_key).get(value, {})
            if len(bucket) < size:
                best, size = bucket, len(bucket)
        return best

    def _pods_labelled(self, label_key: str) -> dict[str, dict[PodKey, None]]:
        """Bound pods by their value of label ``label_key`` (indexed from now on)."""
        by_value = self._pods_by_label.get(label_key)
        if by_value is None:
            by_value = self._pods_by_label[label_key] = {}
            for key, pod in self._bound.items():
                if label_key in pod.labels:
                    by_value.setdefault(pod.labels[label_key], {})[key] = None
        return by_value

    def _satisfies_affinity(self, node: _NodeInfo, at: _Attempt) -> bool:
        """``satisfyPodAffinity``: counts come from pods matching *all* the pod's affinity terms."""
        if at.affinity_pairs is None:
            pairs: set[Pair] = set()
            terms = at.affinity_terms
            for key in self._candidate_pods(terms[0]):
                other = self._bound[key]
                if not all(t.matches(key[0], other.labels, self._ns_labels) for t in terms):
                    continue
                other_node = self._nodes.get(other.node)
                if other_node is None:
                    continue
                for t in terms:
                    value = other_node.labels.get(t.topology_key)
                    if value is not None:
                        pairs.add((t.topology_key, value))
            at.affinity_pairs = pairs
            at.self_affine = all(t.matches(at.namespace, at.labels, self._ns_labels) for t in terms)
        pods_exist = True
        for t in at.affinity_terms:
            value = node.labels.get(t.topology_key)
            if value is None:
                return False
            if (t.topology_key, value) not in at.affinity_pairs:
                pods_exist = False
        return pods_exist or (not at.affinity_pairs and at.self_affine)

    def _violates_anti_affinity(self, node: _NodeInfo, at: _Attempt) -> bool:
        for i, t in enumerate(at.anti_terms):
            value = node.labels.get(t.topology_key)
            if value is not None and self._anti_hit(at, i, value):
                return True
        return False

    def _anti_hit(self, at: _Attempt, i: int, value: str) -> bool:
        """Whether domain ``value`` of anti-affinity term ``i``'s key holds a pod the term matches."""
        memo_key = (i, value)
        hit = at.anti_memo.get(memo_key)
        if hit is None:
            t = at.anti_terms[i]
            hit = any(t.matches(key[0], self._bound[key].labels, self._ns_labels)
                      for key in self._domain_pods.get((t.topology_key, value), {}))
            at.anti_memo[memo_key] = hit
        return hit

    def _violates_existing_anti_affinity(self, node: _NodeInfo, at: _Attempt) -> bool:
        for tk in self._anti_keys:
            value = node.labels.get(tk)
            if value is not None and self._existing_anti_hit(at, (tk, value)):
                return True
        return False

    def _existing_anti_hit(self, at: _Attempt, pair: Pair) -> bool:
        """Whether domain ``pair`` holds a pod with an anti-affinity term on its key matching the pod."""
        hit = at.existing_memo.get(pair)
        if hit is None:
            hit = any(t.topology_key == pair[0] and t.matches(at.namespace, at.labels, self._ns_labels)
                      for key in self._domain_anti.get(pair, {}) for t in self._bound[key].anti_terms)
            at.existing_memo[pair] = hit
        return hit

    # ------------------------------------------------------------------ outcomes
    def _fit_error(self, at: _Attempt) -> str:
        """``FitError.Error()`` with the post-filter (DRA, then preemption) text of 1.34."""
        total = len(self._nodes)
        if total == 0:
            return NO_NODES
        histogram: dict[str, int] = {}
        preemption: dict[str, int] = {}
        for name in sorted(self._nodes):
            node = self._nodes[name]
            result = self._filter(node, at)
            if result is None:  # cannot happen: the pod fit nowhere
                continue
            reasons, unresolvable = result
            for r in reasons:
                histogram[r] = histogram.get(r, 0) + 1
            if unresolvable:
                verdict = R_NOT_HELPFUL
            else:
                # DEVIATION(upstream): preemption is not modelled; a node with lower-priority pods
                # reports its filter reasons again, as a failed victim search would.
                priority = int((at.pod.get("spec") or {}).get("priority") or 0)
                lower = any(self._bound[k].priority < priority for k in self._node_pods.get(name, {}))
                for r in (reasons if lower else [R_NO_VICTIMS]):
                    preemption[r] = preemption.get(r, 0) + 1
                continue
            preemption[verdict] = preemption.get(verdict, 0) + 1

        def render(counts: dict[str, int]) -> str:
            return f"0/{total} nodes are available: " + ", ".join(sorted(f"{n} {r}" for r, n in counts.items())) + "."

        if (at.pod.get("spec") or {}).get("preemptionPolicy") == "Never":
            post = f"preemption: {PREEMPT_NEVER}"
        else:
            if all(r == R_NOT_HELPFUL for r in preemption):
                preemption = {R_NOT_HELPFUL: total}
            post = f"preemption: {render(preemption)}"
        return f"{render(histogram)} {DRA_POST_FILTER}, {post}."

    def _bind(self, pod: dict[str, Any], node: str, at: _Attempt) -> None:
        meta = pod["metadata"]
        ns, name = meta.get("namespace") or "default", meta["name"]
        info = self._pod_info(pod, node, at)
        self._assume(info)
        try:
            self.client.bind(name, node, ns)
        except (Conflict, NotFound, Forbidden) as err:  # Forbidden: a terminating namespace
            self._forget(info.key, info.uid)
            self.rt.trace.add(f"scheduler bind {ns}/{name} to {node} failed: {err.message}")
            return
        self.scheduled += 1
        self._attempts.pop(info.key, None)
        self._last_attempt.pop(info.key, None)
        self.rt.trace.add(f"scheduler assigned {ns}/{name} to {node}")
        self._move_unschedulable(all_pods=False)
        self.recorder.event(pod, NORMAL, "Scheduled", f"Successfully assigned {ns}/{name} to {node}",
                            action="Binding")

    def _fail(self, pod: dict[str, Any], message: str) -> None:
        meta = pod["metadata"]
        ns, name = meta.get("namespace") or "default", meta["name"]
        key = (ns, name)
        self.failed_attempts += 1
        self._unschedulable[key] = bool(_terms(pod, "podAffinity"))
        self.rt.trace.add(f"scheduler cannot place {ns}/{name}: {message}")
        try:
            live = deep_copy(self.client.get("pods", name, ns))
        except NotFound:
            self._dequeue(key)
            return
        if live["metadata"].get("uid") != meta.get("uid") or (live.get("spec") or {}).get("nodeName"):
            return
        status = live.setdefault("status", {})
        set_condition(status, {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                               "message": message}, format_time(self.rt.now))
        try:
            self.client.update_status(live)
        except (NotFound, Conflict):
            return
        self.recorder.event(pod, WARNING, "FailedScheduling", message, action="Scheduling")

    # ------------------------------------------------------------------ introspection
    def pending(self) -> list[PodKey]:
        """Pods waiting for a scheduling attempt or retry, in key order."""
        return sorted(set(self._queued) | set(self._unschedulable))

    def node_usage(self, node: str) -> dict[str, int]:
        """Requests accounted on ``node`` (cpu in millicores) plus ``pods``."""
        info = self._nodes.get(node)
        if info is None:
            return {}
        return {**{k: v for k, v in sorted(info.requested.items()) if v}, "pods": info.pod_count}
