"""construct.py: Job and Service construction, names, labels and annotations (spec §4, §5).

Cases ported from upstream ``pkg/controllers/jobset_controller_test.go``
(``TestConstructJobsFromTemplate``, ``TestGlobalJobIndex``, ``TestGroupJobIndex``,
``TestGlobalReplicas``, ``TestGroupReplicas``) and the SHA-1 vectors of spec §4.1.
"""

from __future__ import annotations

from typing import Any

import pytest

from jobset_ref.api import constants as c
from jobset_ref.api.models import JobSet, JobSetStatus
from jobset_ref.controller import construct
from jobset_ref.controller.observe import ChildJobs
from jobset_ref.testing.builders import make_job_template, make_jobset, make_replicated_job


def model(builder: Any, uid: str = "uid-1") -> JobSet:
    obj = builder.obj()
    obj["metadata"]["uid"] = uid
    return JobSet.from_wire(obj)


def two_groups() -> JobSet:
    return model(make_jobset("js", "ns")
                 .replicated_job(make_replicated_job("a").replicas(2).group_name("g1"))
                 .replicated_job(make_replicated_job("b").replicas(3).group_name("g2"))
                 .replicated_job(make_replicated_job("c").replicas(4).group_name("g1")))


@pytest.mark.parametrize(("ns", "job", "key"), [
    ("default", "test-jobset-replicated-job-0", "027791c2c0a79daacbc05ab1512c28988581229f"),
    ("default", "test-js-replicated-job-a-0", "7b5f6b3e4003e1164d82a1d6fa5ed93212cd3c7f"),
])
def test_job_hash_key_is_sha1_of_namespace_slash_name(ns: str, job: str, key: str) -> None:
    assert construct.job_hash_key(ns, job) == key


def test_global_and_group_indexes() -> None:
    js = two_groups()
    assert [construct.global_job_index(js, "c", i) for i in (0, 3)] == ["5", "8"]
    assert construct.global_job_index(js, "missing", 0) == ""
    assert construct.global_replicas(js) == "9"
    assert construct.global_replicas(model(make_jobset("e", "ns"))) == "0"
    assert construct.group_job_index(js, "g1", "c", 1) == "3"
    assert construct.group_job_index(js, "g2", "a", 0) == ""
    assert (construct.group_replicas(js, "g1"), construct.group_replicas(js, "nope")) == ("6", "0")


def test_construct_job_labels_annotations_owner_and_suspend() -> None:
    js = model(make_jobset("js", "ns").suspend(True).enable_dns_hostnames(True)
               .replicated_job(make_replicated_job("w").replicas(2)
                               .job(make_job_template().set_labels({"user": "l"}).set_annotations({"user": "a"})
                                    .set_pod_labels({"pod": "p"}))))
    job = construct.construct_job(js, js.replicated_jobs[0], 1, restarts=4, job_restart_attempt=None)
    assert job["metadata"]["name"] == "js-w-1" and job["metadata"]["namespace"] == "ns"
    values = {c.JOBSET_NAME_KEY: "js", c.JOBSET_UID_KEY: "uid-1", c.REPLICATED_JOB_NAME_KEY: "w",
              c.RESTARTS_KEY: "4", c.REPLICATED_JOB_REPLICAS: "2", c.GLOBAL_REPLICAS_KEY: "2",
              c.JOB_INDEX_KEY: "1", c.JOB_KEY: construct.job_hash_key("ns", "js-w-1"),
              c.JOB_GLOBAL_INDEX_KEY: "1", c.GROUP_NAME_KEY: "", c.GROUP_REPLICAS_KEY: "2",
              c.JOB_GROUP_INDEX_KEY: "1"}
    assert job["metadata"]["labels"] == {"user": "l", **values}
    assert job["metadata"]["annotations"] == {"user": "a", **values}
    assert job["spec"]["template"]["metadata"]["labels"] == {"pod": "p", **values}
    assert job["spec"]["suspend"] is True
    assert job["spec"]["template"]["spec"]["subdomain"] == "js"
    assert job["metadata"]["ownerReferences"] == [construct.owner_reference(js)]
    assert c.JOB_RESTART_ATTEMPT_KEY not in job["metadata"]["labels"]


def test_job_restart_attempt_label_with_gate() -> None:
    js = model(make_jobset("js", "ns").replicated_job(make_replicated_job("w").replicas(1)))
    job = construct.construct_job(js, js.replicated_jobs[0], 0, restarts=0, job_restart_attempt=2)
    assert job["metadata"]["labels"][c.JOB_RESTART_ATTEMPT_KEY] == "2"


def test_dns_disabled_keeps_user_subdomain() -> None:
    js = model(make_jobset("js", "ns").enable_dns_hostnames(False)
               .replicated_job(make_replicated_job("w").subdomain("mine")))
    job = construct.construct_job(js, js.replicated_jobs[0], 0, restarts=0, job_restart_attempt=None)
    assert job["spec"]["template"]["spec"]["subdomain"] == "mine"


