"""Preemption: ports of ``pkg/scheduler/preemption/preemption_test.go`` (``TestPreemption``) and
``test/integration/singlecluster/scheduler/preemption_test.go`` cases, end to end: the Evicted
and Preempted conditions with upstream's reasons and messages, the events, and the preemptor
admitted once the targets release their quota."""

from __future__ import annotations

from tests.kueue.core_builders import (
    admitted,
    cluster,
    cluster_queue,
    cond,
    events,
    finish_eviction,
    flavor,
    local_queue,
    wl,
    workload,
)


def _cq(name: str, quota: str, *, within: str = "Never", reclaim: str = "Never", cohort: str = "",
        borrow: dict | None = None, borrowing_limit: str | None = None) -> dict:
    q: dict = {"nominalQuota": quota}
    if borrowing_limit is not None:
        q["borrowingLimit"] = borrowing_limit
    preemption: dict = {"withinClusterQueue": within, "reclaimWithinCohort": reclaim}
    if borrow:
        preemption["borrowWithinCohort"] = borrow
    return cluster_queue(name, [("default", {"cpu": q})], cohort=cohort, preemption=preemption)


def test_preemption__preempt_lowest_priority() -> None:
    # preemption_test.go TestPreemption "preempt lowest priority" (withinClusterQueue LowerPriority)
    fc, _ = cluster()
    fc.apply(flavor("default"))
    fc.apply(_cq("standalone", "6", within="LowerPriority"))
    fc.apply(local_queue("lq", "standalone"))
    fc.apply(workload("low", "lq", "2", priority=-1))
    fc.apply(workload("mid", "lq", "2", priority=0))
    fc.apply(workload("high", "lq", "2", priority=1))
    fc.run_until_idle()
    fc.advance(1)
    fc.apply(workload("in", "lq", "2", priority=1))
    fc.run_until_idle()
    low = wl(fc, "low")
    preempted = cond(low, "Preempted")
    evicted = cond(low, "Evicted")
    uid = wl(fc, "in")["metadata"]["uid"]
    message = (f"Preempted to accommodate a workload (UID: {uid}, JobUID: UNKNOWN) due to prioritization in the "
               "ClusterQueue; preemptor path: /standalone; preemptee path: /standalone")
    assert (preempted["status"], preempted["reason"], preempted["message"]) == ("True", "InClusterQueue", message)
    assert (evicted["status"], evicted["reason"], evicted["message"]) == ("True", "Preempted", message)
    assert low["status"]["schedulingStats"] == {"evictions": [{"reason": "Preempted", "underlyingCause": "",
                                                               "count": 1}]}
    for other in ("mid", "high"):
        assert cond(wl(fc, other), "Evicted") is None
    qr = cond(wl(fc, "in"), "QuotaReserved")
    assert qr["message"].endswith(". Pending the preemption of 1 workload(s)")
    reasons = [e[1] for e in events(fc, "low")]
    assert "EvictedDueToPreempted" in reasons and "Preempted" in reasons
    assert any(e[1] == "PreemptedWorkload" and e[2].startswith("Preempted workload default/low")
               for e in events(fc, "in"))
    # the job framework stops the job: the quota is released and the preemptor gets in
    finish_eviction(fc, "low")
    assert admitted(fc, "in")
    low = wl(fc, "low")
    assert cond(low, "Requeued")["status"] == "True"
    assert cond(low, "QuotaReserved")["status"] == "False"
    # the preempted workload is pending again, and admitted when it fits
    assert fc.get("ClusterQueue", "standalone", None)["status"]["pendingWorkloads"] == 1


