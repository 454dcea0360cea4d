"""lightkube (1.0), unchanged, against a served cluster (``fake_apiserver``).

``Client()`` reads ``$KUBECONFIG`` (the fixture points it at the server) and needs no discovery:
its models are static and custom resources are declared with ``create_namespaced_resource`` or
loaded from the cluster's CRDs. It applies with ``application/apply-patch+yaml`` and a
``fieldManager``, so this is where server-side apply is checked: create-on-apply, the no-op
re-apply, conflicts between managers and ``force``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from lightkube import ApiError, Client
from lightkube.generic_resource import (
    create_namespaced_resource,
    get_generic_resource,
    load_in_cluster_generic_resources,
)
from lightkube.models.batch_v1 import JobSpec
from lightkube.models.core_v1 import Container, PodSpec, PodTemplateSpec
from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.batch_v1 import Job
from lightkube.resources.core_v1 import ConfigMap, Pod

from fakekube.http.server import ClusterServer
from jobset_ref.testing.assertions import condition

PYTORCH = yaml.safe_load((Path(__file__).resolve().parents[2] / "examples" / "pytorch.yaml").read_text())
JobSet = create_namespaced_resource("jobset.x-k8s.io", "v1alpha2", "JobSet", "jobsets")


@pytest.fixture
def kube(fake_apiserver: ClusterServer) -> Iterator[Client]:
    with Client(field_manager="lightkube-tests") as c:  # reads $KUBECONFIG
        assert str(c.config.cluster.server) == fake_apiserver.url
        yield c


def pod(name: str, **labels: str) -> Pod:
    return Pod(metadata=ObjectMeta(name=name, labels=labels),
               spec=PodSpec(restartPolicy="Never", containers=[Container(name="c", image="busybox")]))


def cm(name: str, data: dict[str, str], **labels: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": labels} if labels else {"name": name}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}


def managers(obj: Any) -> list[tuple[str, str, dict[str, Any]]]:
    return [(m.manager, m.operation, m.fieldsV1) for m in obj.metadata.managedFields]


# ---------------------------------------------------------------------- typed resources
def test_typed_pods_configmaps_and_jobs(kube: Client, fake_apiserver: ClusterServer) -> None:
    created = kube.create(pod("p1", app="web"))
    kube.create(pod("p2", app="db"))
    assert isinstance(created, Pod) and created.metadata.namespace == "default"
    assert created.status.phase == "Pending"
    assert [p.metadata.name for p in kube.list(Pod, labels={"app": "web"})] == ["p1"]
    assert [p.metadata.name for p in kube.list(Pod, namespace="default")] == ["p1", "p2"]
    fake_apiserver.cluster.advance(2)
    assert kube.get(Pod, "p1").status.phase == "Running"  # scheduled and started by the simulation

    kube.create(ConfigMap.from_dict(cm("settings", {"a": "1"})))
    assert kube.get(ConfigMap, "settings").data == {"a": "1"}
    job = kube.create(Job(metadata=ObjectMeta(name="batch"), spec=JobSpec(template=PodTemplateSpec(
        metadata=ObjectMeta(annotations={"fakekube.io/run-seconds": "5"}),
        spec=PodSpec(restartPolicy="Never", containers=[Container(name="c", image="busybox")])))))
    assert job.spec.completions == 1 and job.spec.backoffLimit == 6  # defaulted by the server
    [job_pod] = kube.list(Pod, labels={"job-name": "batch"})
    assert job_pod.metadata.name.startswith("batch-") and job_pod.metadata.ownerReferences[0].name == "batch"
    # the create carried the client's field manager: it owns what it wrote
    assert kube.get(ConfigMap, "settings").metadata.managedFields[0].manager == "lightkube-tests"
    assert "POST /api/v1/namespaces/default/configmaps?fieldManager=lightkube-tests" in fake_apiserver.requests

    kube.delete(Pod, "p2")
    kube.delete(ConfigMap, "settings")
    with pytest.raises(ApiError) as caught:
        kube.get(ConfigMap, "settings")
    assert (caught.value.status.code, caught.value.status.reason, caught.value.status.message) == (
        404, "NotFound", 'configmaps "settings" not found')
    assert [p.metadata.name for p in kube.list(Pod, labels={"app": "db"})] == []


# ---------------------------------------------------------------------- generic resources
def test_jobsets_as_a_generic_resource(kube: Client, fake_apiserver: ClusterServer) -> None:
    created = kube.create(JobSet.from_dict(PYTORCH))
    assert created.kind == "JobSet" and created.spec["replicatedJobs"][0]["replicas"] == 1
    assert [js.metadata.name for js in kube.list(JobSet)] == ["pytorch"]
    cluster = fake_apiserver.cluster
    completed_at = cluster.run_until(lambda: condition(cluster.get("JobSet", "pytorch"), "Completed") is not None,
                                     timeout=600)
    assert completed_at == 302.01
    done = kube.get(JobSet.Status, "pytorch")
    assert condition(done.to_dict(), "Completed")["lastTransitionTime"] == "2030-01-01T00:05:02Z"
    kube.delete(JobSet, "pytorch")
    assert list(kube.list(JobSet)) == []


def test_generic_resources_loaded_from_the_clusters_crds(kube: Client, fake_apiserver: ClusterServer) -> None:
    load_in_cluster_generic_resources(kube)  # lists CustomResourceDefinitions over HTTP
    loaded = get_generic_resource("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert loaded is not None
    kube.create(loaded.from_dict(PYTORCH), namespace="default")
    assert [js.metadata.name for js in kube.list(loaded, namespace="default")] == ["pytorch"]
    assert "GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions" in fake_apiserver.requests


# ---------------------------------------------------------------------- server-side apply
def test_apply_creates_then_a_same_apply_is_a_no_op(kube: Client, fake_apiserver: ClusterServer) -> None:
    first = kube.apply(ConfigMap.from_dict(cm("ssa", {"x": "1"}, app="a")), field_manager="alice")
    assert first.data == {"x": "1"} and first.metadata.uid
    assert managers(first) == [("alice", "Apply", {"f:data": {"f:x": {}}, "f:metadata": {"f:labels": {
        "f:app": {}}}})]
    again = kube.apply(ConfigMap.from_dict(cm("ssa", {"x": "1"}, app="a")), field_manager="alice")
    assert again.metadata.resourceVersion == first.metadata.resourceVersion
    assert [r for r in fake_apiserver.requests if r.startswith("PATCH")] == [
        "PATCH /api/v1/namespaces/default/configmaps/ssa?fieldManager=alice"] * 2


def test_apply_conflict_between_managers_and_force(kube: Client) -> None:
    kube.apply(ConfigMap.from_dict(cm("ssa", {"x": "1", "y": "1"})), field_manager="alice")
    with pytest.raises(ApiError) as caught:
        kube.apply(ConfigMap.from_dict(cm("ssa", {"x": "2"})), field_manager="bob")
    status = caught.value.status
    assert (status.code, status.reason) == (409, "Conflict")
    assert status.message == 'Apply failed with 1 conflict: conflict with "alice": .data.x'
    assert [(c.reason, c.message, c.field) for c in status.details.causes] == [
        ("FieldManagerConflict", 'conflict with "alice"', ".data.x")]
    assert kube.get(ConfigMap, "ssa").data == {"x": "1", "y": "1"}  # nothing written

    moved = kube.apply(ConfigMap.from_dict(cm("ssa", {"x": "2"})), field_manager="bob", force=True)
    assert moved.data == {"x": "2", "y": "1"}
    assert managers(moved) == [("alice", "Apply", {"f:data": {"f:y": {}}}),
                               ("bob", "Apply", {"f:data": {"f:x": {}}})]
    # alice no longer owns x: her next apply without x leaves it to bob
    after = kube.apply(ConfigMap.from_dict(cm("ssa", {"y": "1"})), field_manager="alice")
    assert after.data == {"x": "2", "y": "1"}


def test_an_update_manager_is_named_with_its_api_version_in_conflicts(kube: Client) -> None:
    kube.create(ConfigMap.from_dict(cm("mixed", {"x": "1"})))  # an Update by "lightkube-tests"
    with pytest.raises(ApiError) as caught:
        kube.apply(ConfigMap.from_dict(cm("mixed", {"x": "2"})), field_manager="carol")
    assert caught.value.status.message == ('Apply failed with 1 conflict: conflict with "lightkube-tests" using v1: '
                                           ".data.x")


# ---------------------------------------------------------------------- watch
def test_watch_reconnects_from_the_last_resource_version(kube: Client, fake_apiserver: ClusterServer) -> None:
    cluster = fake_apiserver.cluster
    listed = kube.list(ConfigMap, namespace="default")
    assert list(listed) == []
    start_rv = listed.resourceVersion
    seen: list[tuple[str, str]] = []
    stream = kube.watch(ConfigMap, namespace="default", resource_version=start_rv, server_timeout=1)
    cluster.create(cm("a", {"k": "v"}))
    for kind, obj in stream:
        seen.append((kind, obj.metadata.name))
        if obj.metadata.name == "a":
            # the server ends this stream after its 1 s timeout; a change made while nobody watches ...
            fake_apiserver.wait_for(lambda: fake_apiserver.open_watches == 0, timeout=10)
            cluster.create(cm("b", {"k": "v"}))
        else:
            break  # ... arrives on the watch lightkube opened again from the last resourceVersion
    assert seen == [("ADDED", "a"), ("ADDED", "b")]
    a_rv = cluster.get("ConfigMap", "a")["metadata"]["resourceVersion"]
    assert [r for r in fake_apiserver.requests if "watch=" in r] == [
        f"GET /api/v1/namespaces/default/configmaps?timeoutSeconds=1&resourceVersion={start_rv}&watch=true",
        f"GET /api/v1/namespaces/default/configmaps?timeoutSeconds=1&resourceVersion={a_rv}&watch=true"]
