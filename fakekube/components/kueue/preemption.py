"""Classical preemption (``pkg/scheduler/preemption``: ``preemption.go``, ``classical/``, ``common/``).

Candidates come from the preemptor's ClusterQueue (``withinClusterQueue``: LowerPriority,
LowerOrNewerEqualPriority, Any) and, with ``reclaimWithinCohort``, from ClusterQueues of the
cohort tree that use more than their nominal quota of a flavor-resource needing preemption
(hierarchical reclaim when the preemptor's subtree has the quota; ``borrowWithinCohort`` lets a
borrowing preemptor reclaim lower-priority workloads, under ``maxPriorityThreshold``).
Candidates are ordered evicted first, other ClusterQueues first, lower priority first, most
recently admitted first; they are removed from the snapshot one by one until the preemptor fits,
then the ones not needed are put back (``fillBackWorkloads``).

Fair sharing preemption is not ported (docs/fidelity.md).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import constants as c
from . import workload as wlutil
from .flavor_assigner import NO_CANDIDATES, POSSIBLE_PREEMPT, POSSIBLE_RECLAIM, lowest_subtree_that_fits

if TYPE_CHECKING:
    from .cache import Node, Snapshot, SnapshotCQ
    from .resources import FlavorResource

__all__ = ["Target", "get_targets", "preemption_message", "simulate_preemption"]

# preemptionVariant
_NEVER, _WITHIN_CQ, _HIERARCHICAL_RECLAIM, _RECLAIM_WITHOUT_BORROWING, _RECLAIM_WHILE_BORROWING = range(5)
_REASONS = {_WITHIN_CQ: c.IN_CLUSTER_QUEUE_REASON, _HIERARCHICAL_RECLAIM: c.IN_COHORT_RECLAMATION_REASON,
            _RECLAIM_WITHOUT_BORROWING: c.IN_COHORT_RECLAMATION_REASON,
            _RECLAIM_WHILE_BORROWING: c.IN_COHORT_RECLAIM_WHILE_BORROWING_REASON}


@dataclass(slots=True)
class Target:
    info: wlutil.Info
    reason: str
    cq: SnapshotCQ


@dataclass(slots=True)
class _Candidate:
    info: wlutil.Info
    lca: Node | None
    variant: int


@dataclass(slots=True)
class _Ctx:
    preemptor: wlutil.Info
    cq: SnapshotCQ
    snapshot: Snapshot
    frs: set[FlavorResource]
    requests: dict[FlavorResource, int]
    requeuing_timestamp: str
    now: str


def preemption_message(preemptor: dict[str, Any], reason: str, preemptor_path: str, preemptee_path: str) -> str:
    uid = preemptor["metadata"].get("uid") or "UNKNOWN"
    job_uid = (preemptor["metadata"].get("labels") or {}).get(c.JOB_UID_LABEL) or "UNKNOWN"
    return (f"Preempted to accommodate a workload (UID: {uid}, JobUID: {job_uid}) due to "
            f"{c.HUMAN_READABLE_PREEMPTION_REASONS.get(reason, 'UNKNOWN')}; preemptor path: "
            f"{preemptor_path or 'UNKNOWN'}; preemptee path: {preemptee_path or 'UNKNOWN'}")


def cq_path(cq: SnapshotCQ) -> str:
    """``buildCQPath``: ``/root/.../cohort/cq``."""
    parts = [cq.name]
    parts.extend(node.name for node in cq.node.path_parent_to_root())
    return "/" + "/".join(reversed(parts))


def _satisfies_policy(ctx: _Ctx, candidate: dict[str, Any], policy: str) -> bool:
    p, q = wlutil.priority(ctx.preemptor.obj), wlutil.priority(candidate)
    lower = p > q
    if policy == c.PREEMPTION_LOWER_PRIORITY:
        return lower
    if policy == c.PREEMPTION_LOWER_OR_NEWER_EQUAL_PRIORITY:
        newer = p == q and wlutil.queue_order_timestamp(ctx.preemptor.obj, ctx.requeuing_timestamp) \
            < wlutil.queue_order_timestamp(candidate, ctx.requeuing_timestamp)
        return lower or newer
    return policy == c.PREEMPTION_ANY


def _uses_resources(info: wlutil.Info, frs: set[FlavorResource]) -> bool:
    return any((flavor, res) in frs for ps in info.total_requests for res, flavor in ps.flavors.items())


def _borrowing_forbidden(cq: SnapshotCQ) -> tuple[bool, int | None]:
    bwc = cq.state.preemption.get("borrowWithinCohort") or {}
    if not bwc or (bwc.get("policy") or c.PREEMPTION_NEVER) == c.PREEMPTION_NEVER:
        return True, None
    return False, bwc.get("maxPriorityThreshold")


def _classify(ctx: _Ctx, info: wlutil.Info, hierarchical_advantage: bool) -> int:
    if not _uses_resources(info, ctx.frs):
        return _NEVER
    same = info.cluster_queue == ctx.cq.name
    preemption = ctx.cq.state.preemption
    policy = (preemption.get("withinClusterQueue") if same else preemption.get("reclaimWithinCohort")) \
        or c.PREEMPTION_NEVER
    if not _satisfies_policy(ctx, info.obj, policy):
        return _NEVER
    if same:
        return _WITHIN_CQ
    if hierarchical_advantage:
        return _HIERARCHICAL_RECLAIM
    forbidden, threshold = _borrowing_forbidden(ctx.cq)
    if forbidden:
        return _RECLAIM_WITHOUT_BORROWING
    candidate_p, incoming_p = wlutil.priority(info.obj), wlutil.priority(ctx.preemptor.obj)
    if candidate_p >= incoming_p or (threshold is not None and candidate_p > threshold):
        return _RECLAIM_WITHOUT_BORROWING
    return _RECLAIM_WHILE_BORROWING


def _from_cq(ctx: _Ctx, cq: SnapshotCQ, lca: Node | None, advantage: bool) -> list[_Candidate]:
    out = []
    for k in sorted(cq.workloads):
        info = cq.workloads[k]
        variant = _classify(ctx, info, advantage)
        if variant != _NEVER:
            out.append(_Candidate(info, lca, variant))
    return out


def _collect_in_subtree(ctx: _Ctx, current: Node, subtree_root: Node, skip: Node | None, advantage: bool,
                        out: list[_Candidate]) -> None:
    for child in current.child_cohorts:
        if child is skip or child.is_within_nominal_in(ctx.frs):
            continue
        _collect_in_subtree(ctx, child, subtree_root, skip, advantage, out)
    for child in current.child_cqs:
        if child is ctx.cq.node:
            continue
        if not child.is_within_nominal_in(ctx.frs):
            out.extend(_from_cq(ctx, ctx.snapshot.cq_of_node(child), subtree_root, advantage))


def _hierarchical_candidates(ctx: _Ctx) -> tuple[list[_Candidate], list[_Candidate]]:
    hierarchy: list[_Candidate] = []
    priority: list[_Candidate] = []
    node = ctx.cq.node
    if node.parent is None or (ctx.cq.state.preemption.get("reclaimWithinCohort") or c.PREEMPTION_NEVER) \
            == c.PREEMPTION_NEVER:
        return hierarchy, priority
    advantage, remaining = node.quantities_fit_in_quota(ctx.requests)
    previous: Node | None = None
    for root in node.path_parent_to_root():
        _collect_in_subtree(ctx, root, root, previous, advantage, hierarchy if advantage else priority)
        fits, remaining = root.quantities_fit_in_quota(remaining)
        advantage = advantage or fits
        previous = root
    return hierarchy, priority


def _candidate_order(ctx: _Ctx, a: _Candidate, b: _Candidate) -> int:
    """``CandidatesOrdering``."""
    ea, eb = wlutil.is_evicted(a.info.obj), wlutil.is_evicted(b.info.obj)
    if ea != eb:
        return -1 if ea else 1
    sa, sb = a.info.cluster_queue == ctx.cq.name, b.info.cluster_queue == ctx.cq.name
    if sa != sb:
        return -1 if not sa else 1
    pa, pb = wlutil.priority(a.info.obj), wlutil.priority(b.info.obj)
    if pa != pb:
        return -1 if pa < pb else 1
    ta, tb = _reservation_time(a.info.obj, ctx.now), _reservation_time(b.info.obj, ctx.now)
    if ta != tb:
        return -1 if ta > tb else 1
    ua: str = a.info.obj["metadata"].get("uid", "")
    ub: str = b.info.obj["metadata"].get("uid", "")
    return (ua > ub) - (ua < ub)


def _reservation_time(wl: dict[str, Any], now: str) -> str:
    cond = wlutil.find_condition(wl, c.WORKLOAD_QUOTA_RESERVED)
    if cond is None or cond.get("status") != "True":
        return now
    reserved_at: str = cond.get("lastTransitionTime", now)
    return reserved_at


def _valid(ctx: _Ctx, cand: _Candidate, borrow: bool) -> bool:
    if cand.info.cluster_queue == ctx.cq.name:
        return True
    if borrow and cand.variant == _RECLAIM_WITHOUT_BORROWING:
        return False
    node = ctx.snapshot.cluster_queues[cand.info.cluster_queue].node
    if node.is_within_nominal_in(ctx.frs):
        return False
    for ancestor in node.path_parent_to_root():
        if ancestor is cand.lca:
            break
        if ancestor.is_within_nominal_in(ctx.frs):
            return False
    return True


def _fits(ctx: _Ctx, allow_borrowing: bool) -> bool:
    node = ctx.cq.node
    for fr, v in ctx.requests.items():
        if not allow_borrowing and node.borrowing_with(fr, v):
            return False
        if v > node.available(fr):
            return False
    return True


def _under_nominal(ctx: _Ctx) -> bool:
    node = ctx.cq.node
    for fr in ctx.frs:
        quota = node.quotas.get(fr)
        if (quota.nominal if quota else 0) <= node.usage.get(fr, 0):
            return False
    return True


def _classical(ctx: _Ctx) -> list[Target]:
    same: list[_Candidate] = []
    if (ctx.cq.state.preemption.get("withinClusterQueue") or c.PREEMPTION_NEVER) != c.PREEMPTION_NEVER:
        same = _from_cq(ctx, ctx.cq, None, False)
    hierarchy, priority = _hierarchical_candidates(ctx)
    def compare(a: _Candidate, b: _Candidate) -> int:
        return _candidate_order(ctx, a, b)

    order = functools.cmp_to_key(compare)
    for group in (same, hierarchy, priority):
        group.sort(key=order)

    def split(group: list[_Candidate]) -> tuple[list[_Candidate], list[_Candidate]]:
        return [x for x in group if wlutil.is_evicted(x.info.obj)], [x for x in group if not wlutil.is_evicted(x.info.obj)]

    eh, nh = split(hierarchy)
    ep, np_ = split(priority)
    es, ns = split(same)
    candidates = eh + ep + es + nh + np_ + ns
    no_other = not hierarchy and not priority
    forbidden, _ = _borrowing_forbidden(ctx.cq)
    if no_other or (forbidden and not _under_nominal(ctx)):
        attempts = [True]
    elif forbidden and not hierarchy:
        attempts = [False, True]
    else:
        attempts = [True, False]
    for borrow in attempts:
        targets: list[Target] = []
        for cand in candidates:
            if not _valid(ctx, cand, borrow):
                continue
            ctx.snapshot.remove_workload(cand.info)
            targets.append(Target(cand.info, _REASONS[cand.variant],
                                  ctx.snapshot.cluster_queues[cand.info.cluster_queue]))
            if _fits(ctx, borrow):
                targets = _fill_back(ctx, targets, borrow)
                for t in targets:
                    ctx.snapshot.add_workload(t.info)
                return targets
        for t in targets:
            ctx.snapshot.add_workload(t.info)
    return []


def _fill_back(ctx: _Ctx, targets: list[Target], borrow: bool) -> list[Target]:
    for i in range(len(targets) - 2, -1, -1):
        ctx.snapshot.add_workload(targets[i].info)
        if _fits(ctx, borrow):
            targets[i] = targets[-1]
            targets.pop()
        else:
            ctx.snapshot.remove_workload(targets[i].info)
    return targets


def get_targets(preemptor: wlutil.Info, cq: SnapshotCQ, snapshot: Snapshot, frs: set[FlavorResource],
                requests: dict[FlavorResource, int], requeuing_timestamp: str, now: str) -> list[Target]:
    """``Preemptor.GetTargets`` (classical)."""
    return _classical(_Ctx(preemptor, cq, snapshot, frs, requests, requeuing_timestamp, now))


def simulate_preemption(cq: SnapshotCQ, preemptor: wlutil.Info, snapshot: Snapshot, fr: FlavorResource,
                        quantity: int, requeuing_timestamp: str, now: str) -> tuple[str, int]:
    """``PreemptionOracle.SimulatePreemption``: whether preemption could free ``quantity`` of
    ``fr``, and how high the preemptor would then borrow."""
    targets = get_targets(preemptor, cq, snapshot, {fr}, {fr: quantity}, requeuing_timestamp, now)
    if not targets:
        borrow, _ = lowest_subtree_that_fits(cq, fr, quantity)
        return NO_CANDIDATES, borrow
    for t in targets:
        snapshot.remove_workload(t.info)
    borrow, _ = lowest_subtree_that_fits(cq, fr, quantity)
    for t in targets:
        snapshot.add_workload(t.info)
    if any(t.info.cluster_queue == cq.name for t in targets):
        return POSSIBLE_PREEMPT, borrow
    return POSSIBLE_RECLAIM, borrow