def test_preemption__preempt_newer_workloads_with_the_same_priority() -> None:
    # TestPreemption "preempt newer workloads with the same priority" (LowerOrNewerEqualPriority):
    # an older pending workload preempts a newer admitted one of equal priority, never the reverse
    fc, _ = cluster()
    fc.apply(flavor("default"))
    fc.apply(_cq("prevent-starvation", "2", within="LowerOrNewerEqualPriority"))
    fc.apply(local_queue("late", "prevent-starvation"))
    fc.apply(workload("older", "early", "2"))  # its LocalQueue does not exist yet
    fc.advance(1)
    fc.apply(workload("newer", "late", "2"))
    fc.run_until_idle()
    assert admitted(fc, "newer")
    fc.apply(workload("newest", "late", "2"))
    fc.run_until_idle()
    assert cond(wl(fc, "newer"), "Evicted") is None  # a newer workload does not preempt an older one
    fc.apply(local_queue("early", "prevent-starvation"))
    fc.run_until_idle()
    pre = cond(wl(fc, "newer"), "Preempted")
    assert pre is not None and pre["reason"] == "InClusterQueue"
    finish_eviction(fc, "newer")
    assert admitted(fc, "older")


def test_preemption__never_policy_does_not_preempt() -> None:
    fc, _ = cluster()
    fc.apply(flavor("default"))
    fc.apply(_cq("cq", "2"))
    fc.apply(local_queue("lq", "cq"))
    fc.apply(workload("low", "lq", "2", priority=0))
    fc.run_until_idle()
    fc.apply(workload("high", "lq", "2", priority=100))
    fc.run_until_idle()
    assert cond(wl(fc, "low"), "Evicted") is None
    assert not admitted(fc, "high")


def test_preemption__reclaim_quota_from_borrower() -> None:
    # TestPreemption "reclaim quota from borrower" (reclaimWithinCohort Any)
    fc, _ = cluster()
    fc.apply(flavor("default"))
    fc.apply(_cq("c1", "6", reclaim="Any", cohort="cohort"))
    fc.apply(_cq("c2", "6", reclaim="Never", cohort="cohort"))
    fc.apply(local_queue("l1", "c1"))
    fc.apply(local_queue("l2", "c2"))
    fc.apply(workload("c2-high", "l2", "4", priority=100))
    fc.apply(workload("c2-borrowing", "l2", "6", priority=100))
    fc.run_until_idle()
    assert admitted(fc, "c2-high") and admitted(fc, "c2-borrowing")
    fc.apply(workload("in", "l1", "4", priority=0))
    fc.run_until_idle()
    evicted = [n for n in ("c2-high", "c2-borrowing") if cond(wl(fc, n), "Evicted")]
    assert len(evicted) == 1
    pre = cond(wl(fc, evicted[0]), "Preempted")
    assert pre["reason"] == "InCohortReclamation"
    assert "due to reclamation within the cohort; preemptor path: /cohort/c1; preemptee path: /cohort/c2" \
        in pre["message"]
    finish_eviction(fc, evicted[0])
    assert admitted(fc, "in")


def test_preemption__reclaim_while_borrowing_with_borrow_within_cohort() -> None:
    # TestPreemption "preempt from all ClusterQueues in cohort-lower priority while borrowing"
    # (borrowWithinCohort LowerPriority)
    fc, _ = cluster()
    fc.apply(flavor("default"))
    fc.apply(_cq("a", "4", reclaim="LowerPriority", cohort="co", borrow={"policy": "LowerPriority"}))
    fc.apply(_cq("b", "4", cohort="co"))
    fc.apply(local_queue("la", "a"))
    fc.apply(local_queue("lb", "b"))
    fc.apply(workload("b-low", "lb", "6", priority=0))
    fc.run_until_idle()
    assert admitted(fc, "b-low")
    fc.apply(workload("a-high", "la", "6", priority=10))
    fc.run_until_idle()
    pre = cond(wl(fc, "b-low"), "Preempted")
    assert pre is not None and pre["reason"] == "InCohortReclaimWhileBorrowing"
    assert "reclamation within the cohort while borrowing" in pre["message"]


def test_preemption__no_candidates_waits_for_quota() -> None:
    fc, _ = cluster()
    fc.apply(flavor("default"))
    fc.apply(_cq("cq", "2", within="LowerPriority"))
    fc.apply(local_queue("lq", "cq"))
    fc.apply(workload("same", "lq", "2", priority=5))
    fc.run_until_idle()
    fc.apply(workload("equal", "lq", "2", priority=5))
    fc.run_until_idle()
    assert cond(wl(fc, "same"), "Evicted") is None
    assert cond(wl(fc, "equal"), "QuotaReserved")["message"] == (
        "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, "
        "2 more needed")
