"""The scheduler's filters and the text of its unschedulable message (``spec/kubernetes.md`` §4.1-4.7).

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

A pod that fits nowhere gets ``PodScheduled=False/Unschedulable`` with the ``FitError`` text of
Kubernetes 1.34 (:meth:`Filters._fit_error`) and a ``Warning FailedScheduling`` event with the
same text::

    0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu.
    no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful
    for scheduling, 2 No preemption victims found for incoming pod..

(one line; the histogram is sorted as strings; ``no new claims to deallocate, `` is the
DynamicResources post-filter of 1.34 and the doubled final period is what ``FitError.Error``
produces around the preemption text.) With no nodes at all the message is ``no nodes available
to schedule pods``.

Everything here decides from the node, the pod and the bound pods around it; :mod:`.indexes`
keeps those up to date and finds the best feasible node fast, :mod:`.scheduler` wires it to the
API.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from fakekube.errors import ApiError
from fakekube.machinery import selectors as sel
from fakekube.machinery.quantity import milli_value, value_of

DEFAULT_MILLI_CPU = 100
DEFAULT_MEMORY = 200 * 1024 * 1024

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
def quantity(name: str, text: Any) -> int:
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
    return {k: quantity(k, v) for k, v in requests.items()}


def pod_requests(spec: dict[str, Any]) -> dict[str, int]:
    """Effective pod request per resource (cpu in millicores), as ``resourcehelper.PodRequests``."""
    return _effective_requests(spec, _app_requests(spec))


def pod_resources(spec: dict[str, Any]) -> tuple[dict[str, int], tuple[int, int]]:
    """``pod_requests`` and ``nonzero`` of a pod, from one parse of its app containers' requests."""
    apps = _app_requests(spec)
    return _effective_requests(spec, apps), _nonzero(apps)


def _app_requests(spec: dict[str, Any]) -> list[dict[str, int]]:
    return [_container_requests(c) for c in spec.get("containers") or []]


