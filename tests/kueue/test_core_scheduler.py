"""The admission cycle: ports of upstream's scheduler cases (``pkg/scheduler/scheduler_test.go``
``TestSchedule``, run with v0.19.2's default gates, so QuotaReserved=False says ``Pending``) and
the queueing behaviour of ``pkg/cache/queue`` (StrictFIFO, BestEffortFIFO, priorities)."""

from __future__ import annotations

from tests.kueue.core_builders import (
    admitted,
    cluster,
    cluster_queue,
    cond,
    events,
    finish,
    flavor,
    local_queue,
    wl,
    workload,
)


def _setup(fc, *cqs, lqs=()):  # type: ignore[no-untyped-def]
    fc.apply(flavor("on-demand"))
    fc.apply(flavor("spot"))
    for cq in cqs:
        fc.apply(cq)
    for lq in lqs:
        fc.apply(lq)
    fc.run_until_idle()


def test_scheduler__workload_fits_in_single_cluster_queue() -> None:
    # scheduler_test.go TestSchedule "workload fits in single clusterQueue"
    fc, _ = cluster()
    _setup(fc, cluster_queue("sales", [("default", {"cpu": "50"})]), lqs=[local_queue("main", "sales")])
    fc.apply(flavor("default"))
    fc.apply(workload("foo", "main", "1", count=10))
    fc.run_until_idle()
    obj = wl(fc, "foo")
    assert obj["status"]["admission"] == {"clusterQueue": "sales", "podSetAssignments": [
        {"name": "main", "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": "10"}, "count": 10}]}
    assert cond(obj, "QuotaReserved")["message"] == "Quota reserved in ClusterQueue sales"
    assert cond(obj, "Admitted")["reason"] == "Admitted"
    evs = events(fc, "foo")
    assert ("Normal", "QuotaReserved", "Quota reserved in ClusterQueue sales, wait time since queued was 0s") in evs
    assert ("Normal", "Admitted", "Admitted by ClusterQueue sales, wait time since reservation was 0s") in evs


def test_scheduler__single_cluster_queue_full() -> None:
    # TestSchedule "single clusterQueue full": the second waits with the assigner's message
    fc, _ = cluster()
    _setup(fc, cluster_queue("sales", [("default", {"cpu": "4"})]), lqs=[local_queue("main", "sales")])
    fc.apply(flavor("default"))
    fc.apply(workload("a", "main", "3"))
    fc.run_until_idle()
    fc.apply(workload("b", "main", "3"))
    fc.run_until_idle()
    qr = cond(wl(fc, "b"), "QuotaReserved")
    assert (qr["status"], qr["reason"]) == ("False", "Pending")
    assert qr["message"] == ("couldn't assign flavors to pod set main: insufficient unused quota for cpu in "
                             "flavor default, 2 more needed")
    assert wl(fc, "b")["status"]["resourceRequests"] == [{"name": "main", "resources": {"cpu": "3"}}]
    assert ("Warning", "Pending", qr["message"]) in events(fc, "b")
    # quota frees when the first finishes: the second is admitted
    finish(fc, "a")
    assert admitted(fc, "b")


def test_scheduler__not_enough_resources() -> None:
    # TestSchedule "not enough resources": beyond the maximum capacity
    fc, _ = cluster()
    _setup(fc, cluster_queue("sales", [("default", {"cpu": "4"})]), lqs=[local_queue("main", "sales")])
    fc.apply(flavor("default"))
    fc.apply(workload("big", "main", "5"))
    fc.run_until_idle()
    assert cond(wl(fc, "big"), "QuotaReserved")["message"] == (
        "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default, previously "
        "considered podsets requests (0) + current podset request (5) > maximum capacity (4)")


