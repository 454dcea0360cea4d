"""Upstream's JobSet integration tests (``test/integration/singlecluster/controller/jobs/jobset``,
v0.19.2), ported: the test plays Kueue's core by writing Workload status, and (as in envtest)
no JobSet controller runs unless a test needs one."""

from __future__ import annotations

import pytest

from tests.kueue.helpers import (
    cluster_without_core,
    condition,
    events,
    flavor,
    jobset,
    set_condition,
    set_quota_reservation,
    workload_name,
)

MANAGE_ALL = {"manageJobsWithoutQueueName": True}


def test_should_reconcile_jobsets() -> None:
    cluster = cluster_without_core(MANAGE_ALL)
    cluster.apply(flavor("on-demand", {"instance-type": "on-demand"}))
    cluster.apply(flavor("spot", {"instance-type": "spot"}))
    cluster.apply({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                   "metadata": {"name": "test-priority-class"}, "value": 10})
    cluster.apply(jobset("test-js", [("replicated-job-1", 1, 1, 1), ("replicated-job-2", 3, 1, 1)],
                         priority_class="test-priority-class"))
    cluster.run_until_idle()
    # the JobSet gets suspended when created unsuspended
    assert cluster.get("JobSet", "test-js")["spec"]["suspend"] is True
    # the workload is created without queue assigned, owned by the JobSet, with the pod priority
    name = workload_name(cluster, "JobSet", "test-js")
    wl = cluster.get("Workload", name)
    assert "queueName" not in wl["spec"]
    owner = wl["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["controller"]) == ("JobSet", "test-js", True)
    assert wl["spec"]["priorityClassRef"] == {"group": "scheduling.k8s.io", "kind": "PriorityClass",
                                              "name": "test-priority-class"}
    assert wl["spec"]["priority"] == 10
    assert [(p["name"], p["count"]) for p in wl["spec"]["podSets"]] == [("replicated-job-1", 1),
                                                                        ("replicated-job-2", 3)]
    # the workload is updated with queue name when the JobSet does
    cluster.patch("JobSet", "test-js", {"metadata": {"labels": {"kueue.x-k8s.io/queue-name": "test-queue"}}})
    cluster.run_until_idle()
    assert cluster.get("Workload", name)["spec"]["queueName"] == "test-queue"
    # a second non-matching workload is deleted
    second = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
              "metadata": {"name": "second-workload", "ownerReferences": wl["metadata"]["ownerReferences"]},
              "spec": {**wl["spec"], "podSets": [{**wl["spec"]["podSets"][0], "count": 2},
                                                 wl["spec"]["podSets"][1]]}}
    cluster.create(second)
    cluster.run_until_idle()
    assert not cluster.exists("Workload", "second-workload")
    assert cluster.exists("Workload", name)
    # the JobSet is unsuspended when the workload is assigned, with the flavors' node selectors
    set_quota_reservation(cluster, name, "cluster-queue", ["on-demand", "spot"])
    js = cluster.get("JobSet", "test-js")
    assert js["spec"]["suspend"] is False
    assert ("Started", "Admitted by clusterQueue cluster-queue") in events(cluster, "test-js")
    templates = [r["template"]["spec"]["template"] for r in js["spec"]["replicatedJobs"]]
    assert [t["spec"]["nodeSelector"] for t in templates] == [{"instance-type": "on-demand"}, {"instance-type": "spot"}]
    assert templates[0]["metadata"]["annotations"] == {"kueue.x-k8s.io/workload": name}
    assert templates[1]["metadata"]["labels"]["kueue.x-k8s.io/podset"] == "replicated-job-2"
    # the JobSet gets suspended when replicas change, and the added node selectors are removed
    js["spec"]["replicatedJobs"][0]["replicas"] = 2
    cluster.update(js)
    cluster.run_until_idle()
    js = cluster.get("JobSet", "test-js")
    assert js["spec"]["suspend"] is True
    assert "nodeSelector" not in js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert ("DeletedWorkload", f"Deleted not matching Workload: default/{name}") in events(cluster, "test-js")
    # the workload is recreated with the new count (the JobSet's UID is the same: same name)
    wl = cluster.get("Workload", name)
    assert wl["spec"]["podSets"][0]["count"] == 2
    assert "admission" not in (wl.get("status") or {})
    # unsuspended and selectors added when the workload is assigned again
    set_quota_reservation(cluster, name, "cluster-queue", ["on-demand", "spot"], counts=[2, 3])
    js = cluster.get("JobSet", "test-js")
    assert js["spec"]["suspend"] is False
    assert js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["nodeSelector"] == {
        "instance-type": "on-demand"}
    # the workload is finished when the JobSet is completed
    js["status"] = {"conditions": [{"type": "Completed", "status": "True", "reason": "AllJobsCompleted",
                                    "message": "jobset completed successfully",
                                    "lastTransitionTime": "2030-01-01T00:00:00Z"}]}
    cluster.update_status(js)
    cluster.run_until_idle()
    finished = condition(cluster.get("Workload", name), "Finished")
    assert finished is not None and (finished["status"], finished["reason"], finished["message"]) == (
        "True", "Succeeded", "jobset completed successfully")