def _effective_requests(spec: dict[str, Any], apps: list[dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for req in apps:
        for k, v in req.items():
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
        total[k] = total.get(k, 0) + quantity(k, v)
    return {k: v for k, v in total.items() if v}


def nonzero(spec: dict[str, Any]) -> tuple[int, int]:
    """Cpu and memory with upstream's per-container defaults (``GetNonzeroRequests``), for scores."""
    return _nonzero(_app_requests(spec))


def _nonzero(apps: list[dict[str, int]]) -> tuple[int, int]:
    cpu = mem = 0
    for req in apps:
        cpu += req.get("cpu") or DEFAULT_MILLI_CPU
        mem += req.get("memory") or DEFAULT_MEMORY
    return cpu, mem


TERMINAL_PHASES = ("Succeeded", "Failed")


def is_terminal(pod: dict[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") in TERMINAL_PHASES


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
class Term:
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


def pod_affinity_terms(pod: dict[str, Any], kind: str) -> list[Term]:
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
        out.append(Term(selector, t.get("topologyKey") or "", names, ns_selector))
    return out



@dataclass(slots=True)
class PodInfo:
    """A bound, non-terminal pod as the scheduler accounts it."""

    key: PodKey
    uid: str
    labels: dict[str, str]  # the pod's own (frozen, shared) labels map: read, never edited
    node: str
    requests: dict[str, int]
    nonzero: tuple[int, int]
    priority: int
    anti_terms: list[Term]


@dataclass(slots=True)
class NodeInfo:
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


@dataclass(frozen=True, slots=True)
class SpecFacts:
    """What a scheduling attempt reads from the pod's spec alone (not its labels or namespace).

    A function of the spec fields ``_spec_facts`` compares (containers, initContainers,
    overhead, tolerations, nodeSelector, nodeAffinity, priority), so pods with equal fields
    share one; everything here is read, never edited."""

    requests: dict[str, int]
    resource_names: tuple[str, ...]
    nonzero: tuple[int, int]
    tolerations: list[dict[str, Any]]
    node_selector: dict[str, str]
    required_terms: list[dict[str, Any]] | None
    priority: int

    @classmethod
    def of(cls, spec: dict[str, Any]) -> SpecFacts:
        node_affinity = (spec.get("affinity") or {}).get("nodeAffinity") or {}
        required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        requests, nonzero_requests = pod_resources(spec)
        return cls(requests=requests, resource_names=tuple(sorted(requests)), nonzero=nonzero_requests,
                   tolerations=list(spec.get("tolerations") or []), node_selector=dict(spec.get("nodeSelector") or {}),
                   required_terms=None if required is None else list(required.get("nodeSelectorTerms") or []),
                   priority=int(spec.get("priority") or 0))


@dataclass(slots=True)
class Attempt:
    """What one scheduling attempt of one pod knows (upstream's CycleState)."""

    pod: dict[str, Any]
    namespace: str
    labels: dict[str, str]  # the pod's own (frozen, shared) labels map: read, never edited
    requests: dict[str, int]
    tolerations: list[dict[str, Any]]
    node_selector: dict[str, str]
    required_terms: list[dict[str, Any]] | None
    affinity_terms: list[Term]
    anti_terms: list[Term]
    affinity_pairs: set[Pair] | None = None
    self_affine: bool = False
    anti_memo: dict[tuple[int, str], bool] = field(default_factory=dict)
    existing_memo: dict[Pair, bool] = field(default_factory=dict)
    key: PodKey = ("", "")
    priority: int = 0
    nonzero: tuple[int, int] = (0, 0)  # the pod's ``nonzero`` requests, for scores
    resource_names: tuple[str, ...] = ()  # ``requests``' keys, sorted (the order of Insufficient reasons)

    def forget_memos(self) -> None:
        """Drop what was learnt about the bound pods (they changed: a preemption dry run)."""
        self.anti_memo.clear()
        self.existing_memo.clear()
        self.affinity_pairs = None


@dataclass(slots=True)
class Nominee:
    """A pod the scheduler nominated to a node (``status.nominatedNodeName``) after preempting for it:
    its requests are reserved there against pods of no higher priority."""

    priority: int
    requests: dict[str, int]


class Filters:
    """The filter plugins over the scheduler's view of nodes and bound pods, and the message of a
    pod that fits nowhere. The view is kept by :class:`.indexes.Indexes`; nothing here changes
    it (but for the label index of pod affinity, built the first time it is asked for)."""

    def __init__(self) -> None:
        self._nodes: dict[str, NodeInfo] = {}
        self._bound: dict[PodKey, PodInfo] = {}
        self._node_pods: dict[str, dict[PodKey, None]] = {}
        # label key -> value -> bound pods, for the keys pod affinity has asked about so far
        self._pods_by_label: dict[str, dict[str, dict[PodKey, None]]] = {}
        # topology domain -> bound pods on its nodes, for the keys anti-affinity has asked about so far
        self._domain_keys: dict[str, None] = {}
        self._domain_pods: dict[Pair, dict[PodKey, None]] = {}
        self._domain_anti: dict[Pair, dict[PodKey, None]] = {}
        self._anti_keys: dict[str, int] = {}
        self._ns_labels: dict[str, dict[str, str]] = {}
        self._nominated: dict[str, dict[PodKey, Nominee]] = {}  # node -> pods nominated there
        self._last_facts: tuple[tuple[Any, ...], SpecFacts] | None = None  # (spec fields, their facts)

    def _attempt(self, pod: dict[str, Any]) -> Attempt:
        spec, meta = pod.get("spec") or {}, pod["metadata"]
        facts = self._spec_facts(spec)
        namespace = meta.get("namespace")
        affinity = spec.get("affinity")
        return Attempt(pod=pod, namespace=namespace or "default", labels=meta.get("labels") or {},
                       requests=facts.requests, nonzero=facts.nonzero, tolerations=facts.tolerations,
                       node_selector=facts.node_selector, required_terms=facts.required_terms,
                       affinity_terms=pod_affinity_terms(pod, "podAffinity") if affinity else [],
                       anti_terms=pod_affinity_terms(pod, "podAntiAffinity") if affinity else [],
                       key=(namespace or "", meta["name"]), priority=facts.priority,
                       resource_names=facts.resource_names)

    def _spec_facts(self, spec: dict[str, Any]) -> SpecFacts:
        """The pod's :class:`SpecFacts`: the previous attempt's when the spec fields they come
        from are equal (the pods of one Job, scheduled one after another), else parsed anew."""
        affinity = spec.get("affinity")
        parts = (spec.get("containers"), spec.get("initContainers"), spec.get("overhead"), spec.get("tolerations"),
                 spec.get("nodeSelector"), affinity.get("nodeAffinity") if affinity else None, spec.get("priority"))
        last = self._last_facts
        if last is not None and last[0] == parts:
            return last[1]
        facts = SpecFacts.of(spec)
        self._last_facts = (parts, facts)
        return facts

    # ------------------------------------------------------------------ filters
    def _filter(self, node: NodeInfo, at: Attempt) -> tuple[list[str], bool] | None:
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
        reserved, reserved_pods = self._reserved(node.name, at) if self._nominated else (None, 0)
        if node.pod_count + reserved_pods + 1 > node.allocatable.get("pods", 0):
            reasons.append(R_TOO_MANY_PODS)
        for res in at.resource_names:
            want = at.requests[res]
            alloc = node.allocatable.get(res, 0)
            if want > alloc - node.requested.get(res, 0) - (reserved.get(res, 0) if reserved else 0):
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

    def _reserved(self, node: str, at: Attempt) -> tuple[dict[str, int] | None, int]:
        """What the pods nominated to ``node`` with at least the pod's priority reserve there
        (upstream's ``addNominatedPods``; resources and pod count only)."""
        nominees = self._nominated.get(node)
        if not nominees:
            return None, 0
        total: dict[str, int] = {}
        count = 0
        for key, nominee in nominees.items():
            if key != at.key and nominee.priority >= at.priority:
                count += 1
                for res, amount in nominee.requests.items():
                    total[res] = total.get(res, 0) + amount
        return total, count

    def _candidate_pods(self, term: Term) -> Iterable[PodKey]:
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

    def _pods_in_domain(self, pair: Pair) -> dict[PodKey, None]:
        """Bound pods on the nodes labelled ``pair`` (the label's key indexed from now on)."""
        if pair[0] not in self._domain_keys:
            self._domain_keys[pair[0]] = None
            for key, pod in self._bound.items():
                node = self._nodes.get(pod.node)
                value = None if node is None else node.labels.get(pair[0])
                if value is not None:
                    self._domain_pods.setdefault((pair[0], value), {})[key] = None
        return self._domain_pods.get(pair, {})

    def _satisfies_affinity(self, node: NodeInfo, at: Attempt) -> bool:
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

    def _violates_anti_affinity(self, node: NodeInfo, at: Attempt) -> bool:
        for i, t in enumerate(at.anti_terms):
            value = node.labels.get(t.topology_key)
            if value is not None and self._anti_hit(at, i, value):
                return True
        return False

    def _anti_hit(self, at: Attempt, i: int, value: str) -> bool:
        """Whether domain ``value`` of anti-affinity term ``i``'s key holds a pod the term matches."""
        memo_key = (i, value)
        hit = at.anti_memo.get(memo_key)
        if hit is None:
            t = at.anti_terms[i]
            hit = any(t.matches(key[0], self._bound[key].labels, self._ns_labels)
                      for key in self._pods_in_domain((t.topology_key, value)))
            at.anti_memo[memo_key] = hit
        return hit

    def _violates_existing_anti_affinity(self, node: NodeInfo, at: Attempt) -> bool:
        for tk in self._anti_keys:
            value = node.labels.get(tk)
            if value is not None and self._existing_anti_hit(at, (tk, value)):
                return True
        return False

    def _existing_anti_hit(self, at: Attempt, pair: Pair) -> bool:
        """Whether domain ``pair`` holds a pod with an anti-affinity term on its key matching the pod."""
        hit = at.existing_memo.get(pair)
        if hit is None:
            hit = any(t.topology_key == pair[0] and t.matches(at.namespace, at.labels, self._ns_labels)
                      for key in self._domain_anti.get(pair, {}) for t in self._bound[key].anti_terms)
            at.existing_memo[pair] = hit
        return hit

    # ------------------------------------------------------------------ outcomes
    def _victim_reasons(self, node: NodeInfo, at: Attempt, reasons: list[str]) -> list[str]:
        """Why preempting on ``node`` (whose filters failed with resolvable ``reasons``) cannot
        help: a node with no lower-priority pod has no victims, else the filters' reasons with
        those pods gone (:mod:`.preemption` computes them; this base estimates them as ``reasons``)."""
        lower = any(self._bound[k].priority < at.priority for k in self._node_pods.get(node.name, {}))
        return reasons if lower else [R_NO_VICTIMS]

    def _fit_error(self, at: Attempt, preemption: str | None = None) -> str:
        """``FitError.Error()`` with the post-filter (DRA, then preemption) text of 1.34.

        ``preemption``: None when preemption found no victims (the per-node text is computed
        here), ``""`` when it nominated a node (the post-filter then succeeded and adds no
        text), else why the pod may not preempt."""
        total = len(self._nodes)
        if total == 0:
            return NO_NODES
        histogram: dict[str, int] = {}
        preemption_counts: dict[str, int] = {}
        for name in sorted(self._nodes):
            node = self._nodes[name]
            result = self._filter(node, at)
            if result is None:  # cannot happen: the pod fit nowhere
                continue
            reasons, unresolvable = result
            for r in reasons:
                histogram[r] = histogram.get(r, 0) + 1
            if preemption is not None:
                continue
            if unresolvable:
                verdict = R_NOT_HELPFUL
            else:
                for r in self._victim_reasons(node, at, reasons):
                    preemption_counts[r] = preemption_counts.get(r, 0) + 1
                continue
            preemption_counts[verdict] = preemption_counts.get(verdict, 0) + 1

        def render(counts: dict[str, int]) -> str:
            return f"0/{total} nodes are available: " + ", ".join(sorted(f"{n} {r}" for r, n in counts.items())) + "."

        if preemption == "":
            return render(histogram)
        if preemption is not None:
            post = f"preemption: {preemption}"
        elif (at.pod.get("spec") or {}).get("preemptionPolicy") == "Never":
            post = f"preemption: {PREEMPT_NEVER}"
        else:
            if all(r == R_NOT_HELPFUL for r in preemption_counts):
                preemption_counts = {R_NOT_HELPFUL: total}
            post = f"preemption: {render(preemption_counts)}"
        return f"{render(histogram)} {DRA_POST_FILTER}, {post}."