def test_scheduler__failed_to_match_cluster_queue_selector() -> None:
    # TestSchedule "failed to match clusterQueue selector"; and a null selector selects nothing
    fc, _ = cluster()
    fc.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "eng", "labels": {"dep": "eng"}}})
    _setup(fc, cluster_queue("sales", [("default", {"cpu": "4"})],
                             selector={"matchLabels": {"dep": "sales"}}),
           lqs=[local_queue("main", "sales", namespace="eng")])
    fc.apply(flavor("default"))
    fc.apply(workload("w", "main", "1", namespace="eng"))
    fc.run_until_idle()
    qr = cond(wl(fc, "w", "eng"), "QuotaReserved")
    assert (qr["reason"], qr["message"]) == ("Pending", "workload namespace doesn't match ClusterQueue selector")
    fc.patch("ClusterQueue", "sales", {"spec": {"namespaceSelector": {"matchLabels": None}}}, namespace=None)
    fc.run_until_idle()
    assert admitted(fc, "w", "eng")


def test_null_namespace_selector_selects_no_namespace() -> None:
    fc, _ = cluster()
    cq = cluster_queue("sales", [("default", {"cpu": "4"})])
    del cq["spec"]["namespaceSelector"]
    _setup(fc, cq, lqs=[local_queue("main", "sales")])
    fc.apply(flavor("default"))
    fc.apply(workload("w", "main"))
    fc.run_until_idle()
    assert not admitted(fc, "w")
    assert cond(wl(fc, "w"), "QuotaReserved")["message"] == "workload namespace doesn't match ClusterQueue selector"


def test_scheduler__admit_in_same_cohort_with_no_borrowing_and_borrowing_limits() -> None:
    # TestSchedule "cannot borrow if cohort was assigned and would result in overadmission" (shape)
    fc, _ = cluster()
    _setup(fc,
           cluster_queue("eng-alpha", [("on-demand", {"cpu": {"nominalQuota": "50", "borrowingLimit": "50"}})],
                         cohort="eng"),
           cluster_queue("eng-beta", [("on-demand", {"cpu": "50"})], cohort="eng"),
           lqs=[local_queue("alpha", "eng-alpha"), local_queue("beta", "eng-beta")])
    fc.apply(workload("borrower", "alpha", "1", count=70))
    fc.run_until_idle()
    obj = wl(fc, "borrower")
    assert admitted(fc, "borrower")
    cq = fc.get("ClusterQueue", "eng-alpha", None)
    assert cq["status"]["flavorsReservation"] == [
        {"name": "on-demand", "resources": [{"name": "cpu", "total": "70", "borrowed": "20"}]}]
    assert obj["status"]["admission"]["podSetAssignments"][0]["resourceUsage"] == {"cpu": "70"}
    # eng-beta's own workload can use only what is left in the cohort: 30
    fc.apply(workload("lender", "beta", "1", count=40))
    fc.run_until_idle()
    assert not admitted(fc, "lender")
    assert "insufficient unused quota for cpu in flavor on-demand, 10 more needed" in \
        cond(wl(fc, "lender"), "QuotaReserved")["message"]


def test_scheduler__workload_exceeds_lending_limit_when_borrow_in_cohort() -> None:
    # TestSchedule "workload exceeds lending limit when borrow in cohort"
    fc, _ = cluster()
    _setup(fc,
           cluster_queue("eng-alpha", [("on-demand", {"cpu": "10"})], cohort="eng"),
           cluster_queue("eng-beta", [("on-demand", {"cpu": {"nominalQuota": "10", "lendingLimit": "2"}})],
                         cohort="eng"),
           lqs=[local_queue("alpha", "eng-alpha")])
    fc.apply(workload("w", "alpha", "13"))
    fc.run_until_idle()
    assert cond(wl(fc, "w"), "QuotaReserved")["message"] == (
        "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor on-demand, previously "
        "considered podsets requests (0) + current podset request (13) > maximum capacity (12)")
    fc.apply(workload("fits", "alpha", "12"))
    fc.run_until_idle()
    assert admitted(fc, "fits")


def test_scheduler__not_enough_resources_to_borrow_fallback_to_next_flavor() -> None:
    # TestSchedule "not enough resources to borrow, fallback to next flavor"
    fc, _ = cluster()
    _setup(fc, cluster_queue("sales", [("on-demand", {"cpu": "2"}), ("spot", {"cpu": "10"})]),
           lqs=[local_queue("main", "sales")])
    fc.apply(workload("w", "main", "5"))
    fc.run_until_idle()
    assert wl(fc, "w")["status"]["admission"]["podSetAssignments"][0]["flavors"] == {"cpu": "spot"}