def test_a_jobset_created_in_an_unmanaged_namespace_is_not_suspended_and_a_workload_is_not_created() -> None:
    cluster = cluster_without_core(MANAGE_ALL)
    cluster.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kueue-system"}})
    cluster.apply(jobset("test-js", [("replicated-job-1", 1, 1, 1)], namespace="kueue-system"))
    cluster.advance(5)
    assert cluster.get("JobSet", "test-js", "kueue-system")["spec"]["suspend"] is False
    assert cluster.list("Workload", "kueue-system") == []


def test_should_finish_the_preemption_when_the_jobset_becomes_inactive() -> None:
    cluster = cluster_without_core(MANAGE_ALL)
    cluster.apply(flavor("on-demand", {"instance-type": "on-demand"}))
    cluster.apply(jobset("test-js", [("replicated-job-1", 1, 1, 1)], queue="main"))
    cluster.run_until_idle()
    name = workload_name(cluster, "JobSet", "test-js")
    set_quota_reservation(cluster, name, "cluster-queue", ["on-demand"])
    js = cluster.get("JobSet", "test-js")
    assert js["spec"]["suspend"] is False
    # mark the jobset as active
    js["status"] = {"replicatedJobsStatus": [{"name": "replicated-job-1", "active": 1, "ready": 0,
                                              "succeeded": 0, "failed": 0, "suspended": 0}]}
    cluster.update_status(js)
    cluster.run_until_idle()
    # preempt the workload: the jobset is suspended, the workload stays admitted
    set_condition(cluster, name, "Evicted", "True", "Preempted", "By test")
    assert cluster.get("JobSet", "test-js")["spec"]["suspend"] is True
    assert condition(cluster.get("Workload", name), "QuotaReserved")["status"] == "True"
    # mark the jobset as inactive: the workload gets unadmitted and requeued
    js = cluster.get("JobSet", "test-js")
    js["status"]["replicatedJobsStatus"][0]["active"] = 0
    cluster.update_status(js)
    cluster.run_until_idle()
    wl = cluster.get("Workload", name)
    reserved, admitted, requeued = (condition(wl, t) for t in ("QuotaReserved", "Admitted", "Requeued"))
    assert (reserved["status"], reserved["reason"], reserved["message"]) == ("False", "Pending", "By test")
    assert (admitted["status"], admitted["reason"]) == ("False", "NoReservation")
    assert (requeued["status"], requeued["reason"]) == ("True", "Preempted")
    assert "admission" not in wl["status"]


def test_should_reconcile_jobs_only_when_queue_is_set() -> None:
    cluster = cluster_without_core()
    cluster.apply(jobset("test-js", [("replicated-job-1", 1, 1, 1)]))
    cluster.advance(5)
    assert cluster.get("JobSet", "test-js")["spec"]["suspend"] is False
    assert cluster.list("Workload") == []
    cluster.apply(jobset("queued", [("replicated-job-1", 1, 1, 1)], queue="main"))
    cluster.run_until_idle()
    assert cluster.get("JobSet", "queued")["spec"]["suspend"] is True
    assert [w["metadata"]["name"] for w in cluster.list("Workload")] == [workload_name(cluster, "JobSet", "queued")]