@pytest.mark.parametrize(("js_ann", "rjob_ann", "expected", "node_selector"), [
    ({c.EXCLUSIVE_KEY: "zone"}, {}, {c.EXCLUSIVE_KEY: "zone"}, False),
    ({}, {c.EXCLUSIVE_KEY: "rack"}, {c.EXCLUSIVE_KEY: "rack"}, False),
    ({c.EXCLUSIVE_KEY: "zone"}, {c.EXCLUSIVE_KEY: "rack"}, {c.EXCLUSIVE_KEY: "rack"}, False),
    ({c.EXCLUSIVE_KEY: "zone", c.NODE_SELECTOR_STRATEGY_KEY: "true"}, {},
     {c.EXCLUSIVE_KEY: "zone", c.NODE_SELECTOR_STRATEGY_KEY: "true"}, True),
    ({c.EXCLUSIVE_KEY: "zone", c.NODE_SELECTOR_STRATEGY_KEY: "true"}, {c.EXCLUSIVE_KEY: "rack"},
     {c.EXCLUSIVE_KEY: "rack", c.NODE_SELECTOR_STRATEGY_KEY: "true"}, True),
    ({c.NODE_SELECTOR_STRATEGY_KEY: "true"}, {}, {}, False),
], ids=["jobset-level", "rjob-level", "rjob-wins", "node-selector-strategy", "js-node-selector-kept", "ns-alone"])
def test_exclusive_placement_propagation(js_ann: dict[str, str], rjob_ann: dict[str, str],
                                         expected: dict[str, str], node_selector: bool) -> None:
    js = model(make_jobset("js", "ns").set_annotations(js_ann)
               .replicated_job(make_replicated_job("w").job(make_job_template().set_annotations(rjob_ann))))
    job = construct.construct_job(js, js.replicated_jobs[0], 0, restarts=0, job_restart_attempt=None)
    placement = {k: v for k, v in job["metadata"]["annotations"].items()
                 if k in (c.EXCLUSIVE_KEY, c.NODE_SELECTOR_STRATEGY_KEY)}
    assert placement == expected
    assert c.EXCLUSIVE_KEY not in job["metadata"]["labels"]
    pod_spec = job["spec"]["template"]["spec"]
    if node_selector:
        assert pod_spec["nodeSelector"] == {c.NAMESPACED_JOB_KEY: "ns_js-w-0"}
        assert pod_spec["tolerations"] == [{"key": c.NO_SCHEDULE_TAINT_KEY, "operator": "Exists",
                                            "effect": "NoSchedule"}]
    else:
        assert "nodeSelector" not in pod_spec and "tolerations" not in pod_spec


def test_construct_jobs_from_template_skips_existing_names_and_blocks_on_previous() -> None:
    js = model(make_jobset("js", "ns").replicated_job(make_replicated_job("w").replicas(3)))
    status = JobSetStatus()
    existing = {"metadata": {"name": "js-w-1"}}
    children = ChildJobs(active=(existing,), names=frozenset({"js-w-1"}))
    names = [j["metadata"]["name"] for j in construct.construct_jobs_from_template(
        js, status, js.replicated_jobs[0], children, restart_job_gate=False)]
    assert names == ["js-w-0", "js-w-2"]
    blocking = model(make_jobset("js", "ns").failure_policy(1, restart_strategy="BlockingRecreate")
                     .replicated_job(make_replicated_job("w").replicas(3)))
    previous = ChildJobs(previous=(existing,), names=frozenset({"js-w-1"}))
    assert construct.construct_jobs_from_template(blocking, status, blocking.replicated_jobs[0], previous,
                                                  restart_job_gate=False) == []


def test_headless_service() -> None:
    js = model(make_jobset("js", "ns").network_subdomain("sub").publish_not_ready_addresses(False))
    svc = construct.construct_headless_service(js)
    assert svc == {"apiVersion": "v1", "kind": "Service",
                   "metadata": {"name": "sub", "namespace": "ns", "ownerReferences": [construct.owner_reference(js)]},
                   "spec": {"clusterIP": "None", "selector": {c.JOBSET_NAME_KEY: "js"},
                            "publishNotReadyAddresses": False}}


def test_volume_claim_policy_volumes_are_added_for_mounted_templates() -> None:
    pod_spec = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i",
                                                          "volumeMounts": [{"name": "data", "mountPath": "/d"}]}]}
    js = model(make_jobset("js", "ns").volume_claim_policies([
        {"templates": [{"metadata": {"name": "data"}, "spec": {}}, {"metadata": {"name": "other"}, "spec": {}}],
         "retentionPolicy": {"whenDeleted": "Delete"}}])
        .replicated_job(make_replicated_job("w").job(make_job_template().pod_spec(pod_spec))))
    job = construct.construct_job(js, js.replicated_jobs[0], 0, restarts=0, job_restart_attempt=None)
    assert job["spec"]["template"]["spec"]["volumes"] == [
        {"name": "data", "persistentVolumeClaim": {"claimName": "data-js"}}]
