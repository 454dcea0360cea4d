"""Default preemption (``DefaultPreemption``, ``pkg/scheduler/framework/preemption``), in outline.

A pod that fits nowhere may preempt, unless its ``preemptionPolicy`` is ``Never`` or the node it
was nominated to still holds a lower-priority pod terminating because of an earlier preemption
(``not eligible due to a terminating pod on the nominated node.``). Candidates are the nodes whose
filters failed for a reason removing pods can fix (resources, pod count, anti-affinity), in node
name order, up to upstream's ``max(10% of the nodes, 100)``. On each, the *victims* are found as
``SelectVictimsOnNode`` does: take every pod of lower priority off the node (the pod must then
fit, else the node's reasons are what the failure message reports), then give them back one by
one, most important first (higher priority, then name), keeping off only those whose return makes
the pod not fit. The node chosen has the lowest highest-victim priority, then the lowest sum of
victim priorities, then the fewest victims, then the first name.

The scheduler then (:mod:`.scheduler`) gives each victim the ``DisruptionTarget`` condition
(reason ``PreemptionByScheduler``), deletes it with its grace period and records a ``Normal
Preempted`` event on it; pods of lower priority nominated to that node lose their nomination; the
preemptor gets ``status.nominatedNodeName`` and stays unschedulable until a retry finds room. A
nominated pod's requests are reserved on its node against pods of no higher priority, and its
next attempt tries that node first.

The cost of an attempt that preempts is the candidate nodes' filtering plus, per candidate, its
lower-priority pods taken off and put back in the scheduler's cache (O(log n) each); a pod with no
lower-priority pod anywhere in the cluster skips the search at once.

DEVIATION(upstream): candidates are taken in name order from the first node, not from a random
offset; PodDisruptionBudgets, the start-time tie-breaks (names stand in), extenders and
asynchronous preemption are not modelled; preemption happens in the scheduling cycle itself.
"""

from __future__ import annotations

from .filters import PREEMPT_NEVER, R_NO_VICTIMS, Attempt, NodeInfo, Nominee, PodInfo, PodKey
from .indexes import Indexes

MIN_CANDIDATE_NODES_PERCENTAGE = 10
MIN_CANDIDATE_NODES_ABSOLUTE = 100
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
_PRIORITY_OFFSET = 2 ** 31  # upstream adds MaxInt32+1 to each victim's priority before summing

Candidate = tuple[str, list[PodInfo]]


class Preemption(Indexes):
    """Nominations and the victim search on top of the scheduler's cache."""

    def __init__(self) -> None:
        super().__init__()
        self._nomination_of: dict[PodKey, str] = {}
        self._terminating_victims: dict[PodKey, None] = {}  # pods preempted, not yet gone
        self._victim_memo: dict[str, list[str]] = {}  # node -> why preempting there fails (last search)

    # ------------------------------------------------------------------ nominations
    def _nominate(self, at: Attempt, node: str) -> None:
        self._clear_nomination(at.key)
        self._nomination_of[at.key] = node
        self._nominated.setdefault(node, {})[at.key] = Nominee(at.priority, dict(at.requests))

    def _clear_nomination(self, key: PodKey) -> str | None:
        node = self._nomination_of.pop(key, None)
        if node is not None:
            nominees = self._nominated.get(node)
            if nominees is not None:
                nominees.pop(key, None)
                if not nominees:
                    del self._nominated[node]
        return node

    def _lower_nominees(self, node: str, priority: int) -> list[PodKey]:
        """Pods nominated to ``node`` with a priority below ``priority``, in key order."""
        return sorted(k for k, n in self._nominated.get(node, {}).items() if n.priority < priority)

    # ------------------------------------------------------------------ the search
    def _not_eligible(self, at: Attempt) -> str | None:
        """``PodEligibleToPreemptOthers``: why the pod may not preempt, or None."""
        if (at.pod.get("spec") or {}).get("preemptionPolicy") == "Never":
            return PREEMPT_NEVER
        nominated = self._nodes.get(self._nomination_of.get(at.key, ""))
        if nominated is not None:
            result = self._filter(nominated, at)
            if result is not None and result[1]:
                return None  # the nominated node cannot help any more: preempt elsewhere
            for key in self._node_pods.get(nominated.name, {}):
                if key in self._terminating_victims and self._bound[key].priority < at.priority:
                    return NOT_ELIGIBLE_TERMINATING
        return None

    def _preempt(self, at: Attempt) -> Candidate | str | None:
        """The node to nominate and its victims; or why the pod may not preempt; or None when no
        node has victims that help (the failure message then reports each node's reasons)."""
        self._victim_memo = {}
        why = self._not_eligible(at)
        if why is not None:
            return why
        if not self._priorities or min(self._priorities) >= at.priority:
            return None
        limit = min(len(self._nodes), max(len(self._nodes) * MIN_CANDIDATE_NODES_PERCENTAGE // 100,
                                          MIN_CANDIDATE_NODES_ABSOLUTE))
        candidates: list[Candidate] = []
        for name in sorted(self._nodes):
            node = self._nodes[name]
            result = self._filter(node, at)
            if result is None or result[1]:
                continue
            victims = self._select_victims(node, at)
            if victims:
                candidates.append((name, victims))
                if len(candidates) >= limit:
                    break
        if not candidates:
            return None
        return min(candidates, key=lambda c: (max(v.priority for v in c[1]),
                                              sum(v.priority + _PRIORITY_OFFSET for v in c[1]), len(c[1]), c[0]))

    def _select_victims(self, node: NodeInfo, at: Attempt) -> list[PodInfo]:
        """``SelectVictimsOnNode``: the fewest lower-priority pods (least important first) whose
        removal makes the pod fit; empty (and the reasons memoised) when there are none."""
        potential = [self._bound[k] for k in self._node_pods.get(node.name, {}) if self._bound[k].priority < at.priority]
        if not potential:
            self._victim_memo[node.name] = [R_NO_VICTIMS]
            return []
        for pod in potential:
            self._forget(pod.key, pod.uid)
        victims: list[PodInfo] = []
        try:
            at.forget_memos()
            result = self._filter(node, at)
            if result is not None:
                self._victim_memo[node.name] = result[0]
                return []
            for pod in sorted(potential, key=lambda p: (-p.priority, p.key)):
                self._assume(pod)
                at.forget_memos()
                if self._filter(node, at) is not None:
                    self._forget(pod.key, pod.uid)
                    victims.append(pod)
            return victims
        finally:
            for pod in potential:
                if pod.key not in self._bound:
                    self._assume(pod)
            at.forget_memos()

    def _victim_reasons(self, node: NodeInfo, at: Attempt, reasons: list[str]) -> list[str]:
        memo = self._victim_memo.get(node.name)
        return memo if memo is not None else super()._victim_reasons(node, at, reasons)