def test_flavor_node_labels_and_taints_rule_flavors_out() -> None:
    fc, _ = cluster()
    fc.apply(flavor("tainted", {"pool": "a"}, nodeTaints=[{"key": "gpu", "value": "true", "effect": "NoSchedule"}]))
    fc.apply(flavor("b-pool", {"pool": "b"}))
    fc.apply(flavor("c-pool", {"pool": "c"}))
    fc.apply(cluster_queue("cq", [("tainted", {"cpu": "10"}), ("b-pool", {"cpu": "10"}), ("c-pool", {"cpu": "10"})]))
    fc.apply(local_queue("lq", "cq"))
    fc.apply(workload("w", "lq", "1", nodeSelector={"pool": "c"}))
    fc.apply(workload("impossible", "lq", "1", nodeSelector={"pool": "z"}))
    fc.run_until_idle()
    assert wl(fc, "w")["status"]["admission"]["podSetAssignments"][0]["flavors"] == {"cpu": "c-pool"}
    assert cond(wl(fc, "impossible"), "QuotaReserved")["message"] == (
        "couldn't assign flavors to pod set main: flavor b-pool doesn't match node affinity, flavor c-pool "
        "doesn't match node affinity, untolerated taint {gpu true NoSchedule <nil>} in flavor tainted")


def test_strict_fifo_blocks_while_best_effort_fifo_moves_on() -> None:
    for strategy, small_admitted in (("StrictFIFO", False), ("BestEffortFIFO", True)):
        fc, _ = cluster()
        _setup(fc, cluster_queue("cq", [("on-demand", {"cpu": "4"})], queueingStrategy=strategy),
               lqs=[local_queue("lq", "cq")])
        fc.apply(workload("running", "lq", "3"))
        fc.run_until_idle()
        fc.advance(1)
        fc.apply(workload("big", "lq", "3"))
        fc.advance(1)
        fc.apply(workload("small", "lq", "1"))
        fc.run_until_idle()
        assert admitted(fc, "small") is small_admitted, strategy
        assert fc.get("ClusterQueue", "cq", None)["status"]["pendingWorkloads"] == (1 if small_admitted else 2)


def test_higher_priority_is_admitted_first() -> None:
    fc, _ = cluster()
    _setup(fc, cluster_queue("cq", [("on-demand", {"cpu": "4"})]), lqs=[local_queue("lq", "cq")])
    fc.apply(workload("running", "lq", "4"))
    fc.run_until_idle()
    fc.apply(workload("low", "lq", "4", priority=1))
    fc.advance(1)
    fc.apply(workload("high", "lq", "4", priority=100))
    fc.run_until_idle()
    finish(fc, "running")
    assert admitted(fc, "high") and not admitted(fc, "low")


def test_local_queue_missing_then_created_and_stopped_cluster_queue() -> None:
    fc, _ = cluster()
    fc.apply(flavor("on-demand"))
    fc.apply(workload("w", "lq", "1"))
    fc.run_until_idle()
    qr = cond(wl(fc, "w"), "QuotaReserved")
    assert (qr["reason"], qr["message"]) == ("Inadmissible", "LocalQueue lq doesn't exist")
    fc.apply(local_queue("lq", "cq"))
    fc.run_until_idle()
    assert cond(wl(fc, "w"), "QuotaReserved")["message"] == "ClusterQueue cq doesn't exist"
    lq = fc.get("LocalQueue", "lq")
    assert [(c["reason"], c["message"]) for c in lq["status"]["conditions"]] == [
        ("ClusterQueueDoesNotExist", "Can't submit new workloads to clusterQueue")]
    fc.apply(cluster_queue("cq", [("on-demand", {"cpu": "4"})], stopPolicy="Hold"))
    fc.run_until_idle()
    assert not admitted(fc, "w")
    cq = fc.get("ClusterQueue", "cq", None)
    assert [(c["status"], c["reason"], c["message"]) for c in cq["status"]["conditions"]] == [
        ("False", "Stopped", "Can't admit new workloads: is stopped.")]
    assert cond(wl(fc, "w"), "QuotaReserved")["message"] == "ClusterQueue cq is inactive"
    fc.patch("ClusterQueue", "cq", {"spec": {"stopPolicy": "None"}}, namespace=None)
    fc.run_until_idle()
    assert admitted(fc, "w")
    assert fc.get("LocalQueue", "lq")["status"]["admittedWorkloads"] == 1


