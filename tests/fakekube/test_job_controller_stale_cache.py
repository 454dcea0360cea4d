"""The Job controller on a stale cache (issue #15): late watch deliveries must not make it create
pods it already created (expectations) or rerun indexes it already counted (a finished Job stays
finished until the cache shows it: upstream's ``finishedJobExpectations``, Kubernetes 1.33)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import FakeCluster
from fakekube.faults import DelayDelivery, parse_fault
from fakekube.testing import make_job

INDEX = "batch.kubernetes.io/job-completion-index"


def cluster_with(*faults: dict[str, Any]) -> FakeCluster:
    cluster = FakeCluster(seed=0)
    cluster.add_node("n0")
    for spec in faults:
        (action, body), = spec.items()
        parse_fault(action, body).apply(cluster)
    return cluster


def indexed_job(run_seconds: int | None = 30, **spec: Any) -> dict[str, Any]:
    body = make_job(completionMode="Indexed", **{"completions": 2, "parallelism": 2, **spec})
    if run_seconds is not None:
        body["spec"]["template"]["metadata"] = {"annotations": {"fakekube.io/run-seconds": str(run_seconds)}}
    return body


def pods(cluster: FakeCluster) -> list[tuple[str, str, str]]:
    return [(p["metadata"]["name"], (p["metadata"].get("annotations") or {}).get(INDEX, ""), p["status"].get("phase", ""))
            for p in cluster.list("pods")]


def job_events(cluster: FakeCluster) -> list[tuple[str, str]]:
    return [(e["reason"], e["message"]) for e in cluster.events() if e["involvedObject"]["kind"] == "Job"]


def finished(cluster: FakeCluster) -> tuple[Any, ...]:
    status = cluster.get("Job", "pi")["status"]
    conds = [c["type"] for c in status.get("conditions", []) if c["status"] == "True"]
    return status.get("succeeded"), status.get("failed"), status.get("completedIndexes"), conds


# The case: an Indexed Job (2 pods, 30 s) whose status writes reach the watchers 2 s late.
STATUS_WRITES_LATE = {"inject": {"verb": "update", "resource": "jobs", "subresource": "status", "delaySeconds": 2}}


def test_status_events_two_seconds_late_bring_no_second_pod_for_a_succeeded_index() -> None:
    cluster = cluster_with(STATUS_WRITES_LATE)
    cluster.create(indexed_job())
    cluster.advance(120)
    # The sync that counted both indexes wrote Complete; the next one (pod events, 1 s later) saw
    # the Job without it and, before the fix, created pi-0-s2hwh and pi-1-46nb4.
    assert pods(cluster) == [("pi-0-gtwjp", "0", "Succeeded"), ("pi-1-ph6wt", "1", "Succeeded")]
    assert finished(cluster) == (2, None, "0,1", ["SuccessCriteriaMet", "Complete"])
    assert job_events(cluster) == [("SuccessfulCreate", "Created pod: pi-0-gtwjp"),
                                   ("SuccessfulCreate", "Created pod: pi-1-ph6wt"),
                                   ("Completed", "Job completed")]


def test_a_late_job_delivery_to_the_informer_brings_no_second_pod_either() -> None:
    cluster = cluster_with()
    cluster.create(indexed_job())
    cluster.advance(31.5)  # both pods succeeded at 31.01; the sync at 32.01 finishes the Job
    DelayDelivery("Job", nth=1, seconds=5).apply(cluster)
    cluster.advance(90)
    assert pods(cluster) == [("pi-0-gtwjp", "0", "Succeeded"), ("pi-1-ph6wt", "1", "Succeeded")]
    assert finished(cluster) == (2, None, "0,1", ["SuccessCriteriaMet", "Complete"])
    assert cluster.trace.grep("delay-delivery jobs.batch: MODIFIED default/pi") != []


def test_a_stale_completed_index_before_the_job_finishes_is_upstreams_short_lived_duplicate() -> None:
    """Index 0 succeeds at 31 s, index 1 at 61 s. The sync after index 0 writes completedIndexes
    "0" (seen 2 s late) and removes the pod's finalizer (seen at once); the next sync sees a
    succeeded pod without finalizer and a Job without the index, so index 0 looks pending: upstream
    1.32-1.34 creates a pod for it, then deletes it as excess once the status arrives. It never
    runs to success and the Job counts each index once."""
    cluster = cluster_with(STATUS_WRITES_LATE)
    cluster.script_pods(f"{INDEX}=1", duration=60)
    cluster.create(indexed_job(run_seconds=None))
    cluster.script_pods(f"{INDEX}=0", duration=30)
    cluster.advance(150)
    assert pods(cluster) == [("pi-0-gtwjp", "0", "Succeeded"), ("pi-1-ph6wt", "1", "Succeeded")]
    assert finished(cluster) == (2, None, "0,1", ["SuccessCriteriaMet", "Complete"])
    assert job_events(cluster) == [("SuccessfulCreate", "Created pod: pi-0-gtwjp"),
                                   ("SuccessfulCreate", "Created pod: pi-1-ph6wt"),
                                   ("SuccessfulCreate", "Created pod: pi-0-s2hwh"),
                                   ("SuccessfulDelete", "Deleted pod: pi-0-s2hwh"),
                                   ("Completed", "Job completed")]


def test_creation_expectations_wait_for_the_pods_to_show_up_in_the_cache() -> None:
    """The second pod's ADDED (and every pod event behind it) reaches the informer 5 s late. The
    syncs in between see one pod but expect two creations, so they create nothing."""
    cluster = cluster_with({"delayDelivery": {"kind": "Pod", "nth": 2, "delaySeconds": 5}})
    cluster.create(make_job(completions=2, parallelism=2))
    cluster.advance(1.5)
    cluster.patch("jobs", "pi", {"metadata": {"labels": {"poke": "1"}}})  # a sync at 2.5 s
    cluster.advance(4)
    assert [name for name, _, _ in pods(cluster)] == ["pi-gtwjp", "pi-ph6wt"]
    assert [r for r, _ in job_events(cluster)] == ["SuccessfulCreate", "SuccessfulCreate"]


@pytest.mark.parametrize(("poke_at", "created"), [(290, 2), (310, 3)])
def test_creation_expectations_expire_after_five_minutes(poke_at: float, created: int) -> None:
    """A creation never observed blocks the Job for ControllerExpectations' 5 min TTL; a sync after
    that trusts the cache again (which still lacks the pod, so it creates one, as upstream would)."""
    cluster = cluster_with({"delayDelivery": {"kind": "Pod", "nth": 2, "delaySeconds": 400}})
    cluster.create(make_job(completions=2, parallelism=2))
    cluster.advance(poke_at)
    cluster.patch("jobs", "pi", {"metadata": {"labels": {"poke": "1"}}})
    cluster.advance(5)
    assert [r for r, _ in job_events(cluster)] == ["SuccessfulCreate"] * created