@pytest.mark.parametrize(("statuses", "admitted", "want"), [
    # No progress
    ([], True, ("False", "WaitForStart")),
    # Running JobSet
    ([{"name": "r1", "ready": 1, "succeeded": 0}, {"name": "r2", "ready": 1, "succeeded": 1}], True,
     ("True", "Started")),
    # JobSet suspended
    ([], False, ("False", "WaitForStart")),
], ids=["no-progress", "running-jobset", "jobset-suspended"])
def test_single_job_at_different_stages_of_progress_towards_completion(
        statuses: list[dict[str, int]], admitted: bool, want: tuple[str, str]) -> None:
    cluster = cluster_without_core()
    cluster.apply(flavor("on-demand", {"instance-type": "on-demand"}))
    cluster.apply(jobset("test-js", [("r1", 1, 1, 1), ("r2", 2, 1, 1)], queue="main"))
    cluster.run_until_idle()
    name = workload_name(cluster, "JobSet", "test-js")
    if admitted:
        set_quota_reservation(cluster, name, "cluster-queue", ["on-demand", "on-demand"])
    if statuses:
        js = cluster.get("JobSet", "test-js")
        js["status"] = {"replicatedJobsStatus": [{"active": 0, "failed": 0, "suspended": 0, **s} for s in statuses]}
        cluster.update_status(js)
        cluster.run_until_idle()
    ready = condition(cluster.get("Workload", name), "PodsReady")
    assert (ready["status"], ready["reason"]) == want


def test_should_allow_reclaim_of_resources_that_are_no_longer_needed() -> None:
    cluster = cluster_without_core()
    cluster.apply(flavor("on-demand", {"instance-type": "on-demand"}))
    cluster.apply(jobset("test-js", [("r1", 1, 1, 1), ("r2", 3, 1, 1)], queue="main"))
    cluster.run_until_idle()
    name = workload_name(cluster, "JobSet", "test-js")
    set_quota_reservation(cluster, name, "cluster-queue", ["on-demand", "on-demand"])
    js = cluster.get("JobSet", "test-js")
    js["status"] = {"replicatedJobsStatus": [
        {"name": "r1", "active": 0, "ready": 0, "succeeded": 1, "failed": 0, "suspended": 0},
        {"name": "r2", "active": 1, "ready": 1, "succeeded": 2, "failed": 0, "suspended": 0}]}
    cluster.update_status(js)
    cluster.run_until_idle()
    assert cluster.get("Workload", name)["status"]["reclaimablePods"] == [{"name": "r1", "count": 1},
                                                                         {"name": "r2", "count": 2}]


def test_jobset_runs_to_completion_under_the_reference_controller_and_releases_its_workload() -> None:
    cluster = cluster_without_core(jobset_controller=True)
    cluster.add_nodes(4, labels={"instance-type": "on-demand"})
    cluster.apply(flavor("on-demand", {"instance-type": "on-demand"}))
    manifest = jobset("test-js", [("workers", 2, 1, 1)], queue="main")
    manifest["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"] = {
        "annotations": {"fakekube.io/run-seconds": "30"}}
    cluster.apply(manifest)
    cluster.advance(5)
    # suspended at creation: the JobSet controller creates its Jobs suspended, no pod runs
    assert [j["spec"]["suspend"] for j in cluster.list("Job")] == [True, True]
    assert cluster.list("Pod") == []
    name = workload_name(cluster, "JobSet", "test-js")
    set_quota_reservation(cluster, name, "cluster-queue", ["on-demand"])
    cluster.run_until(lambda: condition(cluster.get("JobSet", "test-js"), "Completed") is not None, timeout=600)
    cluster.run_until_idle()
    for job in cluster.list("Job"):
        assert job["spec"]["template"]["spec"]["nodeSelector"] == {"instance-type": "on-demand"}
    wl = cluster.get("Workload", name)
    assert condition(wl, "Finished")["reason"] == "Succeeded"
    assert condition(wl, "PodsReady")["reason"] == "Started"
    # deleting the JobSet lets the garbage collector delete its Workload (the finalizer goes)
    cluster.delete("JobSet", "test-js")
    cluster.run_until_idle()
    assert cluster.list("Workload") == []