def test_cluster_queue_with_missing_flavor_is_inactive() -> None:
    fc, _ = cluster()
    fc.apply(cluster_queue("cq", [("nope", {"cpu": "4"})]))
    fc.run_until_idle()
    cond_ = fc.get("ClusterQueue", "cq", None)["status"]["conditions"][0]
    assert (cond_["reason"], cond_["message"]) == (
        "FlavorNotFound", "Can't admit new workloads: references missing ResourceFlavor(s): nope.")


def test_stopped_local_queue_hold_and_drain_evicts() -> None:
    fc, _ = cluster()
    _setup(fc, cluster_queue("cq", [("on-demand", {"cpu": "4"})]), lqs=[local_queue("lq", "cq")])
    fc.apply(workload("w", "lq", "1"))
    fc.run_until_idle()
    assert admitted(fc, "w")
    fc.patch("LocalQueue", "lq", {"spec": {"stopPolicy": "HoldAndDrain"}})
    fc.run_until_idle()
    ev = cond(wl(fc, "w"), "Evicted")
    assert (ev["status"], ev["reason"], ev["message"]) == ("True", "LocalQueueStopped", "The LocalQueue is stopped")
    assert ("Normal", "EvictedDueToLocalQueueStopped", "The LocalQueue is stopped") in events(fc, "w")


def test_partial_admission_single_variable_pod_set() -> None:
    # TestSchedule "partial admission single variable pod set"
    fc, _ = cluster()
    _setup(fc, cluster_queue("cq", [("on-demand", {"cpu": "4"})]), lqs=[local_queue("lq", "cq")])
    fc.apply(workload("w", "lq", "1", count=6, min_count=2))
    fc.run_until_idle()
    psa = wl(fc, "w")["status"]["admission"]["podSetAssignments"][0]
    assert (psa["count"], psa["resourceUsage"]) == (4, {"cpu": "4"})


def _run_queue(seed: int) -> list[str]:
    fc, core = cluster(seed=seed)
    _setup(fc, cluster_queue("cq", [("on-demand", {"cpu": "2"})]), lqs=[local_queue("lq", "cq")])
    for i in range(8):
        fc.apply(workload(f"w{i}", "lq", "1", priority=i % 3))
    fc.run_until_idle()
    for _ in range(8):
        held = sorted(core.manager.cache.cluster_queues["cq"].workloads)
        if held:
            finish(fc, held[0][1])
        fc.advance(1)
    return list(fc.trace.lines)


def test_admission_trace_is_deterministic() -> None:
    first = _run_queue(7)
    assert first == _run_queue(7)
    assert any("kueue-scheduler admitted default/" in line for line in first)


def test_each_release_admits_the_next_in_priority_order() -> None:
    fc, core = cluster()
    _setup(fc, cluster_queue("cq", [("on-demand", {"cpu": "1"})]), lqs=[local_queue("lq", "cq")])
    for i, p in enumerate((1, 3, 5)):
        fc.apply(workload(f"w{i}", "lq", "1", priority=p))
    fc.run_until_idle()
    order = []
    for _ in range(3):
        held = sorted(core.manager.cache.cluster_queues["cq"].workloads)
        assert len(held) == 1
        order.append(held[0][1])
        finish(fc, held[0][1])
    assert order == ["w0", "w2", "w1"]  # w0 took the free quota at once; then by priority
    status = fc.get("ClusterQueue", "cq", None)["status"]
    assert (status["pendingWorkloads"], status["reservingWorkloads"], status["admittedWorkloads"]) == (0, 0, 0)
