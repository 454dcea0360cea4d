"""waitForPodsReady: ports of ``test/integration/singlecluster/scheduler/podsready`` cases and
``pkg/controller/core/workload_controller_test.go`` (``TestReconcile`` PodsReady timeout cases):
eviction with ``PodsReadyTimeout``, the requeue state and backoff, ``BackoffFinished``, and the
deactivation past ``backoffLimitCount``."""

from __future__ import annotations

from fakekube._core.clock import parse_time
from tests.kueue.core_builders import (
    admitted,
    cluster,
    cluster_queue,
    cond,
    events,
    finish_eviction,
    flavor,
    local_queue,
    set_pods_ready,
    wl,
    workload,
)


def _setup(config: dict | None = None):  # type: ignore[no-untyped-def]
    fc, core = cluster(config)
    fc.apply(flavor("default"))
    fc.apply(cluster_queue("cq", [("default", {"cpu": "4"})]))
    fc.apply(local_queue("lq", "cq"))
    fc.apply(workload("w", "lq", "2"))
    fc.run_until_idle()
    return fc, core


def test_should_requeue_a_workload_which_exceeded_the_timeout_to_reach_pods_ready() -> None:
    # podsready/scheduler_test.go "Should requeue a workload which exceeded the timeout to reach PodsReady=True"
    fc, _ = _setup({"waitForPodsReady": {"timeout": "5m"}})
    assert admitted(fc, "w")
    fc.advance(299)
    assert cond(wl(fc, "w"), "Evicted") is None
    fc.advance(1)
    obj = wl(fc, "w")
    evicted = cond(obj, "Evicted")
    assert (evicted["reason"], evicted["message"]) == ("PodsReadyTimeout", "Exceeded the PodsReady timeout default/w")
    state = obj["status"]["requeueState"]
    assert state["count"] == 1
    assert parse_time(state["requeueAt"]) - parse_time(evicted["lastTransitionTime"]) == 60 * 10**9
    assert obj["status"]["schedulingStats"]["evictions"] == [
        {"reason": "PodsReadyTimeout", "underlyingCause": "WaitForStart", "count": 1}]
    assert ("Normal", "EvictedDueToPodsReadyTimeout", "Exceeded the PodsReady timeout default/w") in events(fc, "w")
    # the job framework stops the job and releases the quota; the backoff keeps it out
    finish_eviction(fc, "w")
    requeued = cond(wl(fc, "w"), "Requeued")
    assert (requeued["status"], requeued["reason"]) == ("False", "PodsReadyTimeout")
    fc.advance(30)
    assert not admitted(fc, "w")
    fc.advance(31)
    obj = wl(fc, "w")
    requeued = cond(obj, "Requeued")
    assert (requeued["status"], requeued["reason"], requeued["message"]) == (
        "True", "BackoffFinished", "The workload backoff was finished")
    assert admitted(fc, "w")
    assert obj["status"]["requeueState"] == {"count": 1}


def test_pods_ready_in_time_is_not_evicted() -> None:
    fc, _ = _setup({"waitForPodsReady": {"timeout": "5m"}})
    fc.advance(100)
    set_pods_ready(fc, "w")
    fc.advance(600)
    assert cond(wl(fc, "w"), "Evicted") is None


def test_default_timeout_is_thirty_minutes() -> None:
    fc, _ = _setup()
    fc.advance(30 * 60 - 1)
    assert cond(wl(fc, "w"), "Evicted") is None
    fc.advance(1)
    assert cond(wl(fc, "w"), "Evicted")["reason"] == "PodsReadyTimeout"


def test_should_deactivate_after_the_requeuing_limit() -> None:
    # podsready "Should deactivate the workload when the requeuing limit is exceeded" (backoffLimitCount 0)
    fc, _ = _setup({"waitForPodsReady": {"timeout": "5m", "requeuingStrategy": {"backoffLimitCount": 0}}})
    fc.advance(300)
    obj = wl(fc, "w")
    assert obj["spec"]["active"] is False
    evicted = cond(obj, "Evicted")
    assert (evicted["reason"], evicted["message"]) == (
        "DeactivatedDueToRequeuingLimitExceeded",
        "The workload is deactivated due to exceeding the maximum number of re-queuing retries")
    assert cond(obj, "DeactivationTarget") is None
    assert obj["status"]["schedulingStats"]["evictions"] == [
        {"reason": "Deactivated", "underlyingCause": "RequeuingLimitExceeded", "count": 1}]
    # the job framework releases the quota (job_controller_test.go expects this Requeued)
    finish_eviction(fc, "w")
    requeued = cond(wl(fc, "w"), "Requeued")
    assert (requeued["status"], requeued["reason"]) == ("False", "DeactivatedDueToRequeuingLimitExceeded")


def test_deactivated_by_the_user_then_reactivated() -> None:
    # job_controller_test.go "checking the first job becomes unsuspended after we update the Active field"
    fc, _ = _setup()
    fc.patch("Workload", "w", {"spec": {"active": False}})
    fc.run_until_idle()
    evicted = cond(wl(fc, "w"), "Evicted")
    assert (evicted["reason"], evicted["message"]) == ("Deactivated", "The workload is deactivated")
    finish_eviction(fc, "w")
    assert not admitted(fc, "w")
    fc.patch("Workload", "w", {"spec": {"active": True}})
    fc.run_until_idle()
    obj = wl(fc, "w")
    assert admitted(fc, "w")
    requeued = cond(obj, "Requeued")
    assert (requeued["status"], requeued["reason"], requeued["message"]) == (
        "True", "Reactivated", "The workload was reactivated")
    evicted = cond(obj, "Evicted")
    assert (evicted["status"], evicted["reason"], evicted["message"]) == (
        "False", "QuotaReserved", "Previously: The workload is deactivated")


def test_backoff_grows_exponentially() -> None:
    fc, _ = _setup({"waitForPodsReady": {"timeout": "1m"}})
    waits = []
    for _ in range(3):
        fc.run_until(lambda: cond(wl(fc, "w"), "Evicted") is not None
                     and cond(wl(fc, "w"), "Evicted")["status"] == "True", timeout=10_000)
        obj = wl(fc, "w")
        waits.append((parse_time(obj["status"]["requeueState"]["requeueAt"]) - fc.loop.now) // 10**9)
        finish_eviction(fc, "w")
        fc.run_until(lambda: admitted(fc, "w"), timeout=10_000)
    assert waits == [60, 120, 240]
