"""The official ``kubernetes`` client (37), unchanged, against a served cluster (``fake_apiserver``).

Configured as users configure it (``config.load_kube_config()`` reads ``$KUBECONFIG``, which the
fixture points at the server); the global default configuration it sets is restored after each
test, so tests stay independent under pytest-xdist. The clock is manual unless a test says
otherwise: virtual time moves only when the test thread calls ``advance``/``run_until``, so every
time below is exact.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client, config, dynamic, watch
from kubernetes.client.rest import ApiException

from fakekube.http.server import ClusterServer
from jobset_ref.testing.assertions import condition

PYTORCH = yaml.safe_load((Path(__file__).resolve().parents[2] / "examples" / "pytorch.yaml").read_text())
GROUP, VERSION, PLURAL = "jobset.x-k8s.io", "v1alpha2", "jobsets"


@pytest.fixture
def api(fake_apiserver: ClusterServer) -> Iterator[client.ApiClient]:
    """An ``ApiClient`` on the default configuration ``load_kube_config()`` sets from $KUBECONFIG."""
    saved = client.Configuration._default  # the client keeps its default configuration in a class attribute
    config.load_kube_config()
    try:
        assert client.Configuration.get_default().host == fake_apiserver.url
        with client.ApiClient() as api_client:
            yield api_client
    finally:
        client.Configuration.set_default(saved)


def configmap(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels},
            "data": {"k": "v"}}


def status_body(err: ApiException) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(err.body)
    return body


# ---------------------------------------------------------------------- typed APIs
def test_core_v1_create_read_list_by_label(api: client.ApiClient, fake_apiserver: ClusterServer) -> None:
    core = client.CoreV1Api(api)
    created = core.create_namespaced_config_map("default", configmap("a", app="x"))
    core.create_namespaced_config_map("default", configmap("b", app="y"))
    assert isinstance(created, client.V1ConfigMap) and created.metadata.uid
    assert created.metadata.creation_timestamp == fake_apiserver.cluster.now  # parsed as an aware datetime
    read = core.read_namespaced_config_map("a", "default")
    assert (read.metadata.resource_version, read.data) == (created.metadata.resource_version, {"k": "v"})
    listed = core.list_namespaced_config_map("default", label_selector="app=x")
    assert [o.metadata.name for o in listed.items] == ["a"]
    assert [o.metadata.name for o in core.list_config_map_for_all_namespaces().items] == ["a", "b"]
    # no fieldManager on the request: the write is named after the User-Agent (OpenAPI-Generator/37.0.2/python)
    assert [(m.manager, m.operation) for m in created.metadata.managed_fields] == [("OpenAPI-Generator", "Update")]


def test_replace_with_a_stale_resource_version_is_409_conflict(api: client.ApiClient) -> None:
    core = client.CoreV1Api(api)
    stale = core.create_namespaced_config_map("default", configmap("a"))
    stale.data = {"k": "1"}
    updated = core.replace_namespaced_config_map("a", "default", stale)
    assert int(updated.metadata.resource_version) > int(stale.metadata.resource_version)
    stale.data = {"k": "2"}
    with pytest.raises(ApiException) as caught:
        core.replace_namespaced_config_map("a", "default", stale)
    assert (caught.value.status, caught.value.reason) == (409, "Conflict")
    assert status_body(caught.value) == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply '
                   "your changes to the latest version and try again",
        "reason": "Conflict", "details": {"name": "a", "kind": "configmaps"}, "code": 409}
    assert core.read_namespaced_config_map("a", "default").data == {"k": "1"}


def test_reading_a_missing_object_is_404_status(api: client.ApiClient) -> None:
    with pytest.raises(ApiException) as caught:
        client.BatchV1Api(api).read_namespaced_job("nope", "default")
    assert (caught.value.status, caught.value.reason) == (404, "Not Found")
    assert status_body(caught.value) == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'jobs.batch "nope" not found', "reason": "NotFound",
        "details": {"name": "nope", "group": "batch", "kind": "jobs"}, "code": 404}


def test_batch_v1_job_runs_to_completion_on_the_manual_clock(api: client.ApiClient,
                                                             fake_apiserver: ClusterServer) -> None:
    batch = client.BatchV1Api(api)
    job = client.V1Job(
        metadata=client.V1ObjectMeta(name="sleeper", labels={"team": "a"}),
        spec=client.V1JobSpec(template=client.V1PodTemplateSpec(
            metadata=client.V1ObjectMeta(annotations={"fakekube.io/run-seconds": "30"}),
            spec=client.V1PodSpec(restart_policy="Never",
                                  containers=[client.V1Container(name="c", image="busybox")]))))
    batch.create_namespaced_job("default", job)
    assert [j.metadata.name for j in batch.list_namespaced_job("default", label_selector="team=a").items] == [
        "sleeper"]
    assert batch.list_namespaced_job("default", label_selector="team=b").items == []
    pods = client.CoreV1Api(api).list_namespaced_pod("default", label_selector="job-name=sleeper").items
    assert len(pods) == 1  # the write was settled before the answer: the Job controller made its pod
    assert (pods[0].status.phase, pods[0].spec.node_name) == ("Pending", None)  # binding takes 10 ms
    fake_apiserver.cluster.advance(60)
    done = batch.read_namespaced_job_status("sleeper", "default")
    assert done.status.succeeded == 1
    complete = next(c for c in done.status.conditions if c.type == "Complete")
    # pod bound at 0.01, running at 1.01, done 30 s later; the Job controller syncs 1 s after (second precision)
    assert complete.last_transition_time.isoformat() == "2030-01-01T00:00:32+00:00"


def test_typed_discovery_apis(api: client.ApiClient, fake_apiserver: ClusterServer) -> None:
    core = client.CoreApi(api).get_api_versions()  # its model requires serverAddressByClientCIDRs
    assert core.versions == ["v1"]
    assert [(c.client_cidr, c.server_address) for c in core.server_address_by_client_cidrs] == [
        ("0.0.0.0/0", f"127.0.0.1:{fake_apiserver.port}")]
    groups = client.ApisApi(api).get_api_versions().groups
    assert [g.name for g in groups] == ["events.k8s.io", "batch", "rbac.authorization.k8s.io",
                                        "admissionregistration.k8s.io", "scheduling.k8s.io", "apiextensions.k8s.io",
                                        "discovery.k8s.io", "jobset.x-k8s.io"]
    assert "jobs/status" in [r.name for r in client.BatchV1Api(api).get_api_resources().resources]
    assert client.VersionApi(api).get_code().git_version == "v1.32.4+fakekube"


def test_pod_logs_with_tail_lines_and_a_container_check(api: client.ApiClient, fake_apiserver: ClusterServer) -> None:
    core = client.CoreV1Api(api)
    core.create_namespaced_pod("default", {
        "metadata": {"name": "web", "annotations": {"fakekube.io/log": "starting\nlistening on :80\nready\n",
                                                    "fakekube.io/run-seconds": "600"}},
        "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}})
    with pytest.raises(ApiException) as caught:  # bound at 0.01: not yet
        core.read_namespaced_pod_log("web", "default")
    assert status_body(caught.value)["message"] == "pod web does not have a host assigned"
    fake_apiserver.cluster.advance(0.5)
    with pytest.raises(ApiException) as caught:  # bound, started at 1.01: no log yet
        core.read_namespaced_pod_log("web", "default")
    assert status_body(caught.value)["message"] == ('container "nginx" in pod "web" is waiting to start: '
                                                    "ContainerCreating")
    fake_apiserver.cluster.advance(1.5)
    assert core.read_namespaced_pod_log("web", "default") == "starting\nlistening on :80\nready\n"
    assert core.read_namespaced_pod_log("web", "default", container="nginx", tail_lines=2) == (
        "listening on :80\nready\n")
    with pytest.raises(ApiException) as caught:
        core.read_namespaced_pod_log("web", "default", container="sidecar")
    assert (caught.value.status, status_body(caught.value)["message"]) == (
        400, "container sidecar is not valid for pod web")


# ---------------------------------------------------------------------- custom objects
def test_custom_objects_on_jobsets(api: client.ApiClient, fake_apiserver: ClusterServer) -> None:
    custom = client.CustomObjectsApi(api)
    created = custom.create_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, PYTORCH)
    assert (created["kind"], created["metadata"]["name"], created["metadata"]["generation"]) == (
        "JobSet", "pytorch", 1)
    got = custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "pytorch")
    assert got["spec"]["replicatedJobs"][0]["replicas"] == 1  # defaulted by the webhook
    patched = custom.patch_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "pytorch",
                                                    {"metadata": {"labels": {"team": "a"}}})
    assert patched["metadata"]["labels"] == {"team": "a"} and patched["metadata"]["generation"] == 1
    status = custom.patch_namespaced_custom_object_status(GROUP, VERSION, "default", PLURAL, "pytorch",
                                                          {"status": {"restarts": 2}, "spec": {"suspend": True}})
    assert status["status"]["restarts"] == 2
    assert status["spec"] == patched["spec"]  # a write to /status ignores spec
    assert [o["metadata"]["name"] for o in custom.list_namespaced_custom_object(
        GROUP, VERSION, "default", PLURAL, label_selector="team=a")["items"]] == ["pytorch"]
    requests = list(fake_apiserver.requests)
    assert "PATCH /apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/pytorch/status" in requests
    deleted = custom.delete_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "pytorch")
    assert deleted == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",  # not the object
                       "details": {"name": "pytorch", "group": GROUP, "kind": PLURAL, "uid": created["metadata"]["uid"]}}
    with pytest.raises(ApiException) as caught:
        custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "pytorch")
    assert status_body(caught.value)["message"] == 'jobsets.jobset.x-k8s.io "pytorch" not found'


def test_a_jobset_lifecycle_read_through_the_client_at_exact_virtual_times(
        api: client.ApiClient, fake_apiserver: ClusterServer) -> None:
    custom = client.CustomObjectsApi(api)
    cluster = fake_apiserver.cluster
    custom.create_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, PYTORCH)
    cluster.advance(60)  # the test thread moves virtual time; the client reads what it made
    running = custom.get_namespaced_custom_object_status(GROUP, VERSION, "default", PLURAL, "pytorch")
    assert condition(running, "Completed") is None
    assert running["status"]["replicatedJobsStatus"] == [
        {"name": "workers", "ready": 1, "succeeded": 0, "failed": 0, "active": 1, "suspended": 0}]
    pods = client.CoreV1Api(api).list_namespaced_pod(
        "default", label_selector="jobset.sigs.k8s.io/jobset-name=pytorch").items
    assert sorted(p.metadata.name for p in pods)[0].startswith("pytorch-workers-0-0-")
    assert {p.status.phase for p in pods} == {"Running"} and len(pods) == 4

    def completed() -> bool:
        return condition(cluster.get("JobSet", "pytorch"), "Completed") is not None

    assert cluster.run_until(completed, timeout=600) == 302.01
    done = custom.get_namespaced_custom_object_status(GROUP, VERSION, "default", PLURAL, "pytorch")
    assert condition(done, "Completed") == {
        "type": "Completed", "status": "True", "lastTransitionTime": "2030-01-01T00:05:02Z",
        "reason": "AllJobsCompleted", "message": "jobset completed successfully"}
    assert done["status"]["terminalState"] == "Completed"


# ---------------------------------------------------------------------- watch
def test_watch_stream_sees_changes_made_from_the_test_thread_in_order(
        api: client.ApiClient, fake_apiserver: ClusterServer) -> None:
    core = client.CoreV1Api(api)
    cluster = fake_apiserver.cluster
    rv = core.list_namespaced_config_map("default").metadata.resource_version
    cluster.create(configmap("before"))  # after rv: replayed
    w = watch.Watch()
    seen: list[tuple[str, str, str]] = []
    rvs: list[str] = []
    for event in w.stream(core.list_namespaced_config_map, "default", resource_version=rv, timeout_seconds=10):
        obj = event["object"]
        assert isinstance(obj, client.V1ConfigMap)
        seen.append((event["type"], obj.metadata.name, json.dumps(obj.data, sort_keys=True)))
        rvs.append(obj.metadata.resource_version)
        # each event makes the next change, from this (the test) thread
        if len(seen) == 1:
            cluster.create(configmap("live"))
        elif len(seen) == 2:
            cluster.patch("ConfigMap", "live", {"data": {"k": "2"}})
        elif len(seen) == 3:
            cluster.delete("ConfigMap", "before")
        elif len(seen) == 4:
            w.stop()
    assert seen == [("ADDED", "before", '{"k": "v"}'), ("ADDED", "live", '{"k": "v"}'),
                    ("MODIFIED", "live", '{"k": "2"}'), ("DELETED", "before", '{"k": "v"}')]
    assert w.resource_version == rvs[-1] and [int(v) for v in rvs] == sorted(int(v) for v in rvs)
    assert [r for r in fake_apiserver.requests if "watch=" in r] == [
        f"GET /api/v1/namespaces/default/configmaps?resourceVersion={rv}&timeoutSeconds=10&watch=true"]


# ---------------------------------------------------------------------- the dynamic client
def test_dynamic_client_discovers_jobsets_lists_gets_and_applies(
        api: client.ApiClient, fake_apiserver: ClusterServer, tmp_path: Path) -> None:
    # its discovery cache is a file keyed by host: a fresh one per test (ports are reused)
    dyn = dynamic.DynamicClient(api, cache_file=str(tmp_path / "discovery.json"))
    jobsets = dyn.resources.get(api_version="jobset.x-k8s.io/v1alpha2", kind="JobSet")
    assert (jobsets.name, jobsets.namespaced, jobsets.kind) == ("jobsets", True, "JobSet")
    assert "status" in jobsets.subresources
    fake_apiserver.cluster.apply(PYTORCH)
    listed = jobsets.get(namespace="default")
    assert [o.metadata.name for o in listed.items] == ["pytorch"] and listed.kind == "JobSetList"
    assert jobsets.get(name="pytorch", namespace="default").spec.replicatedJobs[0].name == "workers"
    configmaps = dyn.resources.get(api_version="v1", kind="ConfigMap")
    body = configmap("applied")
    first = configmaps.server_side_apply(body=body, namespace="default", field_manager="dyn")
    again = configmaps.server_side_apply(body=body, namespace="default", field_manager="dyn")
    assert first.metadata.resourceVersion == again.metadata.resourceVersion  # a no-op apply writes nothing
    assert [(m.manager, m.operation) for m in again.metadata.managedFields] == [("dyn", "Apply")]
    assert "PATCH /api/v1/namespaces/default/configmaps/applied?fieldManager=dyn" in fake_apiserver.requests
    assert fake_apiserver.requests[0] == "GET /version"  # the dynamic client asks for the version first


@pytest.mark.fakekube(clock="realtime", speed=600)
def test_a_job_completes_by_itself_on_the_realtime_clock_seen_through_a_watch(
        api: client.ApiClient, fake_apiserver: ClusterServer) -> None:
    batch = client.BatchV1Api(api)
    created = batch.create_namespaced_job("default", {
        "metadata": {"name": "sleeper"},
        "spec": {"template": {"metadata": {"annotations": {"fakekube.io/run-seconds": "30"}},
                              "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}})
    seen: list[tuple[str, int | None, int | None, int | None, list[str]]] = []
    w = watch.Watch()
    # nobody advances the clock: 600 virtual seconds pass per wall second
    for event in w.stream(batch.list_namespaced_job, "default", field_selector="metadata.name=sleeper",
                          resource_version=created.metadata.resource_version, timeout_seconds=20):
        job = event["object"]
        seen.append((event["type"], job.status.active, job.status.ready, job.status.succeeded,
                     [c.type for c in job.status.conditions or []]))
        if "Complete" in seen[-1][-1]:
            w.stop()
    # replayed from the create's resourceVersion: the same events however the wall clock interleaves
    assert seen == [("MODIFIED", 1, 0, None, []),  # t+0: the Job controller's first sync
                    ("MODIFIED", 1, 1, None, []),  # t+2.01: the pod runs (ready), batched by 1 s
                    ("MODIFIED", None, 0, None, ["SuccessCriteriaMet"]),  # t+32.01: the pod succeeded
                    ("MODIFIED", None, 0, 1, ["SuccessCriteriaMet", "Complete"])]  # its finalizer is gone
    complete = next(c for c in job.status.conditions if c.type == "Complete")
    took = (complete.last_transition_time - created.metadata.creation_timestamp).total_seconds()
    assert 32 <= took <= 33  # 32.01 virtual seconds, at second precision
    assert fake_apiserver.cluster.elapsed >= 32


def test_a_client_left_from_an_earlier_server_is_refused(fake_apiserver: ClusterServer, tmp_path: Path) -> None:
    """An operator still running with the kubeconfig of an earlier server (whose port this server
    reuses) is refused with 401 Unauthorized on every call, and acts on nothing; the client sends
    the kubeconfig's token, so this server's own kubeconfig works."""
    stale = json.loads(Path(fake_apiserver.kubeconfig).read_text())
    stale["users"][0]["user"]["token"] = "the-token-of-an-earlier-server"
    path = tmp_path / "kubeconfig"
    path.write_text(json.dumps(stale))
    with config.new_client_from_config(str(path)) as old, config.new_client_from_config(fake_apiserver.kubeconfig) as new:
        with pytest.raises(ApiException) as refused:
            client.CoreV1Api(old).create_namespaced_config_map("default", configmap("sneaky"))
        assert (refused.value.status, status_body(refused.value)) == (401, {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": "Unauthorized",
            "reason": "Unauthorized", "code": 401})
        assert client.CoreV1Api(new).list_namespaced_config_map("default").items == []
