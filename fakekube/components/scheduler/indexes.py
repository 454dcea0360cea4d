"""The scheduler's cache of nodes and bound pods, and the orders that find the best feasible node fast.

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
(anti-)affinity keeps, per topology domain ``(key, value)``, the bound pods there (for the
topology keys an anti-affinity term has asked about so far) and those carrying anti-affinity
terms, so a check looks at one domain's pods, memoised per scheduling attempt.

The filters themselves are :mod:`.filters`; :class:`Indexes` adds to their view the accounting of
bound pods on nodes (upstream's cache: assume, forget, add and remove nodes) and the orders.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sortedcontainers import SortedList

from fakekube._core.multimap import discard
from fakekube.machinery import selectors as sel

from .filters import (
    Attempt,
    Filters,
    NodeInfo,
    NodeKey,
    Pair,
    PodInfo,
    PodKey,
    Term,
    nonzero,
    pod_affinity_terms,
    pod_requests,
)

SMALL_POOL_FRACTION = 4  # a pod with anti-affinity walks its pool, not the domains, when the pool
# holds at most 1/4 of the nodes

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

    def _conditions(self, term: Term) -> Iterator[tuple[dict[Any, dict[TermId, str]], Any]]:
        yield self.by_scope, (term.namespaces, term.ns_selector)
        if term.selector.matches_nothing:
            yield self.by_requirement, None
        for r in term.selector.requirements:
            if r.operator in _FAILS_BY_LABEL:
                for value in r.values:
                    yield self.by_label, (r.key, value)
            else:
                yield self.by_requirement, r

    def add(self, term_id: TermId, term: Term, domain: str) -> None:
        self.terms[domain] = self.terms.get(domain, 0) + 1
        for index, condition in self._conditions(term):
            index.setdefault(condition, {})[term_id] = domain

    def remove(self, term_id: TermId, term: Term, domain: str) -> None:
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
    order: SortedList[tuple[NodeKey, str]] = field(default_factory=SortedList)
    listed: dict[str, NodeKey] = field(default_factory=dict)
    stale: dict[str, None] = field(default_factory=dict)



class Indexes(Filters):
    """The filters' view kept up to date as nodes and bound pods come and go, with the node orders
    (module docstring) that :meth:`_find_node` walks."""

    def __init__(self) -> None:
        super().__init__()
        self._nodes_by_label: dict[Pair, dict[str, None]] = {}
        self._label_key_nodes: dict[str, int] = {}  # label key -> how many nodes carry it
        # Node keys in order (module docstring), each built the first time a pod needs it and
        # kept up to date from then on. Invariants: ``_order``, once built, holds every node's
        # key; ``_label_orders[pair]``, when present, holds the keys of exactly the nodes in
        # ``_nodes_by_label[pair]`` (never empty); for a topology key ``k`` in ``_domains``,
        # every label ``(k, v)`` has its order, ``_domains[k].guards`` holds the terms on ``k``
        # of the pods in ``_domain_anti``, and every unguarded domain is listed or stale.
        self._order: SortedList[NodeKey] | None = None
        self._label_orders: dict[Pair, SortedList[NodeKey]] = {}
        self._domains: dict[str, _Domains] = {}
        self._priorities: dict[int, int] = {}  # priority -> how many bound pods have it

    # ------------------------------------------------------------------ nodes
    def _add_node(self, info: NodeInfo) -> None:
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

    def _remove_node(self, info: NodeInfo) -> None:
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

    # ------------------------------------------------------------------ accounting
    def _pod_info(self, pod: dict[str, Any], node: str, at: Attempt | None = None) -> PodInfo:
        meta, spec = pod["metadata"], pod.get("spec") or {}
        return PodInfo(key=(meta.get("namespace") or "", meta["name"]), uid=meta.get("uid", ""),
                       labels=at.labels if at is not None else meta.get("labels") or {}, node=node,
                       requests=at.requests if at is not None else pod_requests(spec),
                       nonzero=at.nonzero if at is not None else nonzero(spec), priority=int(spec.get("priority") or 0),
                       anti_terms=at.anti_terms if at is not None else pod_affinity_terms(pod, "podAntiAffinity"))

    def _account(self, node: NodeInfo, pod: PodInfo, sign: int) -> None:
        requested = node.requested
        for k, v in pod.requests.items():
            requested[k] = requested.get(k, 0) + sign * v
        node.nonzero_cpu += sign * pod.nonzero[0]
        node.nonzero_mem += sign * pod.nonzero[1]
        node.pod_count += sign

    def _reaccount(self, node: NodeInfo, pod: PodInfo, sign: int) -> None:
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

    def _index_domains(self, pod: PodInfo, node: NodeInfo, *, add: bool) -> None:
        anti_keys = {t.topology_key for t in pod.anti_terms} if pod.anti_terms else ()
        indexed = self._domain_keys
        for pair in node.labels.items():
            if pair[0] in indexed:
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
    def _guard(guards: _Guards, pod: PodInfo, topology_key: str, domain: str, *, add: bool) -> None:
        for i, term in enumerate(pod.anti_terms):
            if term.topology_key == topology_key:
                if add:
                    guards.add((pod.key, i), term, domain)
                else:
                    guards.remove((pod.key, i), term, domain)

    def _assume(self, pod: PodInfo) -> None:
        self._bound[pod.key] = pod
        self._priorities[pod.priority] = self._priorities.get(pod.priority, 0) + 1
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
        left = self._priorities[pod.priority] - 1
        if left:
            self._priorities[pod.priority] = left
        else:
            del self._priorities[pod.priority]
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

    def _all_order(self) -> SortedList[NodeKey]:
        """Every node's key, in order."""
        if self._order is None:
            self._order = SortedList(node.key for node in self._nodes.values())
        return self._order

    def _label_order(self, pair: Pair) -> SortedList[NodeKey]:
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

    # ------------------------------------------------------------------ finding the node
    def _pool(self, at: Attempt) -> tuple[list[Sequence[NodeKey]], int] | None:
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

    def _find_node(self, at: Attempt) -> str | None:
        """The feasible node with the smallest node key (highest score, then name), or None."""
        anti_key = None
        if at.anti_terms:
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

    def _find_by_domain(self, at: Attempt, topology_key: str) -> str | None:
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

    def _domain_excluded(self, at: Attempt, topology_key: str, value: str) -> bool:
        """Whether every node of domain ``(topology_key, value)`` fails ``InterPodAffinity``: the
        domain holds a pod one of the pod's anti-affinity terms on that key matches, or a pod
        whose anti-affinity term on that key matches the pod."""
        for i, t in enumerate(at.anti_terms):
            if t.topology_key == topology_key and self._anti_hit(at, i, value):
                return True
        return topology_key in self._anti_keys and self._existing_anti_hit(at, (topology_key, value))
