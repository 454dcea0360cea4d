"""The simulated Job controller alone (``simulate=False``): pod statuses are driven by hand and
every assertion is at an exact virtual time (spec/kubernetes.md §2.3-§2.14)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube._core.clock import format_time, seconds
from fakekube.cluster import FakeCluster
from fakekube.components.garbage_collector import GarbageCollector
from fakekube.components.job_controller import JobController
from fakekube.testing import make_job

FINALIZER = "batch.kubernetes.io/job-tracking"


job = make_job


@pytest.fixture
def cluster() -> FakeCluster:
    c = FakeCluster(seed=0, simulate=False)
    c.add_component(JobController(c.runtime))
    return c


def at(t: float) -> str:
    return format_time(seconds(t))


def pods(c: FakeCluster) -> list[dict[str, Any]]:
    return c.list("pods")


def names(c: FakeCluster) -> list[str]:
    return [p["metadata"]["name"] for p in pods(c)]


def finish(c: FakeCluster, pod: dict[str, Any], phase: str, exit_code: int = 0,
           conditions: list[dict[str, Any]] | None = None) -> None:
    """Write a terminal pod status as a kubelet would (container terminated at now)."""
    live = c.get("pods", pod["metadata"]["name"])
    now = format_time(c.loop.now)
    live["status"]["phase"] = phase
    live["status"]["containerStatuses"] = [{
        "name": "c", "ready": False, "restartCount": 0, "image": "busybox", "imageID": "",
        "state": {"terminated": {"exitCode": exit_code, "reason": "Completed" if exit_code == 0 else "Error",
                                 "startedAt": at(0), "finishedAt": now}}}]
    live["status"]["conditions"] = [*(conditions or []),
                                    {"type": "Ready", "status": "False", "lastTransitionTime": now}]
    c.update_status(live)


def conditions(c: FakeCluster, name: str = "pi") -> list[tuple[str, str, str, str, str]]:
    return [(x["type"], x["status"], x["reason"], x["message"], x["lastTransitionTime"])
            for x in c.get("Job", name)["status"].get("conditions", [])]


def events(c: FakeCluster) -> list[tuple[str, str, str]]:
    return [(e["type"], e["reason"], e["message"]) for e in c.events()]


# --------------------------------------------------------------------------- creation and success


def test_indexed_job_pods_and_completion(cluster: FakeCluster) -> None:
    created = cluster.create(job(completionMode="Indexed", completions=4, parallelism=4))
    uid = created["metadata"]["uid"]
    assert names(cluster) == ["pi-0-gtwjp", "pi-1-ph6wt", "pi-2-s2hwh", "pi-3-46nb4"]
    pod = pods(cluster)[2]
    meta = pod["metadata"]
    assert meta["generateName"] == "pi-2-"
    assert meta["labels"]["batch.kubernetes.io/job-completion-index"] == "2"
    assert meta["annotations"] == {"batch.kubernetes.io/job-completion-index": "2"}
    assert meta["labels"]["batch.kubernetes.io/controller-uid"] == uid
    assert meta["labels"]["job-name"] == "pi"
    assert meta["finalizers"] == [FINALIZER]
    assert meta["ownerReferences"] == [{"apiVersion": "batch/v1", "kind": "Job", "name": "pi", "uid": uid,
                                        "controller": True, "blockOwnerDeletion": True}]
    assert pod["spec"]["hostname"] == "pi-2"
    assert pod["spec"]["containers"][0]["env"] == [{"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
        "apiVersion": "v1", "fieldPath": "metadata.labels['batch.kubernetes.io/job-completion-index']"}}}]
    status = cluster.get("Job", "pi")["status"]
    assert status == {"startTime": at(0), "active": 4, "ready": 0, "terminating": 0, "uncountedTerminatedPods": {}}

    cluster.advance(30)
    for p in pods(cluster):
        finish(cluster, p, "Succeeded")
    cluster.advance(0.999)
    assert "conditions" not in cluster.get("Job", "pi")["status"]  # pod events are batched for 1 s
    cluster.advance(0.001)
    msg = "Reached expected number of succeeded pods"
    assert conditions(cluster) == [("SuccessCriteriaMet", "True", "CompletionsReached", msg, at(31)),
                                   ("Complete", "True", "CompletionsReached", msg, at(31))]
    status = cluster.get("Job", "pi")["status"]
    assert status["completedIndexes"] == "0-3"
    assert status["succeeded"] == 4 and "active" not in status and status["ready"] == 0
    assert status["completionTime"] == at(31) and status["uncountedTerminatedPods"] == {}
    assert all("finalizers" not in p["metadata"] for p in pods(cluster))
    assert events(cluster)[-1] == ("Normal", "Completed", "Job completed")
    assert ("Normal", "SuccessfulCreate", "Created pod: pi-0-gtwjp") in events(cluster)


def test_success_criteria_written_before_complete(cluster: FakeCluster) -> None:
    cluster.create(job(completionMode="Indexed", completions=1))
    watch = cluster.watch("jobs")
    finish(cluster, pods(cluster)[0], "Succeeded")
    cluster.advance(1)
    seen = [[c["type"] for c in e.object["status"].get("conditions", [])] for e in watch.events]
    assert ["SuccessCriteriaMet"] in seen
    assert seen[-1] == ["SuccessCriteriaMet", "Complete"]
    assert seen.index(["SuccessCriteriaMet"]) < seen.index(["SuccessCriteriaMet", "Complete"])
    assert cluster.get("Job", "pi")["status"]["completedIndexes"] == "0"


def test_nonindexed_pods_and_two_consecutive_indexes(cluster: FakeCluster) -> None:
    cluster.create(job("work", completions=2, parallelism=2))
    assert [p["metadata"]["generateName"] for p in pods(cluster)] == ["work-", "work-"]
    assert "hostname" not in pods(cluster)[0]["spec"]
    cluster.create(job("ix", completionMode="Indexed", completions=6, parallelism=6))
    ix_pods = [p for p in pods(cluster) if p["metadata"]["name"].startswith("ix-")]
    for p in ix_pods:
        if p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] in ("1", "3", "4"):
            finish(cluster, p, "Succeeded")
    cluster.advance(1)
    status = cluster.get("Job", "ix")["status"]
    assert status["completedIndexes"] == "1,3,4"
    assert status["succeeded"] == 3 and status["active"] == 3


# --------------------------------------------------------------------------- failure and backoff


def test_backoff_limit_zero_fails_in_two_steps(cluster: FakeCluster) -> None:
    cluster.create(job(backoffLimit=0))
    watch = cluster.watch("jobs")
    cluster.advance(5)
    finish(cluster, pods(cluster)[0], "Failed", exit_code=1)
    cluster.advance(1)
    msg = "Job has reached the specified backoff limit"
    assert conditions(cluster) == [("FailureTarget", "True", "BackoffLimitExceeded", msg, at(6)),
                                   ("Failed", "True", "BackoffLimitExceeded", msg, at(6))]
    seen = [[c["type"] for c in e.object["status"].get("conditions", [])] for e in watch.events]
    assert seen.index(["FailureTarget"]) < seen.index(["FailureTarget", "Failed"])
    status = cluster.get("Job", "pi")["status"]
    assert status["failed"] == 1 and "completionTime" not in status and status["terminating"] == 0
    assert events(cluster)[-1] == ("Warning", "BackoffLimitExceeded", msg)
    assert len(pods(cluster)) == 1  # no replacement


def test_recreation_backoff_doubles_from_finish_time(cluster: FakeCluster) -> None:
    cluster.create(job(backoffLimit=6))
    created_at: list[float] = []

    def record() -> None:
        created_at.append(cluster.elapsed)

    cluster.advance(10)
    finish(cluster, pods(cluster)[0], "Failed", exit_code=1)  # failure 1 at t=10 -> replace at t=20
    cluster.run_until(lambda: len([p for p in pods(cluster) if p["status"]["phase"] == "Pending"]) == 1,
                      timeout=60)
    record()
    cluster.advance(10)  # t=30: failure 2 -> replace at t=50
    pending = [p for p in pods(cluster) if p["status"]["phase"] == "Pending"]
    finish(cluster, pending[0], "Failed", exit_code=1)
    cluster.run_until(lambda: len([p for p in pods(cluster) if p["status"]["phase"] == "Pending"]) == 1,
                      timeout=120)
    record()
    assert created_at == [20.0, 50.0]
    status = cluster.get("Job", "pi")["status"]
    assert status["failed"] == 2 and status["active"] == 1


def test_pod_failure_policy_fail_job_on_exit_code(cluster: FakeCluster) -> None:
    cluster.create(job(completions=2, parallelism=2, podFailurePolicy={"rules": [
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
        {"action": "FailJob", "onExitCodes": {"containerName": "c", "operator": "In", "values": [42]}}]}))
    first, second = pods(cluster)
    finish(cluster, first, "Failed", exit_code=42)
    cluster.advance(1)
    msg = (f"Container c for pod default/{first['metadata']['name']} failed with exit code 42 "
           "matching FailJob rule at index 1")
    # The other pod was deleted but, unscheduled, went at once; Failed follows one batch later.
    assert conditions(cluster)[0] == ("FailureTarget", "True", "PodFailurePolicy", msg, at(1))
    assert ("Normal", "SuccessfulDelete", f"Deleted pod: {second['metadata']['name']}") in events(cluster)
    cluster.advance(1)
    assert conditions(cluster)[1] == ("Failed", "True", "PodFailurePolicy", msg, at(2))
    assert cluster.get("Job", "pi")["status"]["failed"] == 2  # still-running pods count as failed


def test_pod_failure_policy_condition_message_and_ignore(cluster: FakeCluster) -> None:
    cluster.create(job(backoffLimit=0, podFailurePolicy={"rules": [
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}))
    disruption = {"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI",
                  "message": "Eviction API: evicting", "lastTransitionTime": at(0)}
    finish(cluster, pods(cluster)[0], "Failed", exit_code=137, conditions=[disruption])
    cluster.advance(1)
    status = cluster.get("Job", "pi")["status"]
    assert "failed" not in status and "conditions" not in status  # not counted against backoffLimit 0
    def pending() -> int:
        return len([p for p in pods(cluster) if p["status"]["phase"] == "Pending"])

    cluster.advance(8.999)  # ignored failures still feed the recreation backoff (10 s from t=0)
    assert pending() == 0
    cluster.advance(0.001)
    assert pending() == 1 and "failed" not in cluster.get("Job", "pi")["status"]

    c2 = FakeCluster(seed=1, simulate=False)
    c2.add_component(JobController(c2.runtime))
    c2.create(job(podFailurePolicy={"rules": [
        {"action": "FailJob", "onPodConditions": [{"type": "DisruptionTarget"}]}]}))
    pod = pods(c2)[0]
    finish(c2, pod, "Failed", exit_code=137, conditions=[disruption])
    c2.advance(1)
    assert conditions(c2)[-1][:4] == ("Failed", "True", "PodFailurePolicy",
                                      f"Pod default/{pod['metadata']['name']} has condition DisruptionTarget "
                                      "matching FailJob rule at index 0")


def test_backoff_limit_per_index(cluster: FakeCluster) -> None:
    cluster.create(job(completionMode="Indexed", completions=2, parallelism=2, backoffLimitPerIndex=1))
    pod0, pod1 = pods(cluster)
    assert pod0["metadata"]["annotations"]["batch.kubernetes.io/job-index-failure-count"] == "0"
    finish(cluster, pod0, "Failed", exit_code=1)
    cluster.advance(1)
    # The failed pod keeps its finalizer until its replacement exists (10 s backoff).
    assert FINALIZER in cluster.get("pods", pod0["metadata"]["name"])["metadata"]["finalizers"]
    cluster.advance(9)
    replacement = [p for p in pods(cluster) if p["status"]["phase"] == "Pending"
                   and p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] == "0"]
    assert len(replacement) == 1
    assert replacement[0]["metadata"]["annotations"]["batch.kubernetes.io/job-index-failure-count"] == "1"
    cluster.advance(5)
    finish(cluster, replacement[0], "Failed", exit_code=1)
    finish(cluster, pod1, "Succeeded")
    cluster.advance(1)
    status = cluster.get("Job", "pi")["status"]
    assert status["failedIndexes"] == "0" and status["completedIndexes"] == "1"
    assert status["failed"] == 2
    assert conditions(cluster) == [("FailureTarget", "True", "FailedIndexes", "Job has failed indexes", at(16)),
                                   ("Failed", "True", "FailedIndexes", "Job has failed indexes", at(16))]


def test_max_failed_indexes_exceeded(cluster: FakeCluster) -> None:
    cluster.create(job(completionMode="Indexed", completions=3, parallelism=3, backoffLimitPerIndex=0,
                       maxFailedIndexes=0))
    finish(cluster, pods(cluster)[0], "Failed", exit_code=1)
    cluster.advance(1)
    assert conditions(cluster)[0][:4] == ("FailureTarget", "True", "MaxFailedIndexesExceeded",
                                          "Job has exceeded the specified maximal number of failed indexes")
    assert cluster.get("Job", "pi")["status"]["failedIndexes"] == "0"


def test_success_policy_deletes_rest_and_completes_when_none_terminating(cluster: FakeCluster) -> None:
    cluster.create(job(completionMode="Indexed", completions=3, parallelism=3,
                       successPolicy={"rules": [{"succeededIndexes": "0"}]}))
    for p in pods(cluster):
        cluster.client.bind(p["metadata"]["name"], "node-a")  # scheduled: deletion is graceful
    cluster.run_until_idle()
    finish(cluster, pods(cluster)[0], "Succeeded")
    cluster.advance(1)
    assert conditions(cluster) == [("SuccessCriteriaMet", "True", "SuccessPolicy", "Matched rules at index 0", at(1))]
    status = cluster.get("Job", "pi")["status"]
    assert status["terminating"] == 2 and "active" not in status
    # The two others are terminating (graceful); a kubelet would end them: do it by hand at t=5.
    cluster.advance(4)
    for p in pods(cluster):
        if p["metadata"].get("deletionTimestamp"):
            finish(cluster, p, "Failed", exit_code=143)
    cluster.advance(1)
    assert conditions(cluster)[-1] == ("Complete", "True", "SuccessPolicy", "Matched rules at index 0", at(6))
    status = cluster.get("Job", "pi")["status"]
    assert status["terminating"] == 0 and status["completedIndexes"] == "0" and "failed" not in status


def test_active_deadline_exceeded(cluster: FakeCluster) -> None:
    cluster.create(job(parallelism=2, completions=2, activeDeadlineSeconds=10))
    cluster.advance(9.999)
    assert "conditions" not in cluster.get("Job", "pi")["status"]
    cluster.advance(0.001)
    msg = "Job was active longer than specified deadline"
    assert conditions(cluster)[0] == ("FailureTarget", "True", "DeadlineExceeded", msg, at(10))
    cluster.advance(1)
    assert conditions(cluster)[1] == ("Failed", "True", "DeadlineExceeded", msg, at(11))
    assert pods(cluster) == [] and cluster.get("Job", "pi")["status"]["failed"] == 2


# --------------------------------------------------------------------------- suspend, managedBy, deletion


def test_suspend_deletes_pods_and_resume_recreates(cluster: FakeCluster) -> None:
    cluster.create(job(parallelism=2, completions=4))
    assert len(pods(cluster)) == 2
    cluster.advance(5)
    live = cluster.get("Job", "pi")
    live["spec"]["suspend"] = True
    cluster.update(live)
    assert pods(cluster) == []  # finalizer removed first, so they are not counted
    status = cluster.get("Job", "pi")["status"]
    assert conditions(cluster) == [("Suspended", "True", "JobSuspended", "Job suspended", at(5))]
    assert "failed" not in status and status["startTime"] == at(0)  # 1.32-1.34 keep startTime
    assert ("Normal", "Suspended", "Job suspended") in events(cluster)
    cluster.advance(5)
    live = cluster.get("Job", "pi")
    live["spec"]["suspend"] = False
    cluster.update(live)
    assert conditions(cluster) == [("Suspended", "False", "JobResumed", "Job resumed", at(10))]
    status = cluster.get("Job", "pi")["status"]
    assert status["startTime"] == at(10) and status["active"] == 2 and len(pods(cluster)) == 2
    assert ("Normal", "Resumed", "Job resumed") in events(cluster)


def test_created_suspended_has_no_start_time(cluster: FakeCluster) -> None:
    cluster.create(job(suspend=True))
    status = cluster.get("Job", "pi")["status"]
    assert pods(cluster) == [] and "startTime" not in status
    assert conditions(cluster) == [("Suspended", "True", "JobSuspended", "Job suspended", at(0))]


def test_managed_by_other_controller_is_ignored(cluster: FakeCluster) -> None:
    cluster.create(job(managedBy="kueue.x-k8s.io/multikueue"))
    cluster.advance(5)
    assert pods(cluster) == [] and cluster.get("Job", "pi")["status"] == {}


def test_terminating_pods_replaced_per_replacement_policy(cluster: FakeCluster) -> None:
    cluster.create(job("eager"))
    cluster.create(job("patient", podReplacementPolicy="Failed"))
    for p in pods(cluster):
        cluster.client.bind(p["metadata"]["name"], "node-a")
    cluster.run_until_idle()
    for p in pods(cluster):
        cluster.delete("pods", p["metadata"]["name"])  # graceful: 30 s
    cluster.advance(11)
    eager = cluster.get("Job", "eager")["status"]
    patient = cluster.get("Job", "patient")["status"]
    assert eager["failed"] == 1 and eager["active"] == 1 and eager["terminating"] == 1
    assert "failed" not in patient and "active" not in patient and patient["terminating"] == 1
    assert len([p for p in pods(cluster) if p["metadata"]["name"].startswith("patient-")]) == 1


def test_foreground_deletion_with_pods(cluster: FakeCluster) -> None:
    cluster.add_component(GarbageCollector(cluster.runtime))
    created = cluster.create(job(parallelism=2, completions=2))
    cluster.run_until_idle()
    watch = cluster.watch("jobs", resource_version=cluster.get("Job", "pi")["metadata"]["resourceVersion"])
    cluster.delete("Job", "pi", propagation_policy="Foreground")
    assert watch.events[0].type == "MODIFIED"
    assert watch.events[0].object["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert created["metadata"]["uid"] == watch.events[0].object["metadata"]["uid"]
    cluster.advance(1)
    assert not cluster.exists("Job", "pi") and pods(cluster) == []
    assert watch.types()[-1] == "DELETED"


def test_orphan_deletion_strips_finalizers(cluster: FakeCluster) -> None:
    cluster.add_component(GarbageCollector(cluster.runtime))
    cluster.create(job(parallelism=2, completions=2))
    cluster.delete("Job", "pi")  # batch/v1 default: orphan
    cluster.advance(1)
    assert not cluster.exists("Job", "pi")
    remaining = pods(cluster)
    assert len(remaining) == 2
    assert all("finalizers" not in p["metadata"] and "ownerReferences" not in p["metadata"] for p in remaining)


def test_parallelism_scale_down_deletes_newest_unready_first(cluster: FakeCluster) -> None:
    cluster.create(job(parallelism=3, completions=3))
    first = pods(cluster)
    live = cluster.get("Job", "pi")
    live["spec"]["parallelism"] = 1
    cluster.update(live)
    assert len(pods(cluster)) == 1
    assert cluster.get("Job", "pi")["status"]["active"] == 1
    assert "failed" not in cluster.get("Job", "pi")["status"]
    assert {p["metadata"]["name"] for p in pods(cluster)} < {p["metadata"]["name"] for p in first}


def test_deterministic_trace() -> None:
    def run() -> list[str]:
        c = FakeCluster(seed=7, simulate=False)
        c.add_component(JobController(c.runtime))
        c.create(job(completionMode="Indexed", completions=3, parallelism=3))
        c.advance(2)
        for p in pods(c):
            finish(c, p, "Succeeded")
        c.advance(2)
        return list(c.trace.tail(100))

    assert run() == run()
